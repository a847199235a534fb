/**
 * Ports: what the order use cases need from the outside world. Adapters in ../adapters
 * implement them with the AWS SDK; the use cases and their decisions never see an SDK type.
 */
import type {
  AlertType,
  ClientStatusMessage,
  CompensationFailedDetail,
  OperationName,
  OperatorAction,
  OperatorAlertView,
  OperatorOrderDetailBody,
  OperatorStepRunView,
  OrderFailedDetail,
  ProcessState,
  StartOrderMessage,
  StepName,
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

export interface OrdersReader {
  get(orderId: string): Promise<StoredOrder | undefined>;
}

export interface StateRecordReader {
  get(orderId: string): Promise<StateRecord | undefined>;
}

export interface StateRecordCreator {
  createIfAbsent(record: StateRecord): Promise<CreateIfAbsentResult<StateRecord>>;
}

export interface ClaimRequest {
  /** Which record is claimed: a Pending one (steps), or an unlocked CompensationInProgress one. */
  readonly kind: 'steps' | 'compensation';
  readonly orderId: string;
  readonly seenAttempt: number;
  readonly attempt: number;
  readonly instanceId: string;
  /** The claim only succeeds while CompleteBy <= this (the back-off has ended) or Attempt = 0. */
  readonly claimableUntilCompleteBy: number;
  readonly plan: Readonly<Partial<Record<OperationName, number>>>;
  readonly completeBy: number;
  readonly at: number;
}

/** Undoes a claim whose execution could not be started (see planRelease in claim.ts). */
export interface ReleaseRequest {
  /** The kind of the claim being undone (see ClaimRequest.kind). */
  readonly kind: 'steps' | 'compensation';
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

// ---------------------------------------------------------------------------------------------
// Alert outbox (DESIGN.md, Alert outbox; the delivery itself is domain/alert-outbox.ts)
// ---------------------------------------------------------------------------------------------

/** One alert of an outbox, ready to publish. */
export type OutboxAlert =
  | { readonly type: typeof AlertType.OrderFailed; readonly detail: OrderFailedDetail }
  | { readonly type: typeof AlertType.CompensationFailed; readonly detail: CompensationFailedDetail };

/** A record's outbox as stored: AlertId -> entry (plain values, as the document client reads them). */
export type StoredOutbox = Readonly<Record<string, unknown>>;

/** Publishes one alert on the alert bus; throws when the bus did not take it (a partial failure too). */
export interface OutboxAlertPublisher {
  publishAlert(alert: OutboxAlert): Promise<void>;
}

/** Removes delivered entries. */
export interface AlertOutboxStore {
  /**
   * Removes `AlertOutbox.<alertId>` only while it is still the entry that was delivered (same At),
   * and then the record's AlertOutboxIndex keys if the outbox is empty. 'gone' when the entry was
   * already removed (another deliverer was first).
   */
  remove(orderId: string, alertId: string, at: string): Promise<'removed' | 'gone'>;
  /** Takes the record out of the AlertOutboxIndex if its outbox is empty (else nothing). */
  clearIndexIfEmpty(orderId: string): Promise<void>;
}

/** A record of the AlertOutboxIndex: an order whose outbox may still hold alerts. */
export interface PendingOutbox {
  readonly orderId: string;
  readonly outbox: StoredOutbox;
  /** AlertOutboxSince: when its last entry was written (ISO-8601). */
  readonly since: string;
}

/** Opaque position in an AlertOutboxIndex query. */
export type PendingOutboxCursor = Readonly<Record<string, unknown>>;

export interface PendingOutboxIndex {
  /** Records whose last outbox entry was written before `writtenBefore` (ISO-8601), oldest first. */
  queryPending(
    writtenBefore: string,
    limit: number,
    cursor?: PendingOutboxCursor,
  ): Promise<{ readonly records: readonly PendingOutbox[]; readonly next?: PendingOutboxCursor }>;
}

export interface WorkflowExecution {
  /** Execution name: the attempt's instance id. */
  readonly name: string;
  readonly input: string;
  /** The record's workflow version: its state machine runs the execution. */
  readonly workflowVersion: number;
}

export interface WorkflowStarter {
  /** 'already-started' when an execution of that name exists: starting is idempotent on the name. */
  start(execution: WorkflowExecution): Promise<'started' | 'already-started'>;
}

/** A client's reply queue (FIFO): one message group per order, de-duplicated on the message key. */
export interface ClientReplySender {
  send(queueUrl: string, message: ClientStatusMessage): Promise<void>;
}

/** One counter a submission may take a slot from: its key (`shard#<n>`) and its cap. */
export interface AdmissionSlot {
  readonly key: string;
  readonly cap: number;
}

/** The drain statistics as stored (DrainAttr). */
export interface DrainObservation {
  /** EWMA of the interval between releases; absent until two releases have been seen. */
  readonly intervalMillisEwma?: number;
  readonly lastReleaseAt: number;
  /** Optimistic-concurrency version of the item. */
  readonly version: number;
}

/**
 * One try at accepting an order on one admission counter: the order (unless already stored), its
 * state record (carrying the slot's key as AdmissionShard) and the slot, all or nothing.
 */
export interface AcceptanceRequest {
  readonly order: StoredOrder;
  readonly record: StateRecord;
  readonly slot: AdmissionSlot;
  /**
   * The identical order is already in the orders table (a state record lost before acceptance was
   * one transaction): the try then checks it instead of creating it.
   */
  readonly orderAlreadyStored: boolean;
}

/**
 * How a try ended: accepted (all three written), or why nothing was: the order or its state record
 * exists (a resubmission: the caller compares fingerprints), or this counter is at its cap.
 */
export type AcceptanceResult = 'accepted' | 'order-exists' | 'record-exists' | 'shard-full';

export interface OrderAcceptance {
  accept(request: AcceptanceRequest): Promise<AcceptanceResult>;
}

/** The observed drain (DRAIN_ITEM_KEY): what a refused submission's Retry-After is derived from. */
export interface DrainReader {
  read(): Promise<DrainObservation | undefined>;
}

export interface DrainRecorder extends DrainReader {
  /** Writes `next` only while the stored version is still `seenVersion` (undefined: no item yet). */
  write(next: DrainObservation, seenVersion: number | undefined): Promise<TransitionResult>;
}

/** A record holding a slot, as the stream or the AdmissionIndex shows it. */
export interface HeldSlot {
  readonly orderId: string;
  /** The counter key (AdmissionShard). */
  readonly shardKey: string;
  readonly processState: ProcessState;
}

export interface SlotReleaser {
  /**
   * Releases the slot once: removes AdmissionShard (only while it is still `shardKey` and the
   * record is terminal) and gives the slot back to its counter, in one transaction. 'not-held'
   * when the condition failed: already released, or the record is no longer terminal.
   */
  release(slot: HeldSlot, at: number): Promise<'released' | 'not-held'>;
}

/** Opaque position in an AdmissionIndex query. */
export type HeldSlotCursor = Readonly<Record<string, unknown>>;

export interface HeldSlotIndex {
  /** Terminal records of one shard still holding a slot, last updated before `updatedBefore` (ISO). */
  queryTerminalHeld(
    shardKey: string,
    updatedBefore: string,
    limit: number,
    cursor?: HeldSlotCursor,
  ): Promise<{ readonly slots: readonly HeldSlot[]; readonly next?: HeldSlotCursor }>;
}

// ---------------------------------------------------------------------------------------------
// Operator actions (DESIGN.md, Operator actions)
// ---------------------------------------------------------------------------------------------

/** The operator transitions of STATE_TRANSITIONS. */
export type OperatorTransitionName = 'operatorRetry' | 'operatorRetryCompensation' | 'operatorCancel';

/** The record's part of inspect: everything but the attempts and the alerts (other sources). */
export type OperatorRecordView = Omit<OperatorOrderDetailBody, 'attempts' | 'alerts'>;

/** What an operator action decides from: the record's state, its version (UpdatedAt) and counters. */
export interface OperatorRecordSummary {
  readonly orderId: string;
  readonly processState: ProcessState;
  readonly updatedAt: string;
  readonly lockedBy?: string;
  readonly failureCount: number;
  readonly compensationFailureCount: number;
  readonly schemaVersion: number;
  readonly workflowVersion: number;
  /**
   * The admission counter the record still holds a slot of (AdmissionShard): present while the
   * order is in flight, and after it reached a terminal state until its release has run.
   */
  readonly admissionShard?: string;
}

/** One OperatorLog entry, as the action writes it. */
export interface OperatorLogEntry {
  readonly action: OperatorAction;
  readonly by: string;
  readonly reason: string;
  readonly at: string;
  readonly seenState: ProcessState;
  readonly seenUpdatedAt: string;
  readonly newState: ProcessState;
  /** Retry only: the FailureCount (or CompensationFailureCount) the retry reset to 0. */
  readonly resetFailureCount?: number;
}

/** An operator transition to apply, conditional on what the operator saw. */
export interface OperatorActionWrite {
  readonly orderId: string;
  readonly transition: OperatorTransitionName;
  readonly seenState: ProcessState;
  readonly seenUpdatedAt: string;
  /** The claim window: pendingCompleteBy(now). */
  readonly completeBy: number;
  readonly dueShard: string;
  readonly entry: OperatorLogEntry;
  readonly at: number;
  /**
   * A retry of a record that still holds its admission slot (its release has not run yet): the
   * slot's counter key. The retry keeps that slot instead of taking one, so the write is also
   * conditional on the record still holding it (a release in between makes it 'lost').
   */
  readonly keepsSlot?: string;
}

/** How a retry that takes an admission slot ended: 'shard-full' when that counter is at its cap. */
export type SlotTakingResult = TransitionResult | 'shard-full';

export interface OperatorActionStore {
  summary(orderId: string): Promise<OperatorRecordSummary | undefined>;
  /** 'lost' when the record is no longer exactly what the operator saw (or is locked). */
  apply(write: OperatorActionWrite): Promise<TransitionResult>;
  /**
   * A retry is new work: the action's update, the record taking `slot` (AdmissionShard, only while
   * it holds none) and the counter taking a slot (below its cap), all in one transaction. 'lost'
   * when the record is not what the operator saw (outranks a full counter), 'shard-full' when only
   * the counter refused.
   */
  applyTakingSlot(write: OperatorActionWrite, slot: AdmissionSlot): Promise<SlotTakingResult>;
}

/** The record as inspect shows it (see OperatorRecordView). */
export interface OperatorRecordReader {
  view(orderId: string): Promise<OperatorRecordView | undefined>;
}

/** What Step Functions says of one execution (an attempt of an order). */
export interface ExecutionSummary {
  readonly status: string;
  readonly startDate?: string;
  readonly stopDate?: string;
}

export interface ExecutionHistory {
  /**
   * undefined when no execution of that name exists on the state machine of that workflow version
   * (never started, gone from the history, or the version is not deployed here).
   */
  describe(executionName: string, workflowVersion: number): Promise<ExecutionSummary | undefined>;
  /**
   * The agent calls of one execution, from its event history, reading at most `maxPages` pages of
   * `pageSize` events; `complete` is false when the history had more. undefined as for describe.
   */
  stepRuns(
    executionName: string,
    workflowVersion: number,
    bounds: { readonly pageSize: number; readonly maxPages: number },
  ): Promise<ExecutionStepRuns | undefined>;
}

/** The agent calls read from one execution's history. */
export interface ExecutionStepRuns {
  readonly runs: readonly OperatorStepRunView[];
  /** Whether the whole history was read (false: the runs are its first ones). */
  readonly complete: boolean;
}

/** One operator alert, as the archive keeps it. */
export interface ArchivedAlert {
  readonly orderId: string;
  readonly type: AlertType;
  /** The event's time (ISO-8601). */
  readonly at: string;
  readonly eventId: string;
  /** The alert's identity when it has one (outbox alerts): the archive keeps one item per AlertId. */
  readonly alertId?: string;
  readonly detail: Readonly<Record<string, unknown>>;
}

export interface AlertArchive {
  /** 'duplicate' when an alert of that AlertId is archived already (a redelivery). */
  archive(alert: ArchivedAlert): Promise<'archived' | 'duplicate'>;
  /** The order's alerts, oldest first. */
  alertsOf(orderId: string): Promise<OperatorAlertView[]>;
}

// ---------------------------------------------------------------------------------------------
// Gauges (DESIGN.md, Alarms and the metric contract)
// ---------------------------------------------------------------------------------------------

/** A bounded count: `capped` when the reading stopped at its cap and more may exist. */
export interface BoundedCount {
  readonly count: number;
  readonly capped: boolean;
}

/** Bounded readings of the operators' StateIndex (ProcessState, UpdatedAt) for the gauges. */
export interface OrderGaugeReader {
  /** Records in `state` (last updated before `updatedBefore`, ISO, when given), counted up to `cap`. */
  countInState(
    state: ProcessState,
    options: { readonly updatedBefore?: string; readonly cap: number },
  ): Promise<BoundedCount>;
  /** The earliest CreatedAt (ISO) of the records in `states`, reading at most `cap` of them. */
  earliestCreatedAt(
    states: readonly ProcessState[],
    cap: number,
  ): Promise<{ readonly createdAt?: string; readonly capped: boolean }>;
}

/** The admission counters' sum (slots held: orders in flight). */
export interface InFlightReader {
  slotsHeld(shardKeys: readonly string[]): Promise<number>;
}
