import {
  type AdmissionSettings,
  admissionShardCaps,
  DEFAULT_LIVE_WORKFLOW_VERSIONS,
  DEFAULT_WORKFLOW_VERSION,
  isKnownWorkflowVersion,
  KNOWN_WORKFLOW_VERSIONS,
  validateRetryBudget,
  type WorkflowTimings,
  WorkflowTimingsSchema,
} from '../../lambdas/scheduler-agent-supervisor/contracts';
import { loadPlatformConfig, type PlatformConfig, type ProfileName, profileNamed } from '../platform/config';
import { clientAdmissionCaps, clientShares } from './client-shares';
import { SasContextKey } from './sas-context-key';

/**
 * This wing's settings per deployment profile (the profiles and the settings every wing shares
 * are the platform's: lib/platform/config.ts). The same constructs and handlers run under every
 * profile; only these numbers change.
 */
export interface SasSettings {
  /** Time windows and thresholds of the scheduler, the agents and the supervisor. */
  readonly timings: WorkflowTimings;
  /** Partitions of the supervisor index (write sharding of DueShard); may grow, never shrink. */
  readonly dueShardCount: number;
  /** Stage throttling of the submission API (steady requests per second and burst). */
  readonly apiThrottle: { readonly rateLimit: number; readonly burstLimit: number };
  /** How long a STALL-ONCE call is held by the fake remote service before it gives up. */
  readonly remoteStallMillis: number;
  /**
   * Client applications (MISSION item 11): each gets its own API key for the client routes and its
   * own reply queue, readable only by `principal`. `{account}` in a principal is replaced by the
   * stack's account.
   */
  readonly clients: readonly ClientConfig[];
  /** Admission control (MISSION item 2): at most `limit` non-terminal orders, over `shards` counters. */
  readonly admission: AdmissionConfig;
  /** The end-to-end retry budget (MISSION item 10; contracts/retry-budget.ts). */
  readonly retryBudget: RetryBudgetConfig;
  /** Workflow versions (MISSION item 12): which one new orders get, and which are still deployed. */
  readonly workflow: WorkflowDeployment;
  /**
   * Most concurrent invocations of each agent's queue event source (its ScalingConfig
   * MaximumConcurrency, 2 to 1000): a backlog of requests (a redrive, a burst of orders) reaches a
   * remote service at most this many batches at a time, and cannot take the account's concurrency.
   */
  readonly agentMaxConcurrency: number;
}

export interface RetryBudgetConfig {
  /**
   * Calls one dependency may receive for one operation (a step, or a step's compensation) of one
   * order, every layer and attempt included. Written into each record at creation; the agents
   * refuse a call past it. The synth guardrail (lib/platform/guardrails/retry-budget.ts) fails the
   * synth when the layers' product (README, "Retry budget") exceeds it, so the budget is a
   * backstop the configured layers never reach, and what stops calls the layers do not count
   * (duplicate deliveries, operator retries).
   */
  readonly callsPerOperation: number;
}

/**
 * The workflow versions of a deployment (contracts/workflows.ts). CDK context overrides the
 * profile's (workflowWithOverrides): `workflowVersion=<n>` rolls out n, `retireWorkflowVersionsBefore=<n>`
 * stops deploying the older ones.
 */
export interface WorkflowDeployment {
  /** The version new orders are submitted on. */
  readonly current: number;
  /**
   * The versions still deployed (one state machine each, their agents): every version a non-terminal
   * order may still be on. Retire one only once no such order is left (README, workflow versions).
   */
  readonly live: readonly number[];
}

export interface ClientConfig {
  /** Lower-case name (CLIENT_NAME_PATTERN): the queue, key and ClientId are named after it. */
  readonly name: string;
  /** IAM principal ARN allowed to read the client's reply queue. */
  readonly principal: string;
  /**
   * Percent of the stage throttle (rate and burst) the client's own usage plan allows (> 0; the
   * clients' together at most 100). @default - an equal share of what stated shares leave
   */
  readonly throttleShare?: number;
  /**
   * Percent of `admission.limit` the client's orders may hold in flight (> 0; the clients' together
   * at most 100; at least one slot). @default - an equal share of what stated shares leave
   */
  readonly admissionShare?: number;
}

