/**
 * Attribute names of the state store record and its supervisor index. The names follow the seed
 * (OrderID, LockedBy, ProcessState, CompleteBy, FailureCount) so the table reads like the pattern.
 *
 * Record shape (DynamoDB):
 *   OrderID          S  partition key
 *   ProcessState     S  see ProcessState
 *   LockedBy         S  attempt-specific instance id; absent when not Processing
 *   CompleteBy       N  epoch millis. Processing: deadline of the running step (the supervisor
 *                       treats the attempt as failed after it). Pending: earliest start plus
 *                       startGraceSeconds, i.e. the time by which the starter must have claimed it
 *                       (a new order's earliest start is its submission; a retry's is the end of
 *                       its back-off, so the starter claims a retry only once CompleteBy - grace
 *                       has passed); after it the supervisor hands the order back to the starter.
 *   DueShard         S  supervisor index partition ("0".."N-1"); present only while Pending or
 *                       Processing, so the index is sparse and holds only what can expire
 *   FailureCount     N  attempts the supervisor declared failed
 *   Attempt          N  attempts claimed so far (0 before the first claim)
 *   Steps            M  { <StepName>: { Status: S, StartedAt?: S, CompletedAt?: S, Result?: M } }
 *   Plan             M  { <StepName>: N } per-step CompleteBy of the current attempt, written at claim
 *   OrderFingerprint S  hash of the immutable order data (conflict detection on resubmission)
 *   SchemaVersion    N  STATE_SCHEMA_VERSION at creation
 *   WorkflowVersion  N  the workflow version the order was submitted on (its step list and state
 *                       machine); never changes, so every retry runs on the same version
 *   CreatedAt        S  ISO-8601
 *   UpdatedAt        S  ISO-8601 time of the last transition of the order's state, lock or counters:
 *                       every transition but an attempt's step writes (markStepRunning,
 *                       markStepCompleted[HandingOver]). The sort key of StateIndex and
 *                       AdmissionIndex, so a write that changes it rewrites both entries (delete
 *                       and put: 4 write units); the step writes stamp ProgressAt instead. The
 *                       operators' version of the record (an action is conditional on it): a step
 *                       write only happens under a lock, and every lock change stamps it
 *   ProgressAt       S  ISO-8601 time of the claim or of the attempt's last step write since; in no
 *                       index. The starter's release is fenced on it (and on UpdatedAt): nothing
 *                       has written the record since the claim
 *   LastError        M  { Source: S, Error: S, Cause: S, At: S } when Error (LastErrorAttr)
 *   RunningStep      S  the step the current attempt is running (set by transition markStepRunning:
 *                       the MarkRunning state of classic versions, the agent's call reservation in
 *                       lean ones; removed by MarkCompleted); projected into the DueIndex so the supervisor can mark
 *                       exactly that step TimedOut when the attempt expires
 *   CompensationLog  M  { <StepName>: CompensationEntry } the ordered, durable compensation log
 *                       (CompensationAttr). An entry is written in the same UpdateItem that
 *                       completes its step (one item: atomic without a transaction), so a
 *                       completed step always has what is needed to undo it. Seq orders entries:
 *                       compensation runs in descending Seq. Its Status records the intent
 *                       (Compensating) before the compensating call, then the outcome.
 *   CompensationFailureCount N  compensation attempts the supervisor declared failed
 *   ClientId         S  the client application that submitted the order (its reply queue)
 *   AdmissionShard   S  the admission counter shard holding this order's in-flight slot; present
 *                       from acceptance until the slot is released, once, at a terminal state
 *                       (sparse AdmissionIndex: what still holds a slot)
 *   AdmissionClientShard S  the submitting client's own admission counter holding a slot of its
 *                       share (clientAdmissionShardKey); written and removed with AdmissionShard
 *                       (absent when the client has no share, or on an operator retry's new slot)
 *   OperatorLog      L  [ OperatorAction ] every operator action on the order: who, why, when,
 *                       what it saw and what it did (OperatorActionAttr)
 *   RetryBudget      N  (schema 3) calls a dependency may receive for one operation (a step or a
 *                       compensation) of this order, all layers and attempts included; written at
 *                       creation, so a later configuration change never alters an order in flight
 *   CallsMade        M  (schema 3) { <OperationName>: N } calls reserved so far per operation: an
 *                       agent reserves each call (conditional ADD below RetryBudget) before it
 *                       makes it, so duplicates, redeliveries and restarts are counted too
 *   AlertOutbox      M  (schema 3) { <AlertId>: M } operator alerts recorded by the same write as
 *                       the state change that raises them, removed once delivered (at least once;
 *                       consumers de-duplicate by AlertId). The claim creates it empty
 *                       when absent (entries are SET by path), so every transition that raises
 *                       an alert finds it (AlertOutboxAttr, DESIGN.md Alert outbox)
 *   AlertOutboxShard S  ALERT_OUTBOX_SHARD while AlertOutbox may hold an entry: written with each
 *                       entry, removed once the outbox is empty (sparse AlertOutboxIndex: what
 *                       may still have an alert to deliver)
 *   AlertOutboxSince S  ISO-8601 time the last entry was written (AlertOutboxIndex sort key: the
 *                       supervisor re-delivers what the stream relay left past a grace)
 */
