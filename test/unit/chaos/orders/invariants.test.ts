import {
  DEFAULT_WORKFLOW_VERSION,
  ProcessState,
  workflowSteps,
} from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import type { CampaignSnapshot } from '../../../../lib/chaos/orders/campaign-snapshot';
import { parseIdempotencyKey } from '../../../../lib/chaos/orders/effect-checks';
import { FAULT_KINDS, FaultKind } from '../../../../lib/chaos/orders/faults';
import {
  alarmsFired,
  type CheckResult,
  checkCampaign,
  type InvariantId,
} from '../../../../lib/chaos/orders/invariants';
import type {
  AlertSnapshot,
  ClientMessageDelivery,
  LedgerEffectSnapshot,
  LedgerUndoSnapshot,
  RecordSnapshot,
} from '../../../../lib/harness/snapshots';
import { PINNED_TIMINGS } from '../pinned-timings';

/** The steps of an order on the default workflow version (what these tests deploy). */
const V1_STEPS = workflowSteps(DEFAULT_WORKFLOW_VERSION);

const timings = PINNED_TIMINGS;

const completed = Object.fromEntries(V1_STEPS.map((step) => [step.name, 'Completed']));

function processed(orderId: string): RecordSnapshot {
  return { orderId, processState: ProcessState.Processed, failureCount: 0, attempt: 1, steps: completed };
}

function effectsFor(orderId: string): LedgerEffectSnapshot[] {
  return V1_STEPS.map((step) => ({ service: step.service, idempotencyKey: `${orderId}:${step.name}` }));
}

/**
 * d: PERM-FAIL-SHIPPING, compensated: payment refunded (at 50 s), then inventory released (51 s).
 */
function compensatedD(): RecordSnapshot {
  return {
    orderId: 'd',
    processState: ProcessState.Compensated,
    failureCount: 0,
    attempt: 1,
    steps: { ReserveInventory: 'Compensated', ChargePayment: 'Compensated', ScheduleShipping: 'Failed' },
    compensationLog: {
      ReserveInventory: { status: 'Compensated', compensatedAt: 51_100, undone: true },
      ChargePayment: { status: 'Compensated', compensatedAt: 50_100, undone: true },
    },
  };
}

/** e: PERM-FAIL-SHIPPING with UNDO-FAIL: the refund was refused, so the order is CompensationFailed. */
function compensationFailedE(): RecordSnapshot {
  return {
    orderId: 'e',
    processState: ProcessState.CompensationFailed,
    failureCount: 0,
    attempt: 1,
    steps: { ReserveInventory: 'Completed', ChargePayment: 'Compensating', ScheduleShipping: 'Failed' },
    compensationLog: {
      ReserveInventory: { status: 'Recorded' },
      ChargePayment: { status: 'Failed' },
    },
  };
}

const dEffects: LedgerEffectSnapshot[] = [
  { service: 'inventory', idempotencyKey: 'd:ReserveInventory', undoneBy: 'd:ReleaseInventory' },
  { service: 'payment', idempotencyKey: 'd:ChargePayment', undoneBy: 'd:RefundPayment' },
];
const dUndos: LedgerUndoSnapshot[] = [
  {
    service: 'payment',
    idempotencyKey: 'd:RefundPayment',
    undoes: 'd:ChargePayment',
    undone: true,
    at: 50_000,
  },
  {
    service: 'inventory',
    idempotencyKey: 'd:ReleaseInventory',
    undoes: 'd:ReserveInventory',
    undone: true,
    at: 51_000,
  },
];

/**
 * A healthy run: two Processed orders, one Error order with its alert, one Compensated order and
 * one CompensationFailed order with its alert, the admission limit kept, every kind fired.
 */
