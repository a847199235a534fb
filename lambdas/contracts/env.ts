/**
 * Environment variable names: the only channel between the CDK constructs (which set them) and the
 * handlers (which read them). No handler reads an environment variable not listed here.
 */
export const EnvKey = {
  StateTableName: 'STATE_TABLE_NAME',
  OrdersTableName: 'ORDERS_TABLE_NAME',
  IdempotencyTableName: 'IDEMPOTENCY_TABLE_NAME',
  LedgerTableName: 'LEDGER_TABLE_NAME',
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
  /** Remote service only: how long a STALL-ONCE call is held before the connection is dropped. */
  StallMillis: 'STALL_MILLIS',
  /** Powertools standard variables, set by the function construct. */
  PowertoolsServiceName: 'POWERTOOLS_SERVICE_NAME',
  PowertoolsMetricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
} as const;
export type EnvKey = (typeof EnvKey)[keyof typeof EnvKey];

/** Reads a required environment variable, failing with the variable's name when it is missing. */
export function requireEnv(key: EnvKey, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[key];
  if (value === undefined || value === '') {
    throw new Error(`Missing required environment variable ${key}`);
  }
  return value;
}
