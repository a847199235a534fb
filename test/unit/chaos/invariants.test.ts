import { ORDER_STEPS, ProcessState } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { FAULT_KINDS, FaultKind } from '../../../lib/chaos/core/faults';
import {
  type CampaignSnapshot,
  type CheckResult,
  checkCampaign,
  type InvariantId,
  type LedgerEffect,
  parseIdempotencyKey,
  type RecordSnapshot,
} from '../../../lib/chaos/core/invariants';
import { PINNED_TIMINGS } from './pinned-timings';

const timings = PINNED_TIMINGS;

const completed = Object.fromEntries(ORDER_STEPS.map((step) => [step.name, 'Completed']));

function processed(orderId: string): RecordSnapshot {
  return { orderId, processState: ProcessState.Processed, failureCount: 0, attempt: 1, steps: completed };
}

function effectsFor(orderId: string): LedgerEffect[] {
  return ORDER_STEPS.map((step) => ({ service: step.service, idempotencyKey: `${orderId}:${step.name}` }));
}

/** A healthy run: two Processed orders, one Error order with its alert, every kind fired. */
function healthy(): CampaignSnapshot {
  return {
    timings,
    terminalBoundMillis: 100_000,
    orders: [
      { orderId: 'a', acceptedAt: 1_000, terminalAt: 20_000, mustFail: false },
      { orderId: 'b', acceptedAt: 2_000, terminalAt: 30_000, mustFail: false },
      { orderId: 'c', acceptedAt: 3_000, terminalAt: 40_000, mustFail: true },
    ],
    finalRecords: [
      processed('a'),
      processed('b'),
      { orderId: 'c', processState: ProcessState.Error, failureCount: 0, attempt: 1, steps: {} },
    ],
    samples: [
      {
        orderId: 'a',
        processState: ProcessState.Processing,
        lockedBy: 'a--attempt-1',
        failureCount: 0,
        attempt: 1,
        steps: {},
        at: 5_000,
      },
    ],
    ledger: [...effectsFor('a'), ...effectsFor('b')],
    alerts: [{ detailType: 'OrderFailed', orderId: 'c', reason: 'AgentPermanentFailure' }],
    faults: FAULT_KINDS.map((kind) => ({ kind, at: 10_000, orderIds: ['a'] })),
    enabledKinds: FAULT_KINDS,
    restarts: [],
    minProcessedShare: 0.5,
  };
}

function violated(result: CheckResult): string[] {
  return [...result.invariants, ...result.guards]
    .filter((entry) => entry.violations.length > 0)
    .map((entry) => entry.id);
}

function only(result: CheckResult, id: string): readonly string[] {
  expect(violated(result)).toEqual([id]);
  return [...result.invariants, ...result.guards].find((entry) => entry.id === id)?.violations ?? [];
}