function healthy(): CampaignSnapshot {
  return {
    timings,
    terminalBoundMillis: 100_000,
    appDenials: [],
    orders: [
      { orderId: 'a', acceptedAt: 1_000, terminalAt: 20_000, mustFail: false },
      { orderId: 'b', acceptedAt: 2_000, terminalAt: 30_000, mustFail: false },
      {
        orderId: 'c',
        acceptedAt: 3_000,
        terminalAt: 40_000,
        mustFail: true,
        expectedOutcome: 'Error',
        failingStep: 'ChargePayment',
      },
      {
        orderId: 'd',
        acceptedAt: 4_000,
        terminalAt: 20_000,
        mustFail: true,
        expectedOutcome: 'Compensated',
        failingStep: 'ScheduleShipping',
      },
      {
        orderId: 'e',
        acceptedAt: 5_000,
        terminalAt: 25_000,
        mustFail: true,
        expectedOutcome: 'CompensationFailed',
        failingStep: 'ScheduleShipping',
      },
    ],
    finalRecords: [
      processed('a'),
      processed('b'),
      {
        orderId: 'c',
        processState: ProcessState.Error,
        failureCount: 3,
        attempt: 3,
        steps: {},
        retryBudget: 36,
        callsMade: { ReserveInventory: 1, ChargePayment: 12 },
      },
      compensatedD(),
      compensationFailedE(),
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
    ledger: [
      ...effectsFor('a'),
      ...effectsFor('b'),
      ...dEffects,
      { service: 'inventory', idempotencyKey: 'e:ReserveInventory' },
      { service: 'payment', idempotencyKey: 'e:ChargePayment' },
    ],
    undos: dUndos,
    // The outage order's payment took 3 attempts x 4 calls, each reserved first.
    calls: [
      { service: 'inventory', idempotencyKey: 'c:ReserveInventory', calls: 1 },
      { service: 'payment', idempotencyKey: 'c:ChargePayment', calls: 12 },
    ],
    retryBudget: 36,
    admission: {
      limit: 4,
      samples: [
        { at: 5_000, nonTerminal: 3, slotsHeld: 4 },
        { at: 6_000, nonTerminal: 4, slotsHeld: 4 },
      ],
      refusedAfterAcceptance: [],
    },
    alerts: [
      { detailType: 'OrderFailed', orderId: 'c', reason: 'FailureThresholdReached' },
      { detailType: 'CompensationFailed', orderId: 'e', reason: 'CompensationRefused' },
    ],
    faults: FAULT_KINDS.map((kind) => ({ kind, at: 10_000, orderIds: ['a'] })),
    enabledKinds: FAULT_KINDS,
    restarts: [],
    minProcessedShare: 0.4,
    operator: { identity: OPERATOR, actions: [] },
    clientMessages: {
      clients: ['web-shop', 'call-center'],
      // healthy() submits with no client's key (no clientId): its orders' messages are not judged.
      deliveries: [],
      probes: [
        { reader: 'web-shop', queueOf: 'call-center', outcome: 'AccessDenied' },
        { reader: 'call-center', queueOf: 'web-shop', outcome: 'AccessDenied' },
      ],
      deduplicationWindowMillis: 300_000,
    },
  };
}

const OPERATOR = 'arn:aws:iam::000000000000:user/operator';

function told(
  queueOf: string,
  orderId: string,
  status: string,
  processState: string,
  receivedAt: number,
): ClientMessageDelivery {
  const at = new Date(receivedAt - 100).toISOString();
  return {
    queueOf,
    receivedAt,
    message: {
      schemaVersion: 1,
      orderId,
      clientId: queueOf,
      status: status as 'Received',
      processState,
      at,
      messageKey: `${orderId}:${status}:${at}`,
    },
  };
}

/**
 * The healthy run submitted as two clients (a, c, e by web-shop; b, d by call-center), each told
 * Received and the status of the terminal state it reached, on its own queue.
 */
function withClients(): CampaignSnapshot {
  const snapshot = healthy();
  const clientOf = (orderId: string) => (['a', 'c', 'e'].includes(orderId) ? 'web-shop' : 'call-center');
  const final: Record<string, [string, string]> = {
    a: ['Completed', 'Processed'],
    b: ['Completed', 'Processed'],
    c: ['Failed', 'Error'],
    d: ['Compensated', 'Compensated'],
    e: ['Failed', 'CompensationFailed'],
  };
  return {
    ...snapshot,
    orders: snapshot.orders.map((order) => ({ ...order, clientId: clientOf(order.orderId) })),
    clientMessages: {
      ...snapshot.clientMessages,
      deliveries: snapshot.orders.flatMap((order) => {
        const [status, state] = final[order.orderId] as [string, string];
        const client = clientOf(order.orderId);
        return [
          told(client, order.orderId, 'Received', 'Pending', (order.acceptedAt ?? 0) + 50),
          told(client, order.orderId, status, state, (order.terminalAt ?? 0) + 50),
        ];
      }),
    },
  };
}

const RETRY_REASON = 'chaos operator #1: the failing downstream is back';
const CANCEL_REASON = 'chaos operator #3: order cancelled after delivery';
const EARLY_CANCEL_REASON = 'chaos operator #5: customer withdrew the order';

/**
 * withClients() plus what the campaign did as operator: f reached Error (its OrderFailed alert),
 * was retried (after one retry refused StateChanged) and ended Processed; g was Processed, then
 * cancelled and Compensated, its three steps undone last first; h was cancelled while Pending,
 * before any step ran, and Compensated with nothing to undo. Each is told every transition.
 */
function operated(): CampaignSnapshot {
  const snapshot = withClients();
  const fRecord: RecordSnapshot = {
    ...processed('f'),
    operatorLog: [
      {
        action: 'retry',
        by: OPERATOR,
        reason: RETRY_REASON,
        seenState: 'Error',
        seenUpdatedAt: '1970-01-01T00:00:30.000Z',
        newState: 'Pending',
      },
    ],
  };
  const gRecord: RecordSnapshot = {
    orderId: 'g',
    processState: ProcessState.Compensated,
    failureCount: 0,
    attempt: 2,
    steps: Object.fromEntries(V1_STEPS.map((step) => [step.name, 'Compensated'])),
    compensationLog: {
      ReserveInventory: { status: 'Compensated', compensatedAt: 62_100, undone: true },
      ChargePayment: { status: 'Compensated', compensatedAt: 61_100, undone: true },
      ScheduleShipping: { status: 'Compensated', compensatedAt: 60_100, undone: true },
    },
    operatorLog: [
      {
        action: 'cancel',
        by: OPERATOR,
        reason: CANCEL_REASON,
        seenState: 'Processed',
        seenUpdatedAt: '1970-01-01T00:00:50.000Z',
        newState: 'CompensationInProgress',
      },
    ],
  };
  const gEffects = V1_STEPS.map((step) => ({
    service: step.service,
    idempotencyKey: `g:${step.name}`,
    undoneBy: `g:${step.compensation.name}`,
  }));
  const hRecord: RecordSnapshot = {
    orderId: 'h',
    processState: ProcessState.Compensated,
    failureCount: 0,
    attempt: 1,
    steps: {},
    operatorLog: [
      {
        action: 'cancel',
        by: OPERATOR,
        reason: EARLY_CANCEL_REASON,
        seenState: 'Pending',
        seenUpdatedAt: '1970-01-01T00:00:08.000Z',
        newState: 'CompensationInProgress',
      },
    ],
  };
  const gUndos = V1_STEPS.map((step, index) => ({
    service: step.service,
    idempotencyKey: `g:${step.compensation.name}`,
    undoes: `g:${step.name}`,
    undone: true,
    at: 62_000 - index * 1_000,
  }));
  return {
    ...snapshot,
    orders: [
      ...snapshot.orders,
      {
        orderId: 'h',
        acceptedAt: 8_000,
        terminalAt: 12_000,
        mustFail: false,
        expectedOutcome: 'Compensated',
        clientId: 'web-shop',
      },
      {
        orderId: 'f',
        acceptedAt: 6_000,
        reopenedAt: 31_000,
        terminalAt: 45_000,
        mustFail: false,
        clientId: 'web-shop',
      },
      {
        orderId: 'g',
        acceptedAt: 7_000,
        reopenedAt: 51_000,
        terminalAt: 63_000,
        mustFail: false,
        expectedOutcome: 'Compensated',
        clientId: 'call-center',
      },
    ],
    finalRecords: [...snapshot.finalRecords, fRecord, gRecord, hRecord],
    ledger: [...snapshot.ledger, ...effectsFor('f'), ...gEffects],
    undos: [...snapshot.undos, ...gUndos],
    alerts: [...snapshot.alerts, { detailType: 'OrderFailed', orderId: 'f' }],
    minProcessedShare: 0.3,
    operator: {
      identity: OPERATOR,
      actions: [
        {
          orderId: 'f',
          action: 'retry',
          reason: 'chaos operator #2: the failing downstream is back',
          seenState: 'Error',
          seenUpdatedAt: '1970-01-01T00:00:29.000Z',
          at: 30_500,
          outcome: 'refused',
          status: 409,
          refusal: 'StateChanged',
        },
        {
          orderId: 'f',
          action: 'retry',
          reason: RETRY_REASON,
          seenState: 'Error',
          seenUpdatedAt: '1970-01-01T00:00:30.000Z',
          at: 31_000,
          outcome: 'applied',
          status: 200,
        },
        {
          orderId: 'g',
          action: 'cancel',
          reason: 'chaos operator #4: customer withdrew the order',
          seenState: 'Processing',
          seenUpdatedAt: '1970-01-01T00:00:20.000Z',
          at: 21_000,
          outcome: 'refused',
          status: 409,
          refusal: 'NotAllowed',
        },
        {
          orderId: 'g',
          action: 'cancel',
          reason: CANCEL_REASON,
          seenState: 'Processed',
          seenUpdatedAt: '1970-01-01T00:00:50.000Z',
          at: 51_000,
          outcome: 'applied',
          status: 200,
        },
        {
          orderId: 'h',
          action: 'cancel',
          reason: EARLY_CANCEL_REASON,
          seenState: 'Pending',
          seenUpdatedAt: '1970-01-01T00:00:08.000Z',
          at: 8_100,
          outcome: 'applied',
          status: 200,
        },
      ],
    },
    clientMessages: {
      ...snapshot.clientMessages,
      deliveries: [
        ...snapshot.clientMessages.deliveries,
        told('web-shop', 'f', 'Received', 'Pending', 6_100),
        told('web-shop', 'f', 'Failed', 'Error', 29_100),
        told('web-shop', 'f', 'Completed', 'Processed', 45_100),
        told('call-center', 'g', 'Received', 'Pending', 7_100),
        told('call-center', 'g', 'Completed', 'Processed', 20_100),
        told('call-center', 'g', 'Compensated', 'Compensated', 63_100),
        told('web-shop', 'h', 'Received', 'Pending', 8_050),
        told('web-shop', 'h', 'Compensated', 'Compensated', 12_100),
      ],
    },
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
      minProcessedShare: 0.2,
      orders: snapshot.orders.map((order) =>
        order.orderId === 'b' ? { orderId: 'b', acceptedAt: 2_000, mustFail: false } : order,
      ),
      finalRecords: snapshot.finalRecords.map((record) =>
        record.orderId === 'b' ? { ...record, processState: ProcessState.Pending, failureCount: 1 } : record,
      ),
      ledger: snapshot.ledger.filter((effect) => !effect.idempotencyKey.startsWith('b:')),
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
      alerts: snapshot.alerts.filter((alert) => alert.orderId !== 'c'),
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
    const orderFailed = snapshot.alerts.filter((alert) => alert.detailType === 'OrderFailed');
    const others = snapshot.alerts.filter((alert) => alert.detailType !== 'OrderFailed');
    expect(only(checkCampaign({ ...snapshot, alerts: others }), 'error-exactly-one-alert')).toEqual([
      'c: Error with 0 OrderFailed alerts',
    ]);
    expect(
      only(
        checkCampaign({ ...snapshot, alerts: [...snapshot.alerts, ...orderFailed] }),
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

  it('leaves the alarm notifications in the inbox to the report: no order-alert invariant counts one', () => {
    const snapshot = healthy();
    const notification = (name: string, newState: string): AlertSnapshot => ({
      detailType: 'CloudWatch alarm notification',
      alarm: { name, newState },
    });
    const notifications = [
      notification('OrdersInError', 'ALARM'),
      notification('DeadLettersStatusNotifierFailureQueue', 'ALARM'),
      notification('OrdersInError', 'OK'),
      notification('OrdersInError', 'ALARM'),
      // Told apart by what it is, not by its detail type: one that looked like an order alert
      // would still not count.
      { ...notification('CompensationsFailed', 'ALARM'), detailType: 'OrderFailed', orderId: 'a' },
    ];
    expect(violated(checkCampaign({ ...snapshot, alerts: [...snapshot.alerts, ...notifications] }))).toEqual(
      [],
    );
    expect(alarmsFired([...snapshot.alerts, ...notifications])).toEqual([
      ['OrdersInError', 2],
      ['CompensationsFailed', 1],
      ['DeadLettersStatusNotifierFailureQueue', 1],
    ]);
  });

  it('reports an alert missing even when the order turned Error while a restart cut work short (the outbox keeps it)', () => {
    const snapshot = healthy();
    const result = checkCampaign({
      ...snapshot,
      terminalBoundMillis: 1_000_000,
      alerts: snapshot.alerts.filter((alert) => alert.orderId !== 'c'),
      restarts: [{ lastDrainAt: 39_500, stoppedAt: 40_100, readyAt: 42_000 }],
    });
    expect(only(result, 'error-exactly-one-alert')).toEqual(['c: Error with 0 OrderFailed alerts']);
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
      // Processed, its calls still the ones it reserved.
      finalRecords: snapshot.finalRecords.map((record) =>
        record.orderId === 'c' ? { ...record, ...processed('c') } : record,
      ),
      ledger: [...snapshot.ledger, ...effectsFor('c')],
      alerts: snapshot.alerts.filter((alert) => alert.orderId !== 'c'),
    });
    expect(violated(result)).toEqual(['planned-failures-not-processed', 'planned-outcomes']);
    expect(
      result.invariants.find((entry) => entry.id === 'planned-failures-not-processed')?.violations,
    ).toEqual(['c: planned to fail but Processed']);
  });

  it('fails as trivial when an order was never accepted, too few were Processed or a kind never fired', () => {
    const snapshot = healthy();
    expect(
      only(
        checkCampaign({
          ...snapshot,
          minProcessedShare: 0.3,
          orders: [...snapshot.orders, { orderId: 'f', mustFail: false }],
        }),
        'orders-accepted',
      ),
    ).toEqual(['1 of 6 orders never accepted (first: f)']);
    expect(only(checkCampaign({ ...snapshot, minProcessedShare: 0.9 }), 'processed-share')).toEqual([
      'only 2 of 5 orders Processed (40.0%), need 90.0%',
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

  it('reports a CompensationFailed order without its alert, with two, and an alert for another order', () => {
    const snapshot = healthy();
    const withoutE = snapshot.alerts.filter((alert) => alert.orderId !== 'e');
    expect(only(checkCampaign({ ...snapshot, alerts: withoutE }), 'compensation-failed-alerted')).toEqual([
      'e: CompensationFailed with 0 CompensationFailed alerts',
    ]);
    expect(
      only(
        checkCampaign({
          ...snapshot,
          alerts: [...snapshot.alerts, { detailType: 'CompensationFailed', orderId: 'e' }],
        }),
        'compensation-failed-alerted',
      ),
    ).toEqual(['e: CompensationFailed with 2 CompensationFailed alerts']);
    expect(
      only(
        checkCampaign({
          ...snapshot,
          alerts: [...snapshot.alerts, { detailType: 'CompensationFailed', orderId: 'd' }],
        }),
        'compensation-failed-alerted',
      ),
    ).toEqual(['d: 1 CompensationFailed alerts but not in CompensationFailed']);
  });

  it('counts copies of one AlertId (at-least-once delivery) as one alert, and two AlertIds as two', () => {
    const snapshot = healthy();
    const others = snapshot.alerts.filter((alert) => alert.orderId !== 'e');
    const copy = { detailType: 'CompensationFailed', orderId: 'e', alertId: 'e:CompensationFailed:1' };
    expect(violated(checkCampaign({ ...snapshot, alerts: [...others, copy, copy] }))).toEqual([]);
    expect(
      only(
        checkCampaign({
          ...snapshot,
          alerts: [...others, copy, { ...copy, alertId: 'e:CompensationFailed:2' }],
        }),
        'compensation-failed-alerted',
      ),
    ).toEqual(['e: CompensationFailed with 2 CompensationFailed alerts']);
  });

  it('reports a CompensationFailed alert missing across a restart too', () => {
    const snapshot = healthy();
    const result = checkCampaign({
      ...snapshot,
      terminalBoundMillis: 1_000_000,
      alerts: snapshot.alerts.filter((alert) => alert.orderId !== 'e'),
      restarts: [{ lastDrainAt: 24_500, stoppedAt: 25_100, readyAt: 27_000 }],
    });
    expect(only(result, 'compensation-failed-alerted')).toEqual([
      'e: CompensationFailed with 0 CompensationFailed alerts',
    ]);
  });

  it('reports compensations run in forward order, from the ledger times or else the log', () => {
    const snapshot = healthy();
    const forward = dUndos.map((undo) =>
      undo.idempotencyKey === 'd:RefundPayment' ? { ...undo, at: 52_000 } : undo,
    );
    expect(only(checkCampaign({ ...snapshot, undos: [...forward] }), 'compensation-exact')).toEqual([
      'd: ReserveInventory undone before ChargePayment (1000 ms earlier): not in reverse step order',
    ]);
    const untimed = dUndos.map(({ at: _at, ...undo }) => undo);
    const logForward = compensatedD();
    const result = checkCampaign({
      ...snapshot,
      undos: untimed,
      finalRecords: snapshot.finalRecords.map((record) =>
        record.orderId === 'd'
          ? {
              ...logForward,
              compensationLog: {
                ReserveInventory: { status: 'Compensated', compensatedAt: 50_100, undone: true },
                ChargePayment: { status: 'Compensated', compensatedAt: 51_100, undone: true },
              },
            }
          : record,
      ),
    });
    expect(only(result, 'compensation-exact')).toEqual([
      'd: ReserveInventory undone before ChargePayment (1000 ms earlier): not in reverse step order',
    ]);
    expect(violated(checkCampaign({ ...snapshot, undos: untimed }))).toEqual([]);
  });

  it('reports a completed step of a Compensated order left standing', () => {
    const snapshot = healthy();
    const result = checkCampaign({
      ...snapshot,
      ledger: snapshot.ledger.map((effect) =>
        effect.idempotencyKey === 'd:ReserveInventory'
          ? { service: 'inventory', idempotencyKey: 'd:ReserveInventory' }
          : effect,
      ),
      undos: dUndos.filter((undo) => undo.idempotencyKey !== 'd:ReleaseInventory'),
    });
    expect(only(result, 'compensation-exact')).toEqual([
      'd: ReserveInventory was done (inventory effect) and undone 0 times',
    ]);
  });

  it('reports a step undone twice, under a key other than its compensation', () => {
    const snapshot = healthy();
    const result = checkCampaign({
      ...snapshot,
      undos: [
        ...dUndos,
        {
          service: 'inventory',
          idempotencyKey: 'd:ReleaseInventory:retry',
          undoes: 'd:ReserveInventory',
          undone: true,
          at: 51_500,
        },
      ],
    });
    expect(only(result, 'compensation-exact')).toEqual([
      'inventory d:ReleaseInventory:retry: undoes d:ReserveInventory under a key other than d:ReleaseInventory',
      'd:ReleaseInventory:retry: undone: true, but d:ReserveInventory has no inventory effect it undid (nothing was done)',
      'd: ReserveInventory was done (inventory effect) and undone 2 times',
    ]);
  });

  it('reports an undo of something never done, and accepts closing the key of a step never done', () => {
    const snapshot = healthy();
    const cancelShipment = {
      service: 'shipping',
      idempotencyKey: 'd:CancelShipment',
      undoes: 'd:ScheduleShipping',
      at: 49_000,
    };
    expect(
      only(
        checkCampaign({ ...snapshot, undos: [...dUndos, { ...cancelShipment, undone: true }] }),
        'compensation-exact',
      ),
    ).toEqual([
      'd:CancelShipment: undone: true, but d:ScheduleShipping has no shipping effect it undid (nothing was done)',
    ]);
    expect(
      violated(checkCampaign({ ...snapshot, undos: [...dUndos, { ...cancelShipment, undone: false }] })),
    ).toEqual([]);
  });

  it('reports an undone: false answer while the effect stands', () => {
    const snapshot = healthy();
    const result = checkCampaign({
      ...snapshot,
      undos: [
        ...dUndos,
        { service: 'payment', idempotencyKey: 'e:RefundPayment', undoes: 'e:ChargePayment', undone: false },
      ],
    });
    expect(only(result, 'compensation-exact')).toEqual([
      'e:RefundPayment: undone: false, yet the effect e:ChargePayment stands',
    ]);
  });

  it('reports a Compensated order whose record and ledger disagree', () => {
    const snapshot = healthy();
    const missingEffect = checkCampaign({
      ...snapshot,
      ledger: snapshot.ledger.filter((effect) => effect.idempotencyKey !== 'd:ChargePayment'),
      undos: dUndos.filter((undo) => undo.idempotencyKey !== 'd:RefundPayment'),
    });
    expect(only(missingEffect, 'compensation-exact')).toEqual([
      'd: ChargePayment completed in the record, but no payment effect is in the ledger',
    ]);
    const d = compensatedD();
    const entryLeftCompensating = checkCampaign({
      ...snapshot,
      finalRecords: snapshot.finalRecords.map((record) =>
        record.orderId === 'd'
          ? {
              ...d,
              steps: { ...d.steps, ChargePayment: 'Compensating' },
              compensationLog: { ...d.compensationLog, ChargePayment: { status: 'Compensating' } },
            }
          : record,
      ),
    });
    expect(only(entryLeftCompensating, 'compensation-exact')).toEqual([
      'd: Compensated, but the log entry of ChargePayment is Compensating',
      'd: ChargePayment undone, but the record says Compensating',
    ]);
  });

  it('reports a Processed order with a compensation in its log or in the ledger', () => {
    const snapshot = healthy();
    const withLog = (status: string) =>
      checkCampaign({
        ...snapshot,
        finalRecords: snapshot.finalRecords.map((record) =>
          record.orderId === 'a' ? { ...record, compensationLog: { ChargePayment: { status } } } : record,
        ),
      });
    expect(violated(withLog('Recorded'))).toEqual([]);
    expect(only(withLog('Compensated'), 'no-processed-with-compensation')).toEqual([
      'a: Processed with the log entry of ChargePayment Compensated',
    ]);
    const undone = checkCampaign({
      ...snapshot,
      ledger: snapshot.ledger.map((effect) =>
        effect.idempotencyKey === 'a:ChargePayment' ? { ...effect, undoneBy: 'a:RefundPayment' } : effect,
      ),
      undos: [
        ...dUndos,
        { service: 'payment', idempotencyKey: 'a:RefundPayment', undoes: 'a:ChargePayment', undone: true },
      ],
    });
    expect(only(undone, 'no-processed-with-compensation')).toEqual([
      'a: Processed with 1 undo(s) in the ledger',
    ]);
  });

  it('lets CompensationInProgress hold a lock, and no terminal state', () => {
    const snapshot = healthy();
    const compensating = {
      ...compensatedD(),
      processState: ProcessState.CompensationInProgress,
      lockedBy: 'd--attempt-1',
      at: 9_000,
    };
    expect(violated(checkCampaign({ ...snapshot, samples: [...snapshot.samples, compensating] }))).toEqual(
      [],
    );
    const result = checkCampaign({
      ...snapshot,
      finalRecords: snapshot.finalRecords.map((record) =>
        record.orderId === 'd' ? { ...record, lockedBy: 'd--attempt-1' } : record,
      ),
    });
    expect(only(result, 'lock-only-while-processing')).toEqual(['d: Compensated but LockedBy d--attempt-1']);
  });

  it('reports a CompensationFailureCount above maxCompensationFailures', () => {
    const snapshot = healthy();
    const result = checkCampaign({
      ...snapshot,
      finalRecords: snapshot.finalRecords.map((record) =>
        record.orderId === 'e' ? { ...record, compensationFailureCount: 4 } : record,
      ),
    });
    expect(only(result, 'failure-count-within-threshold')).toEqual([
      'e: CompensationFailureCount 4 > maxCompensationFailures 3',
    ]);
  });

  it("reports calls past the order's RetryBudget, or the deployment's for a record without one", () => {
    const snapshot = healthy();
    const over = (record: RecordSnapshot): RecordSnapshot =>
      record.orderId === 'c'
        ? { ...record, retryBudget: 10, callsMade: { ReserveInventory: 1, ChargePayment: 12 } }
        : record;
    expect(
      only(
        checkCampaign({ ...snapshot, finalRecords: snapshot.finalRecords.map(over) }),
        'calls-within-budget',
      ),
    ).toEqual([
      'c:ChargePayment: 12 calls received, RetryBudget 10',
      'c:ChargePayment: CallsMade 12 > RetryBudget 10',
    ]);
    // A schema-2 record (no RetryBudget) is held to the deployment's.
    const schema2 = snapshot.finalRecords.map((record) => {
      if (record.orderId !== 'c') return record;
      const { retryBudget: _budget, ...rest } = record;
      return rest;
    });
    expect(
      only(checkCampaign({ ...snapshot, finalRecords: schema2, retryBudget: 11 }), 'calls-within-budget'),
    ).toEqual([
      'c:ChargePayment: 12 calls received, RetryBudget 11',
      'c:ChargePayment: CallsMade 12 > RetryBudget 11',
    ]);
  });

  it("reports every request of the app's roles IAM denied, once per message with its count", () => {
    const denied =
      'User: arn:aws:sts::000000000000:assumed-role/Agent/fn is not authorized to perform: dynamodb:UpdateItem on resource: arn:aws:dynamodb:us-east-1:000000000000:table/State because no identity-based policy allows the dynamodb:UpdateItem action';
    const result = checkCampaign({ ...healthy(), appDenials: [denied, denied, 'other'] });
    expect(only(result, 'app-not-denied')).toEqual([`${denied} (x2)`, 'other']);
    expect(result.passed).toBe(false);
    expect(checkCampaign(healthy()).passed).toBe(true);
  });

  it('reports calls that were never reserved, summing keys that only differ after the operation', () => {
    const snapshot = healthy();
    const result = checkCampaign({
      ...snapshot,
      calls: [
        ...snapshot.calls,
        // An agent that calls without reserving (and keys its calls per attempt).
        { service: 'inventory', idempotencyKey: 'a:ReserveInventory:1a2b3c', calls: 2 },
        { service: 'inventory', idempotencyKey: 'a:ReserveInventory:4d5e6f', calls: 1 },
      ],
    });
    expect(only(result, 'calls-within-budget')).toEqual([
      'a:ReserveInventory: 3 calls received, 0 reserved in CallsMade',
    ]);
  });

  it('reports more orders in flight, or more slots held, than the admission limit', () => {
    const snapshot = healthy();
    const withSample = (sample: { nonTerminal: number; slotsHeld?: number }) =>
      checkCampaign({
        ...snapshot,
        admission: {
          ...snapshot.admission,
          samples: [...snapshot.admission.samples, { at: 7_000, ...sample }],
        },
      });
    expect(only(withSample({ nonTerminal: 5, slotsHeld: 4 }), 'in-flight-within-limit')).toEqual([
      'at 7000: 5 orders not terminal, admission limit 4',
    ]);
    expect(only(withSample({ nonTerminal: 2, slotsHeld: 5 }), 'in-flight-within-limit')).toEqual([
      'at 7000: admission counters hold 5 slots, limit 4',
    ]);
    expect(only(withSample({ nonTerminal: 0, slotsHeld: -1 }), 'in-flight-within-limit')).toEqual([
      'at 7000: admission counters hold -1 slots, limit 4',
    ]);
  });

  it('reports an accepted order refused when submitted again', () => {
    const snapshot = healthy();
    const result = checkCampaign({
      ...snapshot,
      admission: {
        ...snapshot.admission,
        refusedAfterAcceptance: ['a: accepted, then refused 429 when submitted again'],
      },
    });
    expect(only(result, 'accepted-never-refused')).toEqual([
      'a: accepted, then refused 429 when submitted again',
    ]);
  });

  it('reports a failing plan that ended otherwise, but allows Error before its failing step ran', () => {
    const snapshot = healthy();
    const dAsError = (failingStepStatus: string) =>
      checkCampaign({
        ...snapshot,
        finalRecords: snapshot.finalRecords.map((record) =>
          record.orderId === 'd'
            ? {
                ...record,
                processState: ProcessState.Error,
                failureCount: 3,
                steps: { ...record.steps, ScheduleShipping: failingStepStatus },
              }
            : record,
        ),
        alerts: [...snapshot.alerts, { detailType: 'OrderFailed', orderId: 'd' }],
      });
    expect(only(dAsError('Failed'), 'planned-outcomes')).toEqual([
      'd: planned to end Compensated (ScheduleShipping) but Error',
    ]);
    expect(violated(dAsError('TimedOut'))).toEqual([]);
  });

  it('reports a planned Compensated order that ended CompensationFailed, unless its compensation attempts ran out', () => {
    const snapshot = healthy();
    const dAsCompensationFailed = (compensationFailureCount: number) =>
      checkCampaign({
        ...snapshot,
        finalRecords: snapshot.finalRecords.map((record) =>
          record.orderId === 'd'
            ? { ...record, processState: ProcessState.CompensationFailed, compensationFailureCount }
            : record,
        ),
        alerts: [...snapshot.alerts, { detailType: 'CompensationFailed', orderId: 'd' }],
      });
    expect(only(dAsCompensationFailed(1), 'planned-outcomes')).toEqual([
      'd: planned to end Compensated (ScheduleShipping) but CompensationFailed',
    ]);
    expect(violated(dAsCompensationFailed(3))).toEqual([]);
  });

  it('passes a run with two clients and operator actions: a retried Error order and a cancelled Processed one', () => {
    expect(violated(checkCampaign(withClients()))).toEqual([]);
    expect(violated(checkCampaign(operated()))).toEqual([]);
  });

  it('reports an applied operator action missing from the OperatorLog, or logged twice', () => {
    const snapshot = operated();
    const withLog = (entries: number) =>
      checkCampaign({
        ...snapshot,
        finalRecords: snapshot.finalRecords.map((record) =>
          record.orderId === 'h'
            ? { ...record, operatorLog: Array.from({ length: entries }, () => record.operatorLog?.[0]) }
            : record,
        ) as RecordSnapshot[],
      });
    expect(only(withLog(0), 'operator-actions-logged')).toEqual([
      `h: cancel from Pending ("${EARLY_CANCEL_REASON}"): applied, but in the OperatorLog 0 times`,
    ]);
    expect(only(withLog(2), 'operator-actions-logged')).toEqual([
      `h: cancel from Pending ("${EARLY_CANCEL_REASON}"): applied, but in the OperatorLog 2 times`,
    ]);
  });

  it('reports an OperatorLog entry by another identity, or with another seen state', () => {
    const snapshot = operated();
    const result = checkCampaign({
      ...snapshot,
      finalRecords: snapshot.finalRecords.map((record) =>
        record.orderId === 'f'
          ? {
              ...record,
              operatorLog: [
                {
                  ...(record.operatorLog?.[0] as NonNullable<RecordSnapshot['operatorLog']>[number]),
                  by: 'arn:aws:iam::000000000000:user/someone',
                  seenUpdatedAt: '1970-01-01T00:00:29.000Z',
                },
              ],
            }
          : record,
      ),
    });
    expect(only(result, 'operator-actions-logged')).toEqual([
      `f: retry from Error ("${RETRY_REASON}"): logged with by arn:aws:iam::000000000000:user/someone, not ${OPERATOR}, seen UpdatedAt 1970-01-01T00:00:29.000Z`,
    ]);
  });

  it('reports a refused operator action that was logged anyway, and an entry the campaign never sent', () => {
    const snapshot = operated();
    const refusedLogged = checkCampaign({
      ...snapshot,
      operator: {
        ...snapshot.operator,
        actions: snapshot.operator.actions.map((action) =>
          action.reason === EARLY_CANCEL_REASON
            ? { ...action, outcome: 'refused' as const, status: 409 }
            : action,
        ),
      },
    });
    expect(only(refusedLogged, 'operator-actions-logged')).toEqual([
      `h: cancel from Pending ("${EARLY_CANCEL_REASON}"): refused 409, yet in the OperatorLog 1 time(s)`,
    ]);
    const neverSent = checkCampaign({
      ...snapshot,
      operator: {
        ...snapshot.operator,
        actions: snapshot.operator.actions.filter((action) => action.reason !== EARLY_CANCEL_REASON),
      },
    });
    expect(only(neverSent, 'operator-actions-logged')).toEqual([
      `h: OperatorLog has cancel by ${OPERATOR} ("${EARLY_CANCEL_REASON}") that the campaign never sent`,
    ]);
  });

  it('does not judge an action that got no answer either way', () => {
    const snapshot = operated();
    const result = checkCampaign({
      ...snapshot,
      operator: {
        ...snapshot.operator,
        actions: snapshot.operator.actions.map((action) =>
          action.reason === RETRY_REASON ? { ...action, outcome: 'unknown' as const, status: 503 } : action,
        ),
      },
    });
    expect(violated(result)).toEqual([]);
  });

  it('reports an operator action applied to a Processing order', () => {
    const snapshot = operated();
    const result = checkCampaign({
      ...snapshot,
      operator: {
        ...snapshot.operator,
        actions: snapshot.operator.actions.map((action) =>
          action.refusal === 'NotAllowed' ? { ...action, outcome: 'applied' as const, status: 200 } : action,
        ),
      },
    });
    expect(only(result, 'operator-actions-logged')).toEqual([
      'g: cancel from Processing ("chaos operator #4: customer withdrew the order"): applied to a Processing order',
      'g: cancel from Processing ("chaos operator #4: customer withdrew the order"): applied, but in the OperatorLog 0 times',
    ]);
  });

  it('requires one OrderFailed alert per time an order was in Error, the retried ones too', () => {
    const snapshot = operated();
    const alertsOfF = (count: number) =>
      checkCampaign({
        ...snapshot,
        alerts: [
          ...snapshot.alerts.filter((alert) => alert.orderId !== 'f'),
          ...Array.from({ length: count }, () => ({ detailType: 'OrderFailed', orderId: 'f' })),
        ],
      });
    expect(only(alertsOfF(0), 'error-exactly-one-alert')).toEqual([
      'f: in Error 1 times (1 left by an operator action) with 0 OrderFailed alerts',
    ]);
    expect(only(alertsOfF(2), 'error-exactly-one-alert')).toEqual([
      'f: in Error 1 times (1 left by an operator action) with 2 OrderFailed alerts',
    ]);
  });

  it('reports a cancelled order whose steps were undone in forward order', () => {
    const snapshot = operated();
    const result = checkCampaign({
      ...snapshot,
      undos: snapshot.undos.map((undo) =>
        undo.idempotencyKey.startsWith('g:') ? { ...undo, at: 60_000 + (62_000 - (undo.at ?? 0)) } : undo,
      ),
    });
    expect(only(result, 'compensation-exact')).toEqual([
      'g: ReserveInventory undone before ChargePayment (1000 ms earlier): not in reverse step order',
      'g: ChargePayment undone before ScheduleShipping (1000 ms earlier): not in reverse step order',
    ]);
  });

  it('reports a planned cancel that ended Processed, and counts the bound from the reopening', () => {
    const snapshot = operated();
    const gProcessed = checkCampaign({
      ...snapshot,
      finalRecords: snapshot.finalRecords.map((record) =>
        record.orderId === 'g' ? { ...processed('g') } : record,
      ),
      ledger: snapshot.ledger.map((effect) =>
        effect.idempotencyKey.startsWith('g:')
          ? { service: effect.service, idempotencyKey: effect.idempotencyKey }
          : effect,
      ),
      undos: snapshot.undos.filter((undo) => !undo.idempotencyKey.startsWith('g:')),
      operator: { ...snapshot.operator, actions: snapshot.operator.actions.filter((a) => a.orderId !== 'g') },
      clientMessages: {
        ...snapshot.clientMessages,
        deliveries: snapshot.clientMessages.deliveries.filter(
          (d) => d.message?.status !== 'Compensated' || d.message.orderId !== 'g',
        ),
      },
    });
    expect(only(gProcessed, 'planned-outcomes')).toEqual(['g: planned to end Compensated but Processed']);
    // g took 56 s from acceptance, 12 s from the cancel that reopened it.
    expect(violated(checkCampaign({ ...snapshot, terminalBoundMillis: 50_000 }))).toEqual([]);
    expect(
      only(checkCampaign({ ...snapshot, terminalBoundMillis: 10_000 }), 'terminal-within-bound'),
    ).toEqual(
      [
        'b: Processed after 28000 ms, bound 10000 ms',
        'c: Error after 37000 ms, bound 10000 ms',
        'd: Compensated after 16000 ms, bound 10000 ms',
        'e: CompensationFailed after 20000 ms, bound 10000 ms',
        'f: Processed after 14000 ms, bound 10000 ms',
        'g: Compensated after 12000 ms, bound 10000 ms',
        'a: Processed after 19000 ms, bound 10000 ms',
      ].sort((x, y) => x.localeCompare(y)),
    );
  });

  it("reports a status message on a client's queue about an order it did not submit, or naming another client", () => {
    const snapshot = withClients();
    const withExtra = (delivery: ClientMessageDelivery) =>
      checkCampaign({
        ...snapshot,
        clientMessages: {
          ...snapshot.clientMessages,
          deliveries: [...snapshot.clientMessages.deliveries, delivery],
        },
      });
    const stranger = told('web-shop', 'zz', 'Received', 'Pending', 9_000);
    expect(only(withExtra(stranger), 'client-messages')).toEqual([
      `${stranger.message?.messageKey}: told to web-shop, but the campaign submitted no such order`,
    ]);
    const others = told('call-center', 'x', 'Received', 'Pending', 9_000);
    const misnamed = { ...others, queueOf: 'web-shop' };
    expect(only(withExtra(misnamed), 'client-messages')).toEqual([
      `${others.message?.messageKey}: for client call-center, on web-shop's queue`,
      `${others.message?.messageKey}: told to web-shop, but the campaign submitted no such order`,
    ]);
    const crossed = { ...told('call-center', 'a', 'Received', 'Pending', 1_040) };
    expect(only(withExtra(crossed), 'client-messages')).toEqual([
      `${crossed.message?.messageKey}: told to call-center, but web-shop submitted it`,
      'a (web-shop): told [Received, Completed, Received], expected [Received, Completed]',
    ]);
  });

  it('reports a missing status, statuses out of order, and a status that does not match its state', () => {
    const snapshot = operated();
    const withDeliveries = (deliveries: readonly ClientMessageDelivery[]) =>
      checkCampaign({ ...snapshot, clientMessages: { ...snapshot.clientMessages, deliveries } });
    const all = snapshot.clientMessages.deliveries;
    const withoutFailed = all.filter((d) => !(d.message?.orderId === 'f' && d.message.status === 'Failed'));
    expect(only(withDeliveries(withoutFailed), 'client-messages')).toEqual([
      'f (web-shop): told [Received, Completed], expected [Received, Failed, Completed]',
    ]);
    const ofB = all.filter((d) => d.message?.orderId === 'b');
    const reordered = [...all.filter((d) => d.message?.orderId !== 'b'), ...[...ofB].reverse()];
    expect(only(withDeliveries(reordered), 'client-messages')).toEqual([
      'b (call-center): told [Completed, Received], expected [Received, Completed]',
    ]);
    const wrong = told('web-shop', 'zz', 'Completed', 'Error', 1);
    const mismatched = all.map((d) =>
      d.message?.orderId === 'c' && d.message.status === 'Failed'
        ? { ...d, message: { ...d.message, processState: 'Processed' } }
        : d,
    );
    expect(wrong.message?.processState).toBe('Error');
    expect(only(withDeliveries(mismatched), 'client-messages')).toEqual([
      `${mismatched.find((d) => d.message?.orderId === 'c' && d.message.status === 'Failed')?.message?.messageKey}: status Failed for processState Processed`,
    ]);
  });

  it('reports a body that is no ClientStatusMessage', () => {
    const snapshot = withClients();
    const result = checkCampaign({
      ...snapshot,
      clientMessages: {
        ...snapshot.clientMessages,
        deliveries: [
          ...snapshot.clientMessages.deliveries,
          { queueOf: 'web-shop', receivedAt: 9_000, invalid: 'not JSON: hello' },
        ],
      },
    });
    expect(only(result, 'client-messages')).toEqual([
      "web-shop's queue: a message that is no ClientStatusMessage (not JSON: hello)",
    ]);
  });

  it('reports a messageKey delivered twice within the FIFO deduplication window, and lists one redelivered later', () => {
    const snapshot = withClients();
    const completedA = snapshot.clientMessages.deliveries.find(
      (d) => d.message?.orderId === 'a' && d.message.status === 'Completed',
    ) as ClientMessageDelivery;
    const again = (afterMillis: number) =>
      checkCampaign({
        ...snapshot,
        clientMessages: {
          ...snapshot.clientMessages,
          deliveries: [
            ...snapshot.clientMessages.deliveries,
            { ...completedA, receivedAt: completedA.receivedAt + afterMillis },
          ],
        },
      });
    expect(only(again(2_000), 'client-messages')).toEqual([
      `${completedA.message?.messageKey}: delivered 2 times within the FIFO deduplication window`,
    ]);
    const late = again(400_000);
    expect(violated(late)).toEqual([]);
    expect(late.messagesRedeliveredAfterWindow).toEqual([`${completedA.message?.messageKey} x2`]);
  });

  it("fails the guard when a client was let into another client's queue, or never denied", () => {
    const snapshot = withClients();
    const withProbes = (
      probes: CampaignSnapshot['clientMessages']['probes'],
      clients = ['web-shop', 'call-center'],
    ) => checkCampaign({ ...snapshot, clientMessages: { ...snapshot.clientMessages, clients, probes } });
    expect(
      only(
        withProbes([
          { reader: 'web-shop', queueOf: 'call-center', outcome: 'AccessDenied' },
          { reader: 'call-center', queueOf: 'web-shop', outcome: 'allowed' },
        ]),
        'reply-queue-isolation',
      ),
    ).toEqual(["call-center reading web-shop's queue: allowed"]);
    expect(only(withProbes([]), 'reply-queue-isolation')).toEqual([
      "no client was ever denied another client's queue",
    ]);
    expect(only(withProbes([], ['web-shop']), 'reply-queue-isolation')).toEqual([
      'needs two clients to probe, the Clients output lists 1',
    ]);
  });

  it('names every invariant and guard it judges', () => {
    const ids: InvariantId[] = checkCampaign(healthy()).invariants.map((entry) => entry.id);
    expect(ids).toEqual([
      'terminal-within-bound',
      'one-effect-per-key',
      'processed-one-effect-per-step',
      'error-exactly-one-alert',
      'compensation-failed-alerted',
      'compensation-exact',
      'no-processed-with-compensation',
      'lock-only-while-processing',
      'failure-count-within-threshold',
      'in-flight-within-limit',
      'accepted-never-refused',
      'planned-failures-not-processed',
      'planned-outcomes',
      'operator-actions-logged',
      'client-messages',
      'calls-within-budget',
      'app-not-denied',
    ]);
    expect(checkCampaign(healthy()).guards.map((entry) => entry.id)).toEqual([
      'orders-accepted',
      'processed-share',
      'every-fault-kind-fired',
      'reply-queue-isolation',
    ]);
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
