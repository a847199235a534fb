/**
 * Names of the fake remote services (lambdas/fakes, lib/fakes): their environment and their ledger
 * table. The HTTP contract they serve belongs to the wing that calls them
 * (lambdas/scheduler-agent-supervisor/contracts/remote-service.ts).
 */
/** CloudWatch namespace of the fakes' metrics, apart from the wings' own. */
export const FAKES_METRICS_NAMESPACE = 'FakeRemoteServices';

export const FakesEnvKey = {
  LedgerTableName: 'LEDGER_TABLE_NAME',
  /** How long a STALL-ONCE call is held before the connection is dropped. */
  StallMillis: 'STALL_MILLIS',
} as const;

/** Downstream ledger table of the fake remote services: one item per effect. */
export const LedgerAttr = {
  /** Partition key: `<service>#<Idempotency-Key>` for effects, `calls#<service>#<key>` for call counters. */
  Pk: 'Pk',
  Service: 'Service',
  IdempotencyKey: 'IdempotencyKey',
  Result: 'Result',
  Calls: 'Calls',
  CreatedAt: 'CreatedAt',
} as const;
