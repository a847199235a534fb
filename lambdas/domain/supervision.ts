import { ProcessState, type WorkflowTimings } from '../contracts';
import { isoAt } from './clock';
import { type LastError, pendingCompleteBy } from './state-record';

export type SupervisionTimings = Pick<
  WorkflowTimings,
  | 'maxFailures'
  | 'retryBackoffSeconds'
  | 'extendedBackoffAfter'
  | 'extendedBackoffSeconds'
  | 'startGraceSeconds'
>;

/** SQS caps DelaySeconds at 15 minutes; longer back-offs rely on the supervisor's restart instead. */
export const MAX_SQS_DELAY_SECONDS = 900;

/** The fields of a record the supervisor reads from the DueIndex (what its conditions compare). */
export interface DueRecord {
  readonly orderId: string;
  readonly processState: ProcessState;
  readonly lockedBy?: string;
  readonly completeBy: number;
  readonly failureCount: number;
  readonly attempt: number;
}

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
    default:
      return { kind: 'skip', reason: 'not-supervised', detail: `record is ${record.processState}` };
  }
}
