/**
 * Names of the fake remote services (lambdas/fakes, lib/fakes): their environment, their ledger
 * table, the SKUs that choose a scenario (docs/demo-scenarios.md) and the operation each path
 * serves. The HTTP contract they serve belongs to the wing that calls them
 * (lambdas/scheduler-agent-supervisor/contracts/remote-service.ts).
 */
import { ORDER_STEPS, type ServiceName } from '../scheduler-agent-supervisor/contracts';
/** CloudWatch namespace of the fakes' metrics, apart from the wings' own. */
export const FAKES_METRICS_NAMESPACE = 'FakeRemoteServices';

export const FakesEnvKey = {
  LedgerTableName: 'LEDGER_TABLE_NAME',
  /** How long a STALL-ONCE call is held before the connection is dropped. */
  StallMillis: 'STALL_MILLIS',
  /** How long every call of a SLOW order waits before it is answered. */
  SlowMillis: 'SLOW_MILLIS',
} as const;

/**
 * Downstream ledger table of the fake remote services. Every item sits under `<service>#<key>`
 * (call counters, one per key counting every call it received, under `calls#<service>#<key>`) and
 * says what it is in `Kind`:
 * - an effect, written once by the first successful original call for the key, later marked
 *   undone (`UndoneBy`, `UndoneAt`) by the compensation that undid it;
 * - a closed key, written by a compensation that found no effect to undo: the key can never get
 *   one (a late original call is refused);
 * - an undo, written once per compensation key: what that compensation answered (`Undoes`,
 *   `Undone`, `Result`).
 * Read it with readLedger (lambdas/fakes/adapters/ledger.ts), never by guessing from keys.
 */
export const LedgerAttr = {
  Pk: 'Pk',
  Kind: 'Kind',
  Service: 'Service',
  IdempotencyKey: 'IdempotencyKey',
  Result: 'Result',
  Calls: 'Calls',
  CreatedAt: 'CreatedAt',
  /** Effect: the order's SKUs, so a compensation plays the scenarios of the effect it undoes. */
  Skus: 'Skus',
  /** Effect: the compensation key that undid it, and when. */
  UndoneBy: 'UndoneBy',
  UndoneAt: 'UndoneAt',
  /** Closed key: the compensation key that closed it. */
  ClosedBy: 'ClosedBy',
  /** Undo: the key of the effect it undoes, and whether there was one. */
  Undoes: 'Undoes',
  Undone: 'Undone',
} as const;

/** Values of LedgerAttr.Kind. Items written before Kind existed are effects (or counters, by Pk). */
export const LedgerItemKind = {
  Effect: 'effect',
  Closed: 'closed',
  Undo: 'undo',
  Calls: 'calls',
  /** The end of an OUTAGE for one key (`outage-ended#<service>#<key>`): no effect. */
  OutageEnded: 'outage-ended',
} as const;
export type LedgerItemKind = (typeof LedgerItemKind)[keyof typeof LedgerItemKind];

export const ScenarioSku = {
  PermanentFailure: 'PERM-FAIL',
  PermanentFailureInventory: 'PERM-FAIL-INVENTORY',
  PermanentFailureShipping: 'PERM-FAIL-SHIPPING',
  PermanentFailureLoyalty: 'PERM-FAIL-LOYALTY',
  Flaky: 'FLAKY',
  StallOnce: 'STALL-ONCE',
  UndoFlaky: 'UNDO-FLAKY',
  UndoFail: 'UNDO-FAIL',
  Slow: 'SLOW',
  Outage: 'OUTAGE',
} as const;

/** Calls per key that a FLAKY service (or an UNDO-FLAKY compensation) fails before it succeeds. */
export const FLAKY_FAILURES_PER_KEY = 2;

/** The SKU that makes each service refuse its operation for good. */
export const PERMANENT_FAILURE_SKU: Readonly<Record<ServiceName, string>> = {
  inventory: ScenarioSku.PermanentFailureInventory,
  payment: ScenarioSku.PermanentFailure,
  shipping: ScenarioSku.PermanentFailureShipping,
  loyalty: ScenarioSku.PermanentFailureLoyalty,
};

/** An operation path served by the fakes: a step's operation, or its compensation. */
export type RemoteOperation =
  | { readonly kind: 'perform'; readonly service: ServiceName; readonly step: string }
  | {
      readonly kind: 'compensate';
      readonly service: ServiceName;
      readonly step: string;
      readonly compensation: string;
    };

/** The operation served at a path, or undefined for a path no service serves. */
export function operationForPath(path: string): RemoteOperation | undefined {
  for (const step of ORDER_STEPS) {
    if (step.operationPath === path) return { kind: 'perform', service: step.service, step: step.name };
    if (step.compensation.operationPath === path) {
      return {
        kind: 'compensate',
        service: step.service,
        step: step.name,
        compensation: step.compensation.name,
      };
    }
  }
  return undefined;
}
