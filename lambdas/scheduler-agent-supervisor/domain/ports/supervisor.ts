/**
 * What the supervisor needs: the due records, the transitions it may apply, the start queue.
 */
import type { ProcessState, StartOrderMessage, StepName } from '../../contracts';
import type { LastError } from '../state-record';
import type { TransitionResult } from './common';

/** The fields of a record the supervisor reads from the DueIndex (what its conditions compare). */
export interface DueRecord {
  readonly orderId: string;
  readonly processState: ProcessState;
  readonly lockedBy?: string;
  readonly completeBy: number;
  readonly failureCount: number;
  readonly attempt: number;
  /** The step the expired attempt was running (it is marked TimedOut with the reset or fail). */
  readonly runningStep?: StepName;
  readonly compensationFailureCount: number;
}
/** Opaque position in a DueIndex query; only the adapter that produced it understands it. */
export type DuePageCursor = Readonly<Record<string, unknown>>;

export interface DueRecordPage {
  readonly records: readonly DueRecord[];
  readonly next?: DuePageCursor;
}

/** The supervisor's view of the store: the due index and the transitions it may apply. */
/** The two versions of a record, read alone (the DueIndex projects neither). */
export interface RecordVersions {
  readonly schemaVersion: number;
  readonly workflowVersion: number;
}

export interface SupervisionStore {
  /** The record's versions, or undefined when it is gone (records are never deleted by the app). */
  versionsOf(orderId: string): Promise<RecordVersions | undefined>;
  queryDue(shard: string, now: number, limit: number, cursor?: DuePageCursor): Promise<DueRecordPage>;
  resetExpired(
    seen: DueRecord,
    change: { readonly failureCount: number; readonly completeBy: number; readonly at: number },
  ): Promise<TransitionResult>;
  /** Also raises the OrderFailed alert (AlertOutbox) in the same write; correlationId goes with it. */
  failExpired(
    seen: DueRecord,
    change: {
      readonly failureCount: number;
      readonly lastError: LastError;
      readonly at: number;
      readonly correlationId: string;
    },
  ): Promise<TransitionResult>;
  restartPending(
    seen: DueRecord,
    change: { readonly completeBy: number; readonly at: number },
  ): Promise<TransitionResult>;
  resetExpiredCompensation(
    seen: DueRecord,
    change: { readonly compensationFailureCount: number; readonly completeBy: number; readonly at: number },
  ): Promise<TransitionResult>;
  /** Also raises the CompensationFailed alert (AlertOutbox) in the same write. */
  failExpiredCompensation(
    seen: DueRecord,
    change: {
      readonly compensationFailureCount: number;
      readonly lastError: LastError;
      readonly at: number;
      readonly correlationId: string;
    },
  ): Promise<TransitionResult>;
  restartCompensation(
    seen: DueRecord,
    change: { readonly completeBy: number; readonly at: number },
  ): Promise<TransitionResult>;
}

export interface StartQueue {
  send(message: StartOrderMessage, delaySeconds?: number): Promise<void>;
}