export const StateAttr = {
  OrderId: 'OrderID',
  ProcessState: 'ProcessState',
  LockedBy: 'LockedBy',
  CompleteBy: 'CompleteBy',
  DueShard: 'DueShard',
  FailureCount: 'FailureCount',
  Attempt: 'Attempt',
  Steps: 'Steps',
  Plan: 'Plan',
  OrderFingerprint: 'OrderFingerprint',
  SchemaVersion: 'SchemaVersion',
  WorkflowVersion: 'WorkflowVersion',
  CreatedAt: 'CreatedAt',
  UpdatedAt: 'UpdatedAt',
  ProgressAt: 'ProgressAt',
  LastError: 'LastError',
  RunningStep: 'RunningStep',
  CompensationLog: 'CompensationLog',
  CompensationFailureCount: 'CompensationFailureCount',
  ClientId: 'ClientId',
  AdmissionShard: 'AdmissionShard',
  AdmissionClientShard: 'AdmissionClientShard',
  OperatorLog: 'OperatorLog',
  RetryBudget: 'RetryBudget',
  CallsMade: 'CallsMade',
  AlertOutbox: 'AlertOutbox',
  AlertOutboxShard: 'AlertOutboxShard',
  AlertOutboxSince: 'AlertOutboxSince',
} as const;

/** Attribute names inside one CompensationLog.<StepName> entry. */
export const CompensationAttr = {
  /** 1-based position of the step in the step list: compensation runs in descending Seq. */
  Seq: 'Seq',
  /** The compensation operation (StepDefinition.compensation.name). */
  Compensation: 'Compensation',
  /** Idempotency key of the effect to undo (`<orderId>:<step>`). */
  Undoes: 'Undoes',
  /** What the step's service confirmed (absent for an uncertain step added at cancel time). */
  ConfirmationId: 'ConfirmationId',
  /** Recorded | Compensating | Compensated | Failed (CompensationStatus). */
  Status: 'Status',
  /** True when the step's outcome was never learned (TimedOut) and it is undone just in case. */
  Uncertain: 'Uncertain',
  RecordedAt: 'RecordedAt',
  CompensatingAt: 'CompensatingAt',
  CompensatedAt: 'CompensatedAt',
  /** The compensating service's answer: { ConfirmationId, Undone } (Undone false: nothing to undo). */
  Result: 'Result',
} as const;

export const CompensationStatus = {
  Recorded: 'Recorded',
  Compensating: 'Compensating',
  Compensated: 'Compensated',
  Failed: 'Failed',
} as const;
export type CompensationStatus = (typeof CompensationStatus)[keyof typeof CompensationStatus];

/** Attribute names inside one OperatorLog entry. */
export const OperatorActionAttr = {
  Action: 'Action',
  /** The operator identity (IAM principal ARN on AWS; the local runtime's signer locally). */
  By: 'By',
  Reason: 'Reason',
  At: 'At',
  /** The ProcessState and UpdatedAt the operator saw (the action was conditional on them). */
  SeenState: 'SeenState',
  SeenUpdatedAt: 'SeenUpdatedAt',
  /** The ProcessState the action moved the order to. */
  NewState: 'NewState',
  /** Retry only: the FailureCount (or CompensationFailureCount) the retry reset to 0. */
  ResetFailureCount: 'ResetFailureCount',
} as const;

