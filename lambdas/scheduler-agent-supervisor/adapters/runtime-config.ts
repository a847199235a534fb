import { requireEnv } from '../../shared/env';
import {
  type AdmissionSettings,
  type ClientRegistry,
  EnvKey,
  parseAdmissionSettings,
  parseClientRegistry,
  parseRetryBudget,
  parseWorkflowTimings,
  type WorkflowTimings,
} from '../contracts';

/** WORKFLOW_TIMINGS, validated: a handler with broken limits must fail at load, not mid-order. */
export function readWorkflowTimings(env: NodeJS.ProcessEnv = process.env): WorkflowTimings {
  return parseWorkflowTimings(requireEnv(EnvKey.WorkflowTimings, env));
}

export function readDueShardCount(env: NodeJS.ProcessEnv = process.env): number {
  const raw = requireEnv(EnvKey.DueShardCount, env);
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 1 || count > 64) {
    throw new Error(`${EnvKey.DueShardCount} must be an integer from 1 to 64, got '${raw}'`);
  }
  return count;
}

/** CLIENT_REGISTRY, validated at load: a handler that cannot tell clients apart must not start. */
export function readClientRegistry(env: NodeJS.ProcessEnv = process.env): ClientRegistry {
  return parseClientRegistry(requireEnv(EnvKey.ClientRegistry, env));
}

/** ADMISSION_SETTINGS, validated (limit, shards, reconcile grace). */
export function readAdmissionSettings(env: NodeJS.ProcessEnv = process.env): AdmissionSettings {
  return parseAdmissionSettings(requireEnv(EnvKey.AdmissionSettings, env));
}

/** RETRY_BUDGET, validated: calls a dependency may receive per operation of an order. */
export function readRetryBudget(env: NodeJS.ProcessEnv = process.env): number {
  return parseRetryBudget(requireEnv(EnvKey.RetryBudget, env));
}