export interface AdmissionConfig extends AdmissionSettings {
  /** At most this many non-terminal orders (CDK context `admissionLimit` overrides it). */
  readonly limit: number;
  /**
   * Counter items the limit is split over (1 to limit; CDK context `admissionShards`). May grow,
   * never shrink: a removed shard's slots would still be held but no longer counted or reconciled.
   */
  readonly shards: number;
  /** How long a terminal record may keep its slot before the reconciler treats its release as lost. */
  readonly reconcileGraceSeconds: number;
}

export const SAS_PROFILES: Readonly<Record<ProfileName, SasSettings>> = {
  default: {
    timings: {
      stepTimeoutSeconds: 120,
      stepHeartbeatSeconds: 30,
      stepDeadlineSlackSeconds: 30,
      startGraceSeconds: 120,
      maxFailures: 5,
      maxCompensationFailures: 3,
      retryBackoffSeconds: 60,
      extendedBackoffAfter: 3,
      extendedBackoffSeconds: 900,
      agentMaxCallAttempts: 4,
      agentBackoffBaseMillis: 200,
      agentBackoffCapMillis: 5_000,
      supervisorRateSeconds: 60,
      supervisorSweepsPerRun: 1,
      supervisorPageSize: 100,
      supervisorBudgetSeconds: 45,
    },
    dueShardCount: 8,
    apiThrottle: { rateLimit: 50, burstLimit: 100 },
    remoteStallMillis: 150_000,
    clients: [
      { name: 'web-shop', principal: 'arn:aws:iam::{account}:role/web-shop-orders' },
      { name: 'call-center', principal: 'arn:aws:iam::{account}:role/call-center-orders' },
    ],
    admission: { limit: 2000, shards: 8, reconcileGraceSeconds: 300 },
    // Steps: 5 attempts (maxFailures) x 3 receives x 4 calls x 1 = 60; compensations 3 x 3 x 4 = 36.
    retryBudget: { callsPerOperation: 60 },
    workflow: { current: DEFAULT_WORKFLOW_VERSION, live: [...DEFAULT_LIVE_WORKFLOW_VERSIONS] },
    // 20 batches of 5 (AGENT_BATCH_SIZE): at most 100 calls in flight to one service from one agent.
    agentMaxConcurrency: 20,
  },
  local: {
    timings: {
      stepTimeoutSeconds: 6,
      // The first heartbeat goes out once the agent's sandbox has started, so this window holds the
      // queue hop and a cold start. On a loaded 2-core machine (CI runs two test workers, each with
      // a runtime and a JVM) a cold agent took 3.1 s to answer, and at 3 s attempts were lost to
      // heartbeat timeouts before any call (restart and retry-budget tests saw an extra attempt).
      stepHeartbeatSeconds: 5,
      stepDeadlineSlackSeconds: 2,
      startGraceSeconds: 5,
      maxFailures: 3,
      maxCompensationFailures: 3,
      retryBackoffSeconds: 1,
      extendedBackoffAfter: 2,
      extendedBackoffSeconds: 3,
      agentMaxCallAttempts: 4,
      agentBackoffBaseMillis: 50,
      agentBackoffCapMillis: 500,
      supervisorRateSeconds: 60,
      supervisorSweepsPerRun: 30,
      supervisorPageSize: 50,
      supervisorBudgetSeconds: 55,
    },
    dueShardCount: 4,
    apiThrottle: { rateLimit: 200, burstLimit: 400 },
    remoteStallMillis: 10_000,
    clients: [
      { name: 'web-shop', principal: 'arn:aws:iam::{account}:user/web-shop' },
      { name: 'call-center', principal: 'arn:aws:iam::{account}:user/call-center' },
    ],
    admission: { limit: 200, shards: 4, reconcileGraceSeconds: 15 },
    // Steps: 3 attempts x 3 receives x 4 calls x 1 = 36; compensations 3 x 3 x 4 = 36.
    retryBudget: { callsPerOperation: 36 },
    workflow: { current: DEFAULT_WORKFLOW_VERSION, live: [...DEFAULT_LIVE_WORKFLOW_VERSIONS] },
    // The local runtime's own default function concurrency (4): the cap it already ran under.
    agentMaxConcurrency: 4,
  },
};

