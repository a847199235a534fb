import { requireEnv } from '../../shared/env';
import {
  type AdmissionSettings,
  type ClientRegistry,
  EnvKey,
  isKnownWorkflowVersion,
  KNOWN_WORKFLOW_VERSIONS,
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

/**
 * WORKFLOW_STATE_MACHINES, validated at load: `{ "<version>": "<state machine ARN>" }`, one entry
 * per live workflow version, every version known to this code. Its keys are the live versions.
 */
export function readWorkflowStateMachines(env: NodeJS.ProcessEnv = process.env): ReadonlyMap<number, string> {
  return parseWorkflowStateMachines(requireEnv(EnvKey.WorkflowStateMachines, env));
}

export function parseWorkflowStateMachines(text: string): ReadonlyMap<number, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${EnvKey.WorkflowStateMachines} is not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${EnvKey.WorkflowStateMachines} must be a JSON object of version to state machine ARN`);
  }
  const machines = new Map<number, string>();
  for (const [key, arn] of Object.entries(parsed)) {
    const version = Number(key);
    if (!/^[1-9][0-9]*$/.test(key) || !isKnownWorkflowVersion(version)) {
      throw new Error(
        `${EnvKey.WorkflowStateMachines} names workflow version '${key}'; known: ${KNOWN_WORKFLOW_VERSIONS.join(', ')}`,
      );
    }
    if (typeof arn !== 'string' || arn === '') {
      throw new Error(`${EnvKey.WorkflowStateMachines}: version ${key} has no state machine ARN`);
    }
    machines.set(version, arn);
  }
  if (machines.size === 0) throw new Error(`${EnvKey.WorkflowStateMachines} names no workflow version`);
  return machines;
}

/** CURRENT_WORKFLOW_VERSION: the version new orders get; a version this code knows. */
export function readCurrentWorkflowVersion(env: NodeJS.ProcessEnv = process.env): number {
  const raw = requireEnv(EnvKey.CurrentWorkflowVersion, env);
  const version = Number(raw);
  if (!/^[1-9][0-9]*$/.test(raw) || !isKnownWorkflowVersion(version)) {
    throw new Error(
      `${EnvKey.CurrentWorkflowVersion} must be a known workflow version (${KNOWN_WORKFLOW_VERSIONS.join(', ')}), got '${raw}'`,
    );
  }
  return version;
}
