import type { WorkflowTimings } from '../../../lambdas/scheduler-agent-supervisor/contracts';

/**
 * Timings pinned for the chaos core's unit tests (the local profile's values when written): the
 * tests assert arithmetic on them, so they must not follow later profile changes.
 */
export const PINNED_TIMINGS: WorkflowTimings = {
  stepTimeoutSeconds: 6,
  stepHeartbeatSeconds: 3,
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
};
