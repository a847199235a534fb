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
  StateMachineArn: 'STATE_MACHINE_ARN',
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
  StatusNotifier: 'status-notifier',
} as const;
