import {
  type WorkflowTimings,
  WorkflowTimingsSchema,
} from '../../lambdas/scheduler-agent-supervisor/contracts';

/**
 * Deployment configuration, one profile per target, selected with CDK context:
 *   cdk deploy                    -> profile "default" (AWS: windows in minutes)
 *   cdk synth -c profile=local    -> profile "local"   (npm start / CI: windows in seconds)
 * The same constructs and handlers run under every profile; only these numbers change.
 */
export interface DeploymentConfig {
  readonly profile: string;
  readonly timings: WorkflowTimings;
  /** Partitions of the supervisor index (write sharding of DueShard). */
  readonly dueShardCount: number;
  /** API Gateway stage throttling (steady requests per second and burst). */
  readonly apiThrottle: { readonly rateLimit: number; readonly burstLimit: number };
  /** How long a STALL-ONCE call is held by the fake remote service before it gives up. */
  readonly remoteStallMillis: number;
  /** CloudWatch Logs retention of every function, in days. */
  readonly logRetentionDays: number;
  /** Whether stateful resources are kept when the stack is deleted. */
  readonly retainData: boolean;
}

const DEFAULT_PROFILE: DeploymentConfig = {
  profile: 'default',
  timings: {
    stepTimeoutSeconds: 120,
    stepHeartbeatSeconds: 30,
    stepDeadlineSlackSeconds: 30,
    startGraceSeconds: 120,
    maxFailures: 5,
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
  logRetentionDays: 30,
  retainData: true,
};

const LOCAL_PROFILE: DeploymentConfig = {
  profile: 'local',
  timings: {
    stepTimeoutSeconds: 6,
    stepHeartbeatSeconds: 3,
    stepDeadlineSlackSeconds: 2,
    startGraceSeconds: 5,
    maxFailures: 3,
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
  logRetentionDays: 7,
  retainData: false,
};

export const PROFILES: Readonly<Record<string, DeploymentConfig>> = {
  default: DEFAULT_PROFILE,
  local: LOCAL_PROFILE,
};

/** Resolves and validates a profile by name; throws naming the unknown profile or bad values. */
export function loadConfig(profileName: string | undefined): DeploymentConfig {
  const name = profileName ?? 'default';
  const config = PROFILES[name];
  if (!config) {
    throw new Error(
      `Unknown profile '${name}' (CDK context "profile"). Known profiles: ${Object.keys(PROFILES).join(', ')}`,
    );
  }
  const timings = WorkflowTimingsSchema.safeParse(config.timings);
  if (!timings.success) {
    const problems = timings.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Profile '${name}' has invalid timings: ${problems}`);
  }
  if (!Number.isInteger(config.dueShardCount) || config.dueShardCount < 1 || config.dueShardCount > 64) {
    throw new Error(
      `Profile '${name}': dueShardCount must be an integer from 1 to 64, got ${config.dueShardCount}`,
    );
  }
  const sweepWindow = config.timings.supervisorRateSeconds;
  if (config.timings.supervisorBudgetSeconds >= sweepWindow + 30) {
    throw new Error(
      `Profile '${name}': supervisorBudgetSeconds must leave the run shorter than its schedule`,
    );
  }
  return config;
}