/** Attribute names inside one Steps.<StepName> map. */
export const StepAttr = {
  Status: 'Status',
  StartedAt: 'StartedAt',
  CompletedAt: 'CompletedAt',
  Result: 'Result',
  /** When the step was marked TimedOut, Failed, Compensating or Compensated. */
  EndedAt: 'EndedAt',
} as const;

/** Attribute names inside the LastError map (written by the scheduler and the supervisor). */
export const LastErrorAttr = {
  Source: 'Source',
  Error: 'Error',
  Cause: 'Cause',
  At: 'At',
} as const;

/** Attribute names inside one Steps.<StepName>.Result map (written by the scheduler). */
export const StepResultAttr = {
  ConfirmationId: 'ConfirmationId',
} as const;

/** Attribute names inside one CompensationLog.<StepName>.Result map (written by the scheduler). */
export const CompensationResultAttr = {
  ConfirmationId: 'ConfirmationId',
  /** False when the service had nothing to undo (it never recorded the effect). */
  Undone: 'Undone',
} as const;

/**
 * The supervisor's sparse, write-sharded index: partition DueShard, sort CompleteBy. It projects
 * only what the supervisor decides from, so step and plan updates by the scheduler do not also
 * rewrite the index.
 */
export const DUE_INDEX = {
  name: 'DueIndex',
  partitionKey: StateAttr.DueShard,
  sortKey: StateAttr.CompleteBy,
  projectedAttributes: [
    StateAttr.ProcessState,
    StateAttr.LockedBy,
    StateAttr.FailureCount,
    StateAttr.Attempt,
    StateAttr.RunningStep,
    StateAttr.CompensationFailureCount,
  ],
} as const;

/**
 * The operators' index: orders by state (partition ProcessState, sort UpdatedAt), paginated.
 * Keys only plus what a list row shows. ProcessState has few values, so each is one index
 * partition: fine for an operator's reads, and the writes it takes (one per transition) stay far
 * below a partition's 1,000 writes/s at this application's scale (docs/known-limits.md).
 */
export const STATE_INDEX = {
  name: 'StateIndex',
  partitionKey: StateAttr.ProcessState,
  sortKey: StateAttr.UpdatedAt,
  projectedAttributes: [StateAttr.FailureCount, StateAttr.Attempt, StateAttr.ClientId, StateAttr.CreatedAt],
} as const;

/**
 * The admission reconciler's sparse index: records still holding an in-flight slot, by shard
 * (partition AdmissionShard, sort UpdatedAt), projecting ProcessState so that a terminal record
 * whose release was lost is found and released (self-healing).
 */
export const ADMISSION_INDEX = {
  name: 'AdmissionIndex',
  partitionKey: StateAttr.AdmissionShard,
  sortKey: StateAttr.UpdatedAt,
  projectedAttributes: [StateAttr.ProcessState],
} as const;

/**
 * The one AlertOutboxShard value. Only records with an undelivered alert are in the index (normally
 * none: the stream relay delivers within seconds), so one partition is far from a partition's
 * limits; a shard key keeps the door open to spreading it.
 */
export const ALERT_OUTBOX_SHARD = 'outbox';

/**
 * The alert backstop's sparse index: records whose AlertOutbox may still hold an alert (partition
 * AlertOutboxShard, sort AlertOutboxSince), projecting the outbox itself so the supervisor
 * re-delivers what the stream relay could not without reading the record.
 */
export const ALERT_OUTBOX_INDEX = {
  name: 'AlertOutboxIndex',
  partitionKey: StateAttr.AlertOutboxShard,
  sortKey: StateAttr.AlertOutboxSince,
  projectedAttributes: [StateAttr.AlertOutbox],
} as const;

/** Orders table (the business database): partition key OrderID. */
export const OrderAttr = {
  OrderId: 'OrderID',
  CustomerId: 'CustomerId',
  Items: 'Items',
  TotalCents: 'TotalCents',
  Currency: 'Currency',
  Fingerprint: 'OrderFingerprint',
  CreatedAt: 'CreatedAt',
} as const;
