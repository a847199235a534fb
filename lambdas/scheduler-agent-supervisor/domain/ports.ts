/**
 * Ports: what the order use cases need from the outside world. Adapters in ../adapters
 * implement them with the AWS SDK; the use cases and their decisions never see an SDK type.
 */
import type {
  ClientStatusMessage,
  OrderFailedDetail,
  ProcessState,
  StartOrderMessage,
  StepName,
  SubmissionConflictDetail,
} from '../contracts';
import type { StoredOrder } from './order';
import type { LastError, StateRecord } from './state-record';

/** Structured log sink (Powertools Logger satisfies it). */
export interface EventLog {
  debug(message: string, ...attributes: Record<string, unknown>[]): void;
  info(message: string, ...attributes: Record<string, unknown>[]): void;
  warn(message: string, ...attributes: Record<string, unknown>[]): void;
  error(message: string, ...attributes: Record<string, unknown>[]): void;
}

/** Result of a create-when-missing write: either it was created, or here is what is already there. */
export type CreateIfAbsentResult<T> =
  | { readonly created: true }
  | { readonly created: false; readonly existing: T };

/** Result of a conditional transition: 'lost' means the record moved on (another writer won). */
export type TransitionResult = 'applied' | 'lost';

export interface OrdersRepository {
  createIfAbsent(order: StoredOrder): Promise<CreateIfAbsentResult<StoredOrder>>;
}

export interface StateRecordReader {
  get(orderId: string): Promise<StateRecord | undefined>;
}

export interface StateRecordCreator {
  createIfAbsent(record: StateRecord): Promise<CreateIfAbsentResult<StateRecord>>;
}

export interface ClaimRequest {
  readonly orderId: string;
  readonly seenAttempt: number;
  readonly attempt: number;
  readonly instanceId: string;
  /** The claim only succeeds while CompleteBy <= this (the back-off has ended) or Attempt = 0. */
  readonly claimableUntilCompleteBy: number;
  readonly workflowVersion: number;
  readonly plan: Readonly<Record<StepName, number>>;
  readonly completeBy: number;
  readonly at: number;
}

/** Undoes a claim whose execution could not be started (see planRelease in claim.ts). */
export interface ReleaseRequest {
  readonly orderId: string;
  /** The claim being undone: the release only applies while the record still holds it. */
  readonly instanceId: string;
  readonly attempt: number;
  /** When the claim was written (its UpdatedAt): any later write means someone else moved the record on. */
  readonly claimedAt: number;
  /** Attempt after the release: the one before the claim, so the next claim reuses this attempt. */
  readonly restoredAttempt: number;
  readonly completeBy: number;
  readonly at: number;
}

export interface ClaimStore {
  claim(request: ClaimRequest): Promise<TransitionResult>;
  release(request: ReleaseRequest): Promise<TransitionResult>;
}

/** The fields of a record the supervisor reads from the DueIndex (what its conditions compare). */
export interface DueRecord {
  readonly orderId: string;
  readonly processState: ProcessState;
  readonly lockedBy?: string;
  readonly completeBy: number;
  readonly failureCount: number;
  readonly attempt: number;
}
/** Opaque position in a DueIndex query; only the adapter that produced it understands it. */
export type DuePageCursor = Readonly<Record<string, unknown>>;

export interface DueRecordPage {
  readonly records: readonly DueRecord[];
  readonly next?: DuePageCursor;
}

/** The supervisor's view of the store: the due index and the transitions it may apply. */
export interface SupervisionStore {
  queryDue(shard: string, now: number, limit: number, cursor?: DuePageCursor): Promise<DueRecordPage>;
  resetExpired(
    seen: DueRecord,
    change: { readonly failureCount: number; readonly completeBy: number; readonly at: number },
  ): Promise<TransitionResult>;
  failExpired(
    seen: DueRecord,
    change: { readonly failureCount: number; readonly lastError: LastError; readonly at: number },
  ): Promise<TransitionResult>;
  restartPending(
    seen: DueRecord,
    change: { readonly completeBy: number; readonly at: number },
  ): Promise<TransitionResult>;
}

export interface StartQueue {
  send(message: StartOrderMessage, delaySeconds?: number): Promise<void>;
}

/** A conflicting resubmission, kept on the conflict dead-letter queue for an operator. */
export interface SubmissionConflictReport {
  readonly orderId: string;
  readonly correlationId: string;
  readonly receivedAt: string;
  readonly storedFingerprint: string;
  readonly submittedFingerprint: string;
  /** The request body exactly as received (decoded), so it can be inspected or resubmitted. */
  readonly rawBody: string;
}

export interface ConflictQueue {
  send(report: SubmissionConflictReport): Promise<void>;
}

export interface AlertPublisher {
  orderFailed(detail: OrderFailedDetail): Promise<void>;
  submissionConflict(detail: SubmissionConflictDetail): Promise<void>;
}

export interface WorkflowExecution {
  /** Execution name: the attempt's instance id. */
  readonly name: string;
  readonly input: string;
}

export interface WorkflowStarter {
  /** 'already-started' when an execution of that name exists: starting is idempotent on the name. */
  start(execution: WorkflowExecution): Promise<'started' | 'already-started'>;
}

/** A client's reply queue (FIFO): one message group per order, de-duplicated on the message key. */
export interface ClientReplySender {
  send(queueUrl: string, message: ClientStatusMessage): Promise<void>;
}
