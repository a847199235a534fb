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
 *   WorkflowVersion  N  WORKFLOW_VERSION of the attempt in progress
 *   CreatedAt, UpdatedAt S ISO-8601
 *   LastError        M  { Source: S, Error: S, Cause: S, At: S } when Error (LastErrorAttr)
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
  LastError: 'LastError',
} as const;

/** Attribute names inside one Steps.<StepName> map. */
export const StepAttr = {
  Status: 'Status',
  StartedAt: 'StartedAt',
  CompletedAt: 'CompletedAt',
  Result: 'Result',
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
  ],
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