describe('checkCampaign', () => {
  it('passes a healthy run', () => {
    const result = checkCampaign(healthy());
    expect(violated(result)).toEqual([]);
    expect(result.passed).toBe(true);
  });

  it('reports an accepted order that never became terminal', () => {
    const snapshot = healthy();
    const result = checkCampaign({
      ...snapshot,
      minProcessedShare: 0.3,
      orders: snapshot.orders.map((order) =>
        order.orderId === 'b' ? { orderId: 'b', acceptedAt: 2_000, mustFail: false } : order,
      ),
      finalRecords: snapshot.finalRecords.map((record) =>
        record.orderId === 'b' ? { ...record, processState: ProcessState.Pending, failureCount: 1 } : record,
      ),
      ledger: effectsFor('a'),
    });
    expect(only(result, 'terminal-within-bound')).toEqual(['b: still Pending (attempt 1, FailureCount 1)']);
    expect(result.passed).toBe(false);
  });

  it('reports an order that became terminal after the bound', () => {
    const snapshot = healthy();
    const result = checkCampaign({ ...snapshot, terminalBoundMillis: 25_000 });
    expect(only(result, 'terminal-within-bound')).toEqual([
      'b: Processed after 28000 ms, bound 25000 ms',
      'c: Error after 37000 ms, bound 25000 ms',
    ]);
  });

  it('extends the bound by the runtime downtime the order lived through', () => {
    const snapshot = healthy();
    const result = checkCampaign({
      ...snapshot,
      terminalBoundMillis: 25_000,
      orders: snapshot.orders.filter((order) => order.orderId !== 'c'),
      finalRecords: snapshot.finalRecords.filter((record) => record.orderId !== 'c'),
      alerts: [],
      restarts: [{ lastDrainAt: 10_000, stoppedAt: 11_000, readyAt: 14_000 }],
    });
    expect(violated(result)).toEqual([]);
  });

  it('reports two effects for one order and step (a key that changes per attempt)', () => {
    const snapshot = healthy();
    const result = checkCampaign({
      ...snapshot,
      ledger: [...snapshot.ledger, { service: 'payment', idempotencyKey: 'a:ChargePayment:1f2e3d' }],
    });
    const violations = result.invariants.find((entry) => entry.id === 'one-effect-per-key')?.violations;
    expect(violations).toEqual(['a:ChargePayment: 2 effects (keys a:ChargePayment, a:ChargePayment:1f2e3d)']);
    expect(violated(result)).toEqual(['one-effect-per-key', 'processed-one-effect-per-step']);
  });

  it('reports the same ledger key recorded twice', () => {
    const snapshot = healthy();
    const result = checkCampaign({
      ...snapshot,
      ledger: [
        ...snapshot.ledger,
        { service: 'inventory', idempotencyKey: 'c:ReserveInventory' },
        { service: 'inventory', idempotencyKey: 'c:ReserveInventory' },
      ],
    });
    expect(only(result, 'one-effect-per-key')).toEqual([
      'inventory c:ReserveInventory: 2 effects under one ledger key',
      'c:ReserveInventory: 2 effects (keys c:ReserveInventory)',
    ]);
  });

  it('reports an effect whose key names no order and step', () => {
    const snapshot = healthy();
    const result = checkCampaign({
      ...snapshot,
      ledger: [...snapshot.ledger, { service: 'payment', idempotencyKey: 'token-abc' }],
    });
    expect(only(result, 'one-effect-per-key')).toEqual([
      'payment token-abc: effect under a key that names no order and step',
    ]);
  });

  it('reports a Processed order missing the effect of a step', () => {
    const snapshot = healthy();
    const result = checkCampaign({
      ...snapshot,
      ledger: snapshot.ledger.filter((effect) => effect.idempotencyKey !== 'b:ScheduleShipping'),
    });
    expect(only(result, 'processed-one-effect-per-step')).toEqual([
      'b: Processed with 0 shipping effects for ScheduleShipping',
    ]);
  });

  it('reports an Error order without an alert, and one with two', () => {
    const snapshot = healthy();
    expect(only(checkCampaign({ ...snapshot, alerts: [] }), 'error-exactly-one-alert')).toEqual([
      'c: Error with 0 OrderFailed alerts',
    ]);
    expect(
      only(
        checkCampaign({ ...snapshot, alerts: [...snapshot.alerts, ...snapshot.alerts] }),
        'error-exactly-one-alert',
      ),
    ).toEqual(['c: Error with 2 OrderFailed alerts']);
  });

  it('reports an OrderFailed alert for an order that is not in Error', () => {
    const snapshot = healthy();
    const result = checkCampaign({
      ...snapshot,
      alerts: [...snapshot.alerts, { detailType: 'OrderFailed', orderId: 'a' }],
    });
    expect(only(result, 'error-exactly-one-alert')).toEqual(['a: 1 OrderFailed alerts but not in Error']);
  });

  it('does not count an alert lost with the in-memory inbox at a restart, but lists it', () => {
    const snapshot = healthy();
    const result = checkCampaign({
      ...snapshot,
      terminalBoundMillis: 1_000_000,
      alerts: [],
      restarts: [{ lastDrainAt: 39_500, stoppedAt: 40_100, readyAt: 42_000 }],
    });
    expect(violated(result)).toEqual([]);
    expect(result.alertsLostAtRestart).toEqual(['c']);
  });

  it('reports LockedBy on a record that is not Processing, in a sample or at the end', () => {
    const snapshot = healthy();
    const fromSample = checkCampaign({
      ...snapshot,
      samples: [
        ...snapshot.samples,
        {
          orderId: 'b',
          processState: ProcessState.Pending,
          lockedBy: 'b--attempt-1',
          failureCount: 1,
          attempt: 1,
          steps: {},
          at: 9_000,
        },
      ],
    });
    expect(only(fromSample, 'lock-only-while-processing')).toEqual(['b: Pending but LockedBy b--attempt-1']);
    const atEnd = checkCampaign({
      ...snapshot,
      finalRecords: snapshot.finalRecords.map((record) =>
        record.orderId === 'a' ? { ...record, lockedBy: 'a--attempt-1' } : record,
      ),
    });
    expect(only(atEnd, 'lock-only-while-processing')).toEqual(['a: Processed but LockedBy a--attempt-1']);
  });

  it('reports a FailureCount above maxFailures, even if only seen while the run went on', () => {
    const snapshot = healthy();
    const result = checkCampaign({
      ...snapshot,
      samples: [
        ...snapshot.samples,
        {
          orderId: 'c',
          processState: ProcessState.Pending,
          failureCount: 4,
          attempt: 4,
          steps: {},
          at: 9_000,
        },
      ],
    });
    expect(only(result, 'failure-count-within-threshold')).toEqual(['c: FailureCount 4 > maxFailures 3']);
    const atThreshold = checkCampaign({
      ...snapshot,
      finalRecords: snapshot.finalRecords.map((record) =>
        record.orderId === 'c' ? { ...record, failureCount: 3 } : record,
      ),
    });
    expect(violated(atThreshold)).toEqual([]);
  });

  it('reports an order planned to fail that was Processed', () => {
    const snapshot = healthy();
    const result = checkCampaign({
      ...snapshot,
      finalRecords: snapshot.finalRecords.map((record) => (record.orderId === 'c' ? processed('c') : record)),
      ledger: [...snapshot.ledger, ...effectsFor('c')],
      alerts: [],
    });
    expect(only(result, 'planned-failures-not-processed')).toEqual(['c: planned to fail but Processed']);
  });

  it('fails as trivial when an order was never accepted, too few were Processed or a kind never fired', () => {
    const snapshot = healthy();
    expect(
      only(
        checkCampaign({ ...snapshot, orders: [...snapshot.orders, { orderId: 'd', mustFail: false }] }),
        'orders-accepted',
      ),
    ).toEqual(['1 of 4 orders never accepted (first: d)']);
    expect(only(checkCampaign({ ...snapshot, minProcessedShare: 0.9 }), 'processed-share')).toEqual([
      'only 2 of 3 orders Processed (66.7%), need 90.0%',
    ]);
    const withoutRestart = snapshot.faults.filter((event) => event.kind !== FaultKind.RuntimeRestart);
    expect(only(checkCampaign({ ...snapshot, faults: withoutRestart }), 'every-fault-kind-fired')).toEqual([
      'runtime-restart never fired',
    ]);
    expect(
      violated(
        checkCampaign({
          ...snapshot,
          faults: withoutRestart,
          enabledKinds: FAULT_KINDS.filter((kind) => kind !== FaultKind.RuntimeRestart),
        }),
      ),
    ).toEqual([]);
  });

  it('names every invariant and guard it judges', () => {
    const ids: InvariantId[] = checkCampaign(healthy()).invariants.map((entry) => entry.id);
    expect(ids).toHaveLength(7);
  });
});

describe('parseIdempotencyKey', () => {
  it('splits the stable key and notices extra parts', () => {
    expect(parseIdempotencyKey('o-1:ChargePayment')).toEqual({
      orderId: 'o-1',
      step: 'ChargePayment',
      stable: true,
    });
    expect(parseIdempotencyKey('o-1:ChargePayment:abc')).toEqual({
      orderId: 'o-1',
      step: 'ChargePayment',
      stable: false,
    });
    expect(parseIdempotencyKey('no-step')).toBeUndefined();
  });
});
