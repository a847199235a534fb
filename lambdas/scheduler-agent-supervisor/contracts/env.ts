/**
 * Environment variable names of this wing: the only channel between its CDK constructs (which set
 * them) and its handlers (which read them, with requireEnv from lambdas/shared/env.ts). No handler
 * reads an environment variable not listed here.
 */
export const EnvKey = {
  StateTableName: 'STATE_TABLE_NAME',
  OrdersTableName: 'ORDERS_TABLE_NAME',
  IdempotencyTableName: 'IDEMPOTENCY_TABLE_NAME',
  StartQueueUrl: 'START_QUEUE_URL',
  ConflictQueueUrl: 'CONFLICT_QUEUE_URL',
  AlertBusName: 'ALERT_BUS_NAME',
  /**
   * JSON of WorkflowStateMachines: `{ "<workflow version>": "<state machine ARN>" }` for every live
   * version. The starter starts the record's version's state machine; the starter, the supervisor
   * and the operator refuse a record whose version is not a key (UnsupportedRecordVersion).
   */
  WorkflowStateMachines: 'WORKFLOW_STATE_MACHINES',
  /** Submission only: the workflow version new orders get (the deployment's workflow.current). */
  CurrentWorkflowVersion: 'CURRENT_WORKFLOW_VERSION',
  /** JSON of WorkflowTimings (see config.ts), so handlers and the state machine share one truth. */
  WorkflowTimings: 'WORKFLOW_TIMINGS',
  /** Agent only: the step it serves and the remote service it calls. */
  StepName: 'STEP_NAME',
  RemoteEndpointUrl: 'REMOTE_ENDPOINT_URL',
  /** Agent only: 'iam' signs remote calls with SigV4 for a Lambda function URL; 'none' does not. */
  RemoteAuth: 'REMOTE_AUTH',
  /** Supervisor only: number of DueShard partitions and its per-run limits. */
  DueShardCount: 'DUE_SHARD_COUNT',
  /** Submission and status notifier: JSON of ClientRegistry (clients, their API key ids and reply queues). */
  ClientRegistry: 'CLIENT_REGISTRY',
  /** Admission: the counter table and JSON of AdmissionSettings ({ limit, shards }). */
  AdmissionTableName: 'ADMISSION_TABLE_NAME',
  AdmissionSettings: 'ADMISSION_SETTINGS',
  /** Operator inspect: the alert archive table. */
  AlertArchiveTableName: 'ALERT_ARCHIVE_TABLE_NAME',
  /**
   * Submission and agents: the deployment's retry budget (calls per operation, retry-budget.ts).
   * The submission writes it into new records; agents use it for schema-2 records that have none.
   */
  RetryBudget: 'RETRY_BUDGET',
} as const;
export type EnvKey = (typeof EnvKey)[keyof typeof EnvKey];

/**
 * POWERTOOLS_SERVICE_NAME of the pattern roles that tools find in a synthesized assembly (the chaos
 * campaign hooks the supervisor's and the starter's clocks, and plants a broken alert relay in the
 * status notifier): named once, here.
 */
export const RoleServiceName = {
  Supervisor: 'supervisor',
  Starter: 'start-order',
  /** The functions whose metrics the alarms read (the metrics' `service` dimension). */
  Submission: 'submit-order',
  StatusNotifier: 'status-notifier',
  AdmissionReconciler: 'admission-reconciler',
} as const;
