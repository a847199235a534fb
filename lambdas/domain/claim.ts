import {
  ORDER_STEPS,
  ProcessState,
  type StepName,
  StepStatus,
  WORKFLOW_VERSION,
  type WorkflowTimings,
} from '../contracts';
import type { ReleaseRequest } from './ports';
import { instanceIdFor, pendingCompleteBy, type StateRecord, stepStatusOf } from './state-record';

export type ClaimTimings = Pick<
  WorkflowTimings,
  'stepTimeoutSeconds' | 'stepDeadlineSlackSeconds' | 'startGraceSeconds'
>;

export interface AttemptPlan {
  /** Per-step CompleteBy of this attempt (epoch millis), written to the record's Plan map. */
  readonly plan: Readonly<Record<StepName, number>>;
  /** CompleteBy of the record right after the claim: the deadline of the first step still to run. */
  readonly completeBy: number;
}

/** Wall-clock window one step may take, including the slack that keeps the supervisor off live tasks. */
export function stepWindowMillis(timings: ClaimTimings): number {
  return (timings.stepTimeoutSeconds + timings.stepDeadlineSlackSeconds) * 1000;
}

/**
 * Deadlines of an attempt. The k-th step still to run (k = 1..) must finish by claimedAt + k windows;
 * steps already completed by an earlier attempt are not redone, so they get claimedAt and no window.
 * When every step is already completed (an attempt died between the last step and MarkProcessed),
 * the record still gets one window so the supervisor does not expire the attempt at once.
 */
export function planAttempt(
  record: Pick<StateRecord, 'steps'>,
  claimedAt: number,
  timings: ClaimTimings,
): AttemptPlan {
  const window = stepWindowMillis(timings);
  const plan = {} as Record<StepName, number>;
  let remaining = 0;
  let firstDeadline: number | undefined;
  for (const step of ORDER_STEPS) {
    if (stepStatusOf(record, step.name) === StepStatus.Completed) {
      plan[step.name] = claimedAt;
      continue;
    }
    remaining += 1;
    plan[step.name] = claimedAt + remaining * window;
    firstDeadline ??= plan[step.name];
  }
  return { plan, completeBy: firstDeadline ?? claimedAt + window };
}

/**
 * How far apart the clocks of the starter, the supervisor and the scheduler may be: half the
 * per-step slack. This is the system's stated skew bound. The slack keeps the supervisor from
 * expiring a live task when its clock runs ahead; the same half-slack lets the starter accept a
 * retry whose back-off end was stamped by a supervisor running ahead of it.
 */
export function clockSkewToleranceMillis(timings: Pick<ClaimTimings, 'stepDeadlineSlackSeconds'>): number {
  return (timings.stepDeadlineSlackSeconds * 1000) / 2;
}

/**
 * Largest CompleteBy a Pending record may have and still be claimable now. A Pending CompleteBy is
 * "earliest start + startGrace" (see pendingCompleteBy), stamped with the writer's clock (the
 * supervisor's, for a retry), so the earliest start has passed when CompleteBy <= now + startGrace,
 * give or take the clock skew between the two. Without the tolerance, a supervisor whose clock runs
 * ahead re-queues the retry with a back-off end the starter sees as future, the starter drops the
 * message as too early, and the order cycles in Pending (found by the chaos campaign).
 */
export function latestClaimableCompleteBy(
  now: number,
  timings: Pick<ClaimTimings, 'startGraceSeconds' | 'stepDeadlineSlackSeconds'>,
): number {
  return now + timings.startGraceSeconds * 1000 + clockSkewToleranceMillis(timings);
}

export type ClaimDecision =
  | {
      readonly kind: 'claim';
      readonly seenAttempt: number;
      readonly attempt: number;
      readonly instanceId: string;
      readonly claimedAt: number;
      readonly claimableUntilCompleteBy: number;
      readonly workflowVersion: number;
      readonly plan: AttemptPlan['plan'];
      readonly completeBy: number;
    }
  | {
      /** Already claimed (a starter died between claim and StartExecution): start the same instance again. */
      readonly kind: 'resume';
      readonly instanceId: string;
      readonly attempt: number;
      readonly workflowVersion: number;
    }
  | {
      readonly kind: 'skip';
      readonly reason: 'in-back-off' | 'finished' | 'inconsistent';
      readonly detail: string;
    };

/** What a starter should do with a record it was asked to start. */
export function decideClaim(record: StateRecord, now: number, timings: ClaimTimings): ClaimDecision {
  switch (record.processState) {
    case ProcessState.Pending: {
      if (record.lockedBy !== undefined) {
        return skip('inconsistent', `Pending record is locked by '${record.lockedBy}'`);
      }
      const claimableUntil = latestClaimableCompleteBy(now, timings);
      if (record.attempt > 0 && record.completeBy > claimableUntil) {
        return skip('in-back-off', `retry back-off ends in ${record.completeBy - claimableUntil} ms`);
      }
      const attempt = record.attempt + 1;
      const { plan, completeBy } = planAttempt(record, now, timings);
      return {
        kind: 'claim',
        seenAttempt: record.attempt,
        attempt,
        instanceId: instanceIdFor(record.orderId, attempt),
        claimedAt: now,
        claimableUntilCompleteBy: claimableUntil,
        workflowVersion: WORKFLOW_VERSION,
        plan,
        completeBy,
      };
    }
    case ProcessState.Processing:
      if (record.lockedBy === undefined) {
        return skip('inconsistent', 'Processing record has no LockedBy');
      }
      return {
        kind: 'resume',
        instanceId: record.lockedBy,
        attempt: record.attempt,
        workflowVersion: record.workflowVersion,
      };
    default:
      return skip('finished', `record is ${record.processState}`);
  }
}

export type ClaimToStart = Extract<ClaimDecision, { readonly kind: 'claim' }>;

/**
 * Undoes a claim whose execution could not be started, so the order does not sit Processing until
 * the supervisor expires it and counts a failure for an attempt in which no step ran. The record
 * goes back to what a starter saw before the claim: Pending, unlocked, the previous Attempt (the
 * next claim reuses this attempt's number, instance id and execution name) and FailureCount as it
 * was. CompleteBy = pendingCompleteBy(now): the redelivered start message can claim it at once,
 * and if that redelivery never comes the supervisor re-queues the order after the start grace.
 */
export function planRelease(
  orderId: string,
  claim: ClaimToStart,
  now: number,
  timings: Pick<ClaimTimings, 'startGraceSeconds'>,
): ReleaseRequest {
  return {
    orderId,
    instanceId: claim.instanceId,
    attempt: claim.attempt,
    claimedAt: claim.claimedAt,
    restoredAttempt: claim.seenAttempt,
    completeBy: pendingCompleteBy(now, timings),
    at: now,
  };
}

function skip(reason: 'in-back-off' | 'finished' | 'inconsistent', detail: string): ClaimDecision {
  return { kind: 'skip', reason, detail };
}

/**
 * Input of the scheduler execution. It depends only on the claim and the start message, so a
 * redelivered message re-issuing StartExecution sends byte-identical input, which Step Functions
 * treats as the same request rather than a conflicting one.
 */
export function workflowExecutionInput(input: {
  readonly orderId: string;
  readonly instanceId: string;
  readonly attempt: number;
  readonly correlationId: string;
  readonly workflowVersion: number;
}): string {
  return JSON.stringify({
    orderId: input.orderId,
    instanceId: input.instanceId,
    attempt: input.attempt,
    correlationId: input.correlationId,
    workflowVersion: input.workflowVersion,
  });
}