/** A profile as this wing's stack reads it: the platform's settings and the wing's. */
export interface DeploymentConfig extends PlatformConfig, SasSettings {}

/** Resolves and validates a profile by name; throws naming the unknown profile or the bad values. */
export function loadConfig(profileName: unknown): DeploymentConfig {
  const platform = loadPlatformConfig(profileName);
  const settings = SAS_PROFILES[platform.profile];
  validateSasSettings(platform.profile, settings);
  return { ...platform, ...settings };
}

/** Throws naming the profile and the first setting at fault. */
export function validateSasSettings(profile: string, settings: SasSettings): void {
  const timings = WorkflowTimingsSchema.safeParse(settings.timings);
  if (!timings.success) {
    const problems = timings.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Profile '${profile}' has invalid timings: ${problems}`);
  }
  const { dueShardCount } = settings;
  if (!Number.isInteger(dueShardCount) || dueShardCount < 1 || dueShardCount > 64) {
    throw new Error(
      `Profile '${profile}': dueShardCount must be an integer from 1 to 64, got ${dueShardCount}`,
    );
  }
  if (settings.timings.supervisorBudgetSeconds >= settings.timings.supervisorRateSeconds + 30) {
    throw new Error(
      `Profile '${profile}': supervisorBudgetSeconds must leave the run shorter than its schedule`,
    );
  }
  validateAdmissionSettings(`Profile '${profile}'`, settings.admission);
  clientShares(`Profile '${profile}'`, settings.clients, 'throttleShare');
  clientAdmissionCaps(
    `Profile '${profile}'`,
    settings.admission.limit,
    clientShares(`Profile '${profile}'`, settings.clients, 'admissionShare'),
  );
  validateRetryBudget(`Profile '${profile}'`, settings.retryBudget.callsPerOperation);
  validateWorkflowDeployment(`Profile '${profile}'`, settings.workflow);
  const { agentMaxConcurrency } = settings;
  if (!Number.isInteger(agentMaxConcurrency) || agentMaxConcurrency < 2 || agentMaxConcurrency > 1000) {
    throw new Error(
      `Profile '${profile}': agentMaxConcurrency must be an integer from 2 to 1000 (SQS event source MaximumConcurrency), got ${agentMaxConcurrency}`,
    );
  }
}

/** Throws naming `owner` and the problem: an unknown version, an empty live list, current not live. */
export function validateWorkflowDeployment(owner: string, workflow: WorkflowDeployment): void {
  const known = KNOWN_WORKFLOW_VERSIONS.join(', ');
  const unknown = [workflow.current, ...workflow.live].filter((version) => !isKnownWorkflowVersion(version));
  if (unknown.length > 0) {
    throw new Error(
      `${owner}: unknown workflow version(s) ${[...new Set(unknown)].join(', ')}; known: ${known}`,
    );
  }
  if (workflow.live.length === 0) throw new Error(`${owner}: no live workflow version`);
  if (new Set(workflow.live).size !== workflow.live.length) {
    throw new Error(`${owner}: live workflow versions repeat: ${workflow.live.join(', ')}`);
  }
  if (!workflow.live.includes(workflow.current)) {
    throw new Error(
      `${owner}: the current workflow version ${workflow.current} must be live (live: ${workflow.live.join(', ')}); new orders would have no state machine`,
    );
  }
}

/** What follows a profile's timings, taken together by the `timings` override. */
type TimingSettings = Pick<SasSettings, 'timings' | 'retryBudget' | 'remoteStallMillis'>;

/**
 * The timings with the CDK context's override: `timings=<profile>` takes that profile's workflow
 * timings and what follows from them (the retry budget, sized on maxFailures; the STALL-ONCE hold,
 * past the step timeout). The tests run the local profile with `timings=default` on the runtime's
 * virtual clock: the step timeouts, heartbeats, back-offs and supervisor rate that are deployed, at
 * the speed of the work (lib/local-runtime/clock).
 */
export function timingsWithOverride(settings: TimingSettings, timings: string | undefined): TimingSettings {
  if (timings === undefined) return settings;
  const profile = profileNamed(timings, `CDK context "${SasContextKey.Timings}"`);
  const { timings: profileTimings, retryBudget, remoteStallMillis } = SAS_PROFILES[profile];
  return { timings: profileTimings, retryBudget, remoteStallMillis };
}

/**
 * The workflow versions with the CDK context's overrides, validated:
 * - `workflowVersion=<n>`: n becomes current, and every version from 1 to n is live (with those
 *   the profile already had), so a rollout never drops the versions orders may still be on;
 * - `retireWorkflowVersionsBefore=<n>`: versions below n are no longer deployed. Only safe once no
 *   non-terminal order is on them (README: `npm run orders -- list --workflow-version <v>`).
 */
export function workflowWithOverrides(
  workflow: WorkflowDeployment,
  overrides: { readonly version?: string; readonly retireBefore?: string },
): WorkflowDeployment {
  const integer = (key: string, text: string | undefined): number | undefined => {
    if (text === undefined) return undefined;
    if (!/^[1-9][0-9]*$/.test(text)) {
      throw new Error(`CDK context "${key}" must be a positive integer, got ${JSON.stringify(text)}`);
    }
    return Number(text);
  };
  const version = integer('workflowVersion', overrides.version);
  const retireBefore = integer('retireWorkflowVersionsBefore', overrides.retireBefore);
  const current = version ?? workflow.current;
  const upToCurrent = version === undefined ? [] : Array.from({ length: version }, (_, index) => index + 1);
  const live = [...new Set([...workflow.live, ...upToCurrent])]
    .filter((candidate) => retireBefore === undefined || candidate >= retireBefore)
    .sort((a, b) => a - b);
  const result: WorkflowDeployment = { current, live };
  validateWorkflowDeployment('CDK context workflowVersion/retireWorkflowVersionsBefore', result);
  return result;
}

/** Throws naming `owner` and the admission setting at fault (limit, shards <= limit, grace). */
export function validateAdmissionSettings(owner: string, settings: AdmissionSettings): void {
  try {
    admissionShardCaps(settings.limit, settings.shards);
  } catch (error) {
    throw new Error(`${owner}: ${(error as Error).message}`);
  }
  const grace = settings.reconcileGraceSeconds;
  if (!Number.isInteger(grace) || grace < 1 || grace > 86_400) {
    throw new Error(
      `${owner}: admission reconcileGraceSeconds must be an integer from 1 to 86400, got ${grace}`,
    );
  }
}

/**
 * The admission settings with the CDK context's overrides (`admissionLimit`, `admissionShards`),
 * validated. A test (or an operator) can run the same app with a small limit without a profile of
 * its own: e.g. `cdk synth -c profile=local -c admissionLimit=4 -c admissionShards=2`.
 */
export function admissionWithOverrides(
  admission: AdmissionConfig,
  overrides: { readonly limit?: string; readonly shards?: string },
): AdmissionConfig {
  const integer = (key: string, text: string | undefined): number | undefined => {
    if (text === undefined) return undefined;
    if (!/^[1-9][0-9]*$/.test(text)) {
      throw new Error(`CDK context "${key}" must be a positive integer, got ${JSON.stringify(text)}`);
    }
    return Number(text);
  };
  const result: AdmissionConfig = {
    ...admission,
    limit: integer('admissionLimit', overrides.limit) ?? admission.limit,
    shards: integer('admissionShards', overrides.shards) ?? admission.shards,
  };
  validateAdmissionSettings('CDK context admissionLimit/admissionShards', result);
  return result;
}
