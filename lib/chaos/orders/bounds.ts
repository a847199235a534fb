/**
 * How long an accepted order may take to become terminal, derived from the workflow timings the
 * system was synthesized with (lib/scheduler-agent-supervisor/config.ts, carried in WORKFLOW_TIMINGS), so the campaign's
 * liveness check moves with the configuration instead of hard-coding seconds.
 */

import { backoffSecondsFor } from '../../../lambdas/scheduler-agent-supervisor/composition/supervisor';
import type { WorkflowTimings } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { type BoundTerm, boundOf, type TerminalBound } from '../common/bounds';

export interface TerminalBoundInput {
  readonly timings: WorkflowTimings;
  readonly stepCount: number;
  /** Largest clock offset applied to any function (the supervisor may act this much late). */
  readonly maxClockSkewMillis: number;
  /**
   * Fixed allowance for the local machine's own queueing (worker start-up, pollers, a loaded CPU).
   * Stated in the summary, so a reader sees how much of the bound is not from the configuration.
   */
  readonly schedulingAllowanceMillis: number;
}

/**
 * Worst case without outside help: the first claim comes only after the supervisor re-queues the
 * order (startGrace + one sweep); every one of maxFailures attempts runs each step to its deadline
 * (steps x (timeout + slack)) and is noticed one sweep later (plus skew); between attempts the
 * order waits its back-off, then again startGrace + one sweep if the start message is lost; the
 * last attempt may fail for good and go on compensating (compensationTerms). The clock starts at
 * acceptance: time spent waiting for admission (429 and Retry-After) is not the system's.
 */
export function terminalBound(input: TerminalBoundInput): TerminalBound {
  const { timings } = input;
  const second = 1000;
  const sweepMillis = (timings.supervisorRateSeconds * second) / timings.supervisorSweepsPerRun;
  const attemptMillis =
    input.stepCount * (timings.stepTimeoutSeconds + timings.stepDeadlineSlackSeconds) * second;
  let backoffMillis = 0;
  for (let failure = 1; failure < timings.maxFailures; failure += 1) {
    backoffMillis += backoffSecondsFor(failure, timings) * second;
  }
  const terms = [
    { name: 'first claim (startGrace + sweep)', millis: timings.startGraceSeconds * second + sweepMillis },
    {
      name: `${timings.maxFailures} attempts x (${input.stepCount} steps x (timeout + slack) + sweep + skew)`,
      millis: timings.maxFailures * (attemptMillis + sweepMillis + input.maxClockSkewMillis),
    },
    { name: 'back-offs between attempts', millis: backoffMillis },
    {
      name: 're-claims after back-off (startGrace + sweep each)',
      millis: (timings.maxFailures - 1) * (timings.startGraceSeconds * second + sweepMillis),
    },
    ...compensationTerms(timings, attemptMillis, sweepMillis, input.maxClockSkewMillis),
    { name: 'local scheduling allowance', millis: input.schedulingAllowanceMillis },
  ];
  return boundOf(terms);
}

/**
 * An order that fails for good goes on compensating: up to maxCompensationFailures compensation
 * attempts, each undoing up to every step to its deadline (the plan's compensation deadlines are
 * as long as the steps'), with the same back-offs and re-claims between them as the steps' attempts.
 */
function compensationTerms(
  timings: WorkflowTimings,
  attemptMillis: number,
  sweepMillis: number,
  skewMillis: number,
): BoundTerm[] {
  const second = 1000;
  const attempts = timings.maxCompensationFailures;
  let backoffMillis = 0;
  for (let failure = 1; failure < attempts; failure += 1) {
    backoffMillis += backoffSecondsFor(failure, timings) * second;
  }
  return [
    {
      name: `${attempts} compensation attempts x (steps x (timeout + slack) + sweep + skew)`,
      millis: attempts * (attemptMillis + sweepMillis + skewMillis),
    },
    { name: 'back-offs between compensation attempts', millis: backoffMillis },
    {
      name: 're-claims of the compensation (startGrace + sweep each)',
      millis: (attempts - 1) * (timings.startGraceSeconds * second + sweepMillis),
    },
  ];
}

/**
 * The clock skew the campaign may apply without breaking the design's own assumption: the
 * supervisor must not expire a live task, which the per-step slack guards. Half of it is allowed,
 * split between the supervisor (ahead) and the starter (behind), which together set and judge
 * CompleteBy.
 */
export function maxSafeRelativeSkewMillis(
  timings: Pick<WorkflowTimings, 'stepDeadlineSlackSeconds'>,
): number {
  return (timings.stepDeadlineSlackSeconds * 1000) / 2;
}
