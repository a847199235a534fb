/**
 * The supervisor's rules, pure: what to do with a due record (reset it for another attempt after
 * its back-off, fail it at the threshold, re-queue a start nobody made, unlock or fail an expired
 * compensation), decided from the record and the timings alone. The sweep (supervisor.ts) applies
 * the decisions with fenced, conditional writes.
 */
import { isoAt } from '../../shared/clock';
import { ProcessState, type WorkflowTimings } from '../contracts';
import type { DueRecord } from './ports';
import { type LastError, pendingCompleteBy } from './state-record';

export type SupervisionTimings = Pick<
  WorkflowTimings,
  | 'maxFailures'
  | 'maxCompensationFailures'
  | 'retryBackoffSeconds'
  | 'extendedBackoffAfter'
  | 'extendedBackoffSeconds'
  | 'startGraceSeconds'
>;

/** SQS caps DelaySeconds at 15 minutes; longer back-offs rely on the supervisor's restart instead. */
export const MAX_SQS_DELAY_SECONDS = 900;

export type SupervisionDecision =
  | {
      /** The attempt expired and retries remain: back to Pending after a back-off. */
      readonly kind: 'reset';
      readonly failureCount: number;
      readonly backoffSeconds: number;
      readonly completeBy: number;
      readonly startDelaySeconds: number;
    }
  | {
      /** The attempt expired and it was the last one allowed: Error, and an operator alert. */
      readonly kind: 'fail';
      readonly failureCount: number;
      readonly lastError: LastError;
    }
  | {
      /** Pending and nobody claimed it in time (lost start message, starter down): ask again. */
      readonly kind: 'restart';
      readonly completeBy: number;
    }
  | {
      /**
       * A compensation attempt expired and compensation attempts remain: unlocked (still
       * CompensationInProgress) for the starter, after a back-off.
       */
      readonly kind: 'reset-compensation';
      readonly compensationFailureCount: number;
      readonly backoffSeconds: number;
      readonly completeBy: number;
      readonly startDelaySeconds: number;
    }
  | {
      /** A compensation attempt expired and it was the last one allowed: CompensationFailed, and an alert. */
      readonly kind: 'fail-compensation';
      readonly compensationFailureCount: number;
      readonly lastError: LastError;
    }
  | {
      /** CompensationInProgress, unlocked, and nobody claimed it in time: ask again. */
      readonly kind: 'restart-compensation';
      readonly completeBy: number;
    }
  | {
      readonly kind: 'skip';
      readonly reason: 'not-due' | 'inconsistent' | 'not-supervised';
      readonly detail: string;
    };

/**
 * Back-off before the retry that follows the failureCount-th failure: the short one at first, the
 * extended one once failureCount reaches extendedBackoffAfter, so a downstream that keeps failing
 * is not hammered at the short cadence.
 */
export function backoffSecondsFor(failureCount: number, timings: SupervisionTimings): number {
  return failureCount >= timings.extendedBackoffAfter
    ? timings.extendedBackoffSeconds
    : timings.retryBackoffSeconds;
}

export function decideSupervision(
  record: DueRecord,
  now: number,
  timings: SupervisionTimings,
): SupervisionDecision {
  if (record.completeBy > now) {
    // The index is eventually consistent and the record may have moved on since the query.
    return { kind: 'skip', reason: 'not-due', detail: `CompleteBy is ${record.completeBy - now} ms ahead` };
  }
  switch (record.processState) {
    case ProcessState.Processing: {
      if (record.lockedBy === undefined) {
        return { kind: 'skip', reason: 'inconsistent', detail: 'Processing record has no LockedBy' };
      }
      const failureCount = record.failureCount + 1;
      if (failureCount >= timings.maxFailures) {
        return {
          kind: 'fail',
          failureCount,
          lastError: {
            source: 'supervisor',
            error: 'FailureThresholdReached',
            cause:
              `attempt ${record.attempt} (${record.lockedBy}) passed its CompleteBy ${isoAt(record.completeBy)}; ` +
              `${failureCount} failed attempts reached maxFailures ${timings.maxFailures}`,
            at: isoAt(now),
          },
        };
      }
      const backoffSeconds = backoffSecondsFor(failureCount, timings);
      return {
        kind: 'reset',
        failureCount,
        backoffSeconds,
        completeBy: pendingCompleteBy(now + backoffSeconds * 1000, timings),
        startDelaySeconds: Math.min(backoffSeconds, MAX_SQS_DELAY_SECONDS),
      };
    }
    case ProcessState.Pending:
      if (record.lockedBy !== undefined) {
        return {
          kind: 'skip',
          reason: 'inconsistent',
          detail: `Pending record is locked by '${record.lockedBy}'`,
        };
      }
      return { kind: 'restart', completeBy: pendingCompleteBy(now, timings) };
    case ProcessState.CompensationInProgress: {
      if (record.lockedBy === undefined) {
        return { kind: 'restart-compensation', completeBy: pendingCompleteBy(now, timings) };
      }
      const compensationFailureCount = record.compensationFailureCount + 1;
      if (compensationFailureCount >= timings.maxCompensationFailures) {
        return {
          kind: 'fail-compensation',
          compensationFailureCount,
          lastError: {
            source: 'supervisor',
            error: 'CompensationThresholdReached',
            cause:
              `compensation attempt ${record.attempt} (${record.lockedBy}) passed its CompleteBy ${isoAt(record.completeBy)}; ` +
              `${compensationFailureCount} failed compensation attempts reached maxCompensationFailures ${timings.maxCompensationFailures}`,
            at: isoAt(now),
          },
        };
      }
      // The same back-off as for steps: the compensating service is as likely to be having a bad time.
      const backoffSeconds = backoffSecondsFor(compensationFailureCount, timings);
      return {
        kind: 'reset-compensation',
        compensationFailureCount,
        backoffSeconds,
        completeBy: pendingCompleteBy(now + backoffSeconds * 1000, timings),
        startDelaySeconds: Math.min(backoffSeconds, MAX_SQS_DELAY_SECONDS),
      };
    }
    default:
      return { kind: 'skip', reason: 'not-supervised', detail: `record is ${record.processState}` };
  }
}
