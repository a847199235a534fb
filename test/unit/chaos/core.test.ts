import {
  DEFAULT_WORKFLOW_VERSION,
  RoleServiceName,
  workflowSteps,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { hashString, mulberry32, seededUnit, shuffled } from '../../../lib/chaos/common/random';
import { renderTable } from '../../../lib/chaos/common/report';
import { maxSafeRelativeSkewMillis, terminalBound } from '../../../lib/chaos/orders/bounds';
import {
  ATTEMPT_FAULTS,
  COMPENSATION_TARGETED_FAULTS,
  FAULT_KINDS,
  FaultKind,
} from '../../../lib/chaos/orders/faults';
import { checkCampaign } from '../../../lib/chaos/orders/invariants';
import {
  compensationsRun,
  DEFAULT_FAULT_RATES,
  idempotencyKeyFor,
  type PlanSettings,
  planCampaign,
  plannedAlertCount,
} from '../../../lib/chaos/orders/plan';
import { recoveryLatencies } from '../../../lib/chaos/orders/recovery';
import { alarmsLine, renderSummary } from '../../../lib/chaos/orders/report';
import { roleOf } from '../../../lib/harness/assembly';
import { percentile, summarize } from '../../../lib/harness/stats';
import { PINNED_TIMINGS } from './pinned-timings';

/** The steps of an order on the default workflow version (what these tests deploy). */
const V1_STEPS = workflowSteps(DEFAULT_WORKFLOW_VERSION);

const timings = PINNED_TIMINGS;

const settings: PlanSettings = {
  orders: 200,
  seed: 7,
  rates: DEFAULT_FAULT_RATES,
  minOrdersPerKind: 2,
  enabledKinds: FAULT_KINDS,
};

describe('roleOf', () => {
  it('tells the starter and the supervisor by service name from the operator functions that share their settings', () => {
    const env = (service: string, ...keys: string[]) => ({
      POWERTOOLS_SERVICE_NAME: service,
      ...Object.fromEntries(keys.map((key) => [key, 'x'])),
    });
    expect(roleOf(env(RoleServiceName.Starter, 'STATE_TABLE_NAME', 'STATE_MACHINE_ARN'))).toBe('starter');
    expect(roleOf(env('operator-inspect', 'STATE_TABLE_NAME', 'STATE_MACHINE_ARN'))).toBe('other');
    expect(
      roleOf(env(RoleServiceName.Supervisor, 'STATE_TABLE_NAME', 'START_QUEUE_URL', 'DUE_SHARD_COUNT')),
    ).toBe('supervisor');
    expect(
      roleOf(
        env('operator-action', 'STATE_TABLE_NAME', 'START_QUEUE_URL', 'DUE_SHARD_COUNT', 'ALERT_BUS_NAME'),
      ),
    ).toBe('other');
    expect(roleOf(env('agent-payment', 'STEP_NAME'))).toBe('agent');
  });
});

describe('seeded randomness', () => {
  it('mulberry32 repeats for a seed, differs across seeds and stays in [0, 1)', () => {
    const first = Array.from({ length: 5 }, mulberry32(42));
    expect(Array.from({ length: 5 }, mulberry32(42))).toEqual(first);
    expect(Array.from({ length: 5 }, mulberry32(43))).not.toEqual(first);
    const draws = Array.from({ length: 10_000 }, mulberry32(1));
    expect(draws.every((value) => value >= 0 && value < 1)).toBe(true);
    const mean = draws.reduce((sum, value) => sum + value, 0) / draws.length;
    expect(mean).toBeGreaterThan(0.48);
    expect(mean).toBeLessThan(0.52);
  });

  it('seededUnit depends only on the seed and the decision described', () => {
    expect(seededUnit(1, 'key', 3)).toBe(seededUnit(1, 'key', 3));
    expect(seededUnit(1, 'key', 3)).not.toBe(seededUnit(1, 'key', 4));
    expect(seededUnit(1, 'key', 3)).not.toBe(seededUnit(2, 'key', 3));
    expect(hashString('')).toBe(0x811c9dc5);
  });

  it('shuffles a copy, keeping every element', () => {
    const items = [1, 2, 3, 4, 5, 6];
    const result = shuffled(items, mulberry32(3));
    expect(items).toEqual([1, 2, 3, 4, 5, 6]);
    expect([...result].sort()).toEqual(items);
  });
});

describe('planCampaign', () => {
  it('is reproducible from the seed and changes with it', () => {
    expect(planCampaign(settings)).toEqual(planCampaign(settings));
    expect(planCampaign({ ...settings, seed: 8 }).orders.map((order) => order.attemptFault)).not.toEqual(
      planCampaign(settings).orders.map((order) => order.attemptFault),
    );
  });

  it('gives every enabled attempt fault and duplicates their minimum, at most one attempt fault per order', () => {
    const plan = planCampaign({ ...settings, orders: 24, minOrdersPerKind: 2 });
    for (const kind of ATTEMPT_FAULTS) {
      expect(plan.orders.filter((order) => order.attemptFault?.kind === kind).length).toBeGreaterThanOrEqual(
        2,
      );
    }
    expect(plan.orders.filter((order) => order.duplicate).length).toBeGreaterThanOrEqual(2);
    expect(plan.attemptFaultsByKey.size).toBe(
      plan.orders.filter((order) => order.attemptFault).length +
        plan.orders.filter((order) => order.compensationFault).length,
    );
  });

  it('plans each failing kind with its SKUs, its step and its outcome, and marks failing plans', () => {
    const plan = planCampaign({
      ...settings,
      rates: {
        ...DEFAULT_FAULT_RATES,
        attempt: { ...DEFAULT_FAULT_RATES.attempt, [FaultKind.PermanentFailure]: 0.2 },
      },
    });
    const skusOf = (order: (typeof plan.orders)[number]) => order.request.items.map((item) => item.sku);
    const failingSkus: Record<string, string> = {
      ReserveInventory: 'PERM-FAIL-INVENTORY',
      ChargePayment: 'PERM-FAIL',
      ScheduleShipping: 'PERM-FAIL-SHIPPING',
    };
    const permanentSteps = new Set<string>();
    for (const order of plan.orders) {
      const kind = order.attemptFault?.kind;
      const step = order.attemptFault?.step ?? '';
      switch (kind) {
        case FaultKind.PermanentFailure:
          permanentSteps.add(step);
          expect(skusOf(order)).toEqual([failingSkus[step]]);
          expect(order.expectedOutcome).toBe('Compensated');
          break;
        case FaultKind.CompensationTransient:
          expect(step).not.toBe('ReserveInventory');
          expect(skusOf(order)).toEqual([failingSkus[step], 'UNDO-FLAKY']);
          expect(order.expectedOutcome).toBe('Compensated');
          break;
        case FaultKind.CompensationRefused:
          expect(skusOf(order)).toEqual(['PERM-FAIL-SHIPPING', 'UNDO-FAIL']);
          expect(order.expectedOutcome).toBe('CompensationFailed');
          break;
        case FaultKind.RemoteOutage:
          expect(order.expectedOutcome).toBe('Error');
          break;
        default:
          expect(skusOf(order)).toEqual(
            order.operator === 'outage-retry' ? ['OUTAGE'] : [expect.stringMatching(/^SKU-\d+$/)],
          );
          expect(order.expectedOutcome).toBe(
            order.operator === undefined
              ? undefined
              : order.operator === 'outage-retry'
                ? 'Processed'
                : 'Compensated',
          );
      }
      expect(order.mustFail).toBe(order.expectedOutcome !== undefined && order.operator === undefined);
      if (order.attemptFault) {
        expect(plan.attemptFaultsByKey.get(idempotencyKeyFor(order.orderId, order.attemptFault.step))).toBe(
          kind,
        );
      }
    }
    expect([...permanentSteps].sort()).toEqual(['ChargePayment', 'ReserveInventory', 'ScheduleShipping']);
  });

  it('aims compensation faults at compensations the order will run, keyed by the compensation', () => {
    const plan = planCampaign(settings);
    const targeted = plan.orders.filter((order) => order.compensationFault);
    expect(targeted.length).toBeGreaterThanOrEqual(2);
    for (const order of targeted) {
      const fault = order.compensationFault as NonNullable<typeof order.compensationFault>;
      const attempt = order.attemptFault as NonNullable<typeof order.attemptFault>;
      expect(COMPENSATION_TARGETED_FAULTS).toContain(fault.kind);
      expect([FaultKind.PermanentFailure, FaultKind.CompensationTransient]).toContain(attempt.kind);
      expect(compensationsRun(attempt.kind, attempt.step)).toContain(fault.compensation);
      expect(plan.attemptFaultsByKey.get(`${order.orderId}:${fault.compensation}`)).toBe(fault.kind);
    }
    for (const order of plan.orders.filter((candidate) => candidate.duplicate)) {
      const target = order.duplicate?.target ?? '';
      if (target === 'start' || !target.match(/Release|Refund|Cancel/)) continue;
      const attempt = order.attemptFault as NonNullable<typeof order.attemptFault>;
      expect(compensationsRun(attempt.kind, attempt.step)).toContain(target);
    }
  });

  it('knows which compensations a failing step leads to, in the order they run', () => {
    expect(compensationsRun(FaultKind.PermanentFailure, 'ReserveInventory')).toEqual([]);
    expect(compensationsRun(FaultKind.PermanentFailure, 'ScheduleShipping')).toEqual([
      'RefundPayment',
      'ReleaseInventory',
    ]);
    expect(compensationsRun(FaultKind.CompensationRefused, 'ScheduleShipping')).toEqual(['RefundPayment']);
    expect(compensationsRun(FaultKind.RemoteOutage, 'ScheduleShipping')).toEqual([]);
    expect(compensationsRun(undefined, undefined)).toEqual([]);
  });

  it('plans nothing for disabled kinds', () => {
    const plan = planCampaign({ ...settings, enabledKinds: [FaultKind.RemoteTransient] });
    expect(plan.orders.some((order) => order.attemptFault || order.duplicate || order.operator)).toBe(false);
    expect(plan.alertBusOutages).toEqual([]);
  });

  it('plans alert bus outages counted in alerts: short then long windows, both failures, in the first half of the alerts', () => {
    const plan = planCampaign({ ...settings, orders: 40 });
    const alerts = plannedAlertCount(plan.orders);
    expect(alerts).toBeGreaterThanOrEqual(4);
    expect(plan.alertBusOutages).toHaveLength(2);
    expect(new Set(plan.alertBusOutages.map((outage) => outage.failure))).toEqual(
      new Set(['error', 'failed-entry']),
    );
    const [short, long] = plan.alertBusOutages;
    expect(short?.durationMillis).toBeGreaterThanOrEqual(2_000);
    expect(short?.durationMillis).toBeLessThanOrEqual(8_000);
    expect(long?.durationMillis).toBeGreaterThanOrEqual(65_000);
    expect(long?.durationMillis).toBeLessThanOrEqual(80_000);
    const openings = plan.alertBusOutages.map((outage) => outage.afterAlerts);
    expect(openings).toEqual([...openings].sort((left, right) => left - right));
    for (const after of openings) expect(after).toBeLessThan(Math.ceil(alerts / 2));
    expect(planCampaign({ ...settings, orders: 40 }).alertBusOutages).toEqual(plan.alertBusOutages);
    // A long run: rate 0.1 per planned alert.
    const full = planCampaign({ ...settings, orders: 1000 });
    expect(full.alertBusOutages).toHaveLength(
      Math.max(2, Math.round(plannedAlertCount(full.orders) * DEFAULT_FAULT_RATES.alertBusOutage)),
    );
  });

  it('plans operator actions on orders with no attempt fault: each kind its minimum, OUTAGE orders in the first half', () => {
    const plan = planCampaign({ ...settings, orders: 40, minOrdersPerKind: 2 });
    const withPlan = (kind: string) => plan.orders.filter((order) => order.operator === kind);
    for (const kind of ['cancel-early', 'cancel-processed', 'outage-retry']) {
      expect(withPlan(kind).length).toBeGreaterThanOrEqual(2);
    }
    for (const order of plan.orders.filter((candidate) => candidate.operator)) {
      expect(order.attemptFault).toBeUndefined();
      expect(order.mustFail).toBe(false);
    }
    for (const order of withPlan('outage-retry')) {
      expect(order.index).toBeLessThan(20);
      expect(order.request.items).toEqual([{ sku: 'OUTAGE', quantity: 1 }]);
      expect(order.expectedOutcome).toBe('Processed');
    }
    for (const order of [...withPlan('cancel-early'), ...withPlan('cancel-processed')]) {
      expect(order.expectedOutcome).toBe('Compensated');
    }
    const without = planCampaign({
      ...settings,
      orders: 40,
      enabledKinds: FAULT_KINDS.filter((kind) => kind !== FaultKind.OperatorActions),
    });
    expect(without.orders.some((order) => order.operator)).toBe(false);
  });

  it('refuses settings it cannot honour, naming the problem', () => {
    expect(() => planCampaign({ ...settings, orders: 5, minOrdersPerKind: 2 })).toThrow(
      '5 orders cannot give 11 attempt fault kinds and operator plans 2 orders each',
    );
    expect(() =>
      planCampaign({ ...settings, rates: { ...DEFAULT_FAULT_RATES, compensationAttempt: 2 } }),
    ).toThrow('rate compensationAttempt must be within [0, 1], got 2');
    expect(() => planCampaign({ ...settings, seed: -1 })).toThrow('seed must be an integer');
    expect(() => planCampaign({ ...settings, enabledKinds: ['bogus' as FaultKind] })).toThrow(
      "Unknown fault kind 'bogus'",
    );
    expect(() => planCampaign({ ...settings, enabledKinds: [FaultKind.AlertBusOutage] })).toThrow(
      'alert-bus-outage needs alerts to fail: enable one of remote-outage, compensation-refused, operator-actions',
    );
  });
});

describe('terminalBound', () => {
  it('adds up first claim, every attempt, back-offs, re-claims and the stated allowance', () => {
    const bound = terminalBound({
      timings,
      stepCount: V1_STEPS.length,
      maxClockSkewMillis: 600,
      schedulingAllowanceMillis: 60_000,
    });
    // 7 s + 3 x (24 + 2 + 0.6) s + (1 + 3) s + 2 x 7 s, the same again for 3 compensation
    // attempts (without the first claim), + 60 s
    expect(bound.totalMillis).toBe(7_000 + 79_800 + 4_000 + 14_000 + (79_800 + 4_000 + 14_000) + 60_000);
    expect(bound.terms.map((term) => term.name)).toContain(
      '3 compensation attempts x (steps x (timeout + slack) + sweep + skew)',
    );
    expect(bound.terms.map((term) => term.millis).reduce((sum, millis) => sum + millis, 0)).toBe(
      bound.totalMillis,
    );
  });

  it('allows half the per-step slack as relative clock skew', () => {
    expect(maxSafeRelativeSkewMillis(timings)).toBe(1_000);
  });
});

describe('percentiles and recovery latency', () => {
  it('uses the nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 95)).toBe(95);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile([5], 99)).toBe(5);
    expect(percentile([], 50)).toBeUndefined();
    expect(() => percentile(values, 0)).toThrow('percentile must be within (0, 100]');
    expect(summarize([3, 1, 2])).toEqual({ count: 3, p50: 2, p95: 3, p99: 3 });
  });

  it('measures from the first fault that hit an order to its terminal time, per kind or overall', () => {
    const faults = [
      { kind: FaultKind.RemoteLatency, at: 1_000, orderIds: ['a'] },
      { kind: FaultKind.RuntimeRestart, at: 4_000, orderIds: ['a', 'b'] },
      { kind: FaultKind.ClockSkew, at: 500, orderIds: [] },
    ];
    const orders = [
      { orderId: 'a', acceptedAt: 0, terminalAt: 11_000, mustFail: false },
      { orderId: 'b', acceptedAt: 0, terminalAt: 9_000, mustFail: false },
      { orderId: 'c', acceptedAt: 0, mustFail: false },
    ];
    expect(recoveryLatencies(faults, orders)).toEqual([10_000, 5_000]);
    expect(recoveryLatencies(faults, orders, FaultKind.RuntimeRestart)).toEqual([7_000, 5_000]);
  });
});

describe('summary', () => {
  it('aligns table columns', () => {
    expect(
      renderTable(
        ['name', 'n'],
        [
          ['a', '1'],
          ['bbb', '22'],
        ],
      ),
    ).toBe('name  n\n----  --\na      1\nbbb   22');
  });

  it('shows orders, every fault kind, the bound, each verdict and the result', () => {
    const snapshot = {
      timings,
      terminalBoundMillis: 100_000,
      orders: [{ orderId: 'a', acceptedAt: 0, terminalAt: 5_000, mustFail: false }],
      finalRecords: [{ orderId: 'a', processState: 'Pending', failureCount: 0, attempt: 0, steps: {} }],
      samples: [],
      ledger: [],
      undos: [],
      calls: [],
      retryBudget: 36,
      admission: { limit: 4, samples: [], refusedAfterAcceptance: [] },
      alerts: [],
      faults: [{ kind: FaultKind.RemoteTransient, at: 1_000, orderIds: ['a'] }],
      enabledKinds: [FaultKind.RemoteTransient],
      restarts: [],
      minProcessedShare: 0,
      appDenials: [],
      operator: { identity: 'arn:aws:iam::000000000000:user/operator', actions: [] },
      clientMessages: { clients: [], deliveries: [], probes: [], deduplicationWindowMillis: 300_000 },
    };
    const text = renderSummary({
      snapshot,
      result: checkCampaign(snapshot),
      bound: terminalBound({ timings, stepCount: 3, maxClockSkewMillis: 0, schedulingAllowanceMillis: 0 }),
      seed: 9,
      wallMillis: 12_345,
    });
    expect(text).toContain('seed 9, wall time 12.3 s');
    for (const kind of FAULT_KINDS) expect(text).toContain(kind);
    expect(text).toMatch(/remote-transient\s+on\s+1\s+1\s+4000 ms/);
    expect(text).toMatch(/FAIL\s+invariant\s+terminal-within-bound\s+1/);
    expect(text).toContain('a: still Pending (attempt 0, FailureCount 0)');
    expect(text.trim().endsWith('RESULT: FAIL')).toBe(true);
    expect(text).toContain('alarms fired: none');
  });

  it('counts the alarms fired from their notifications in the inbox, not the order alerts', () => {
    const alarm = (name: string, newState: string) => ({
      detailType: 'CloudWatch alarm notification',
      alarm: { name, newState },
    });
    expect(
      alarmsLine({
        alerts: [
          { detailType: 'OrderFailed', orderId: 'a' },
          alarm('AdmissionRejections', 'ALARM'),
          alarm('DeadLettersOrderStarterStartRequestsDeadLetterQueue', 'ALARM'),
          alarm('AdmissionRejections', 'OK'),
          alarm('AdmissionRejections', 'ALARM'),
        ],
      }),
    ).toBe('alarms fired: AdmissionRejections 2, DeadLettersOrderStarterStartRequestsDeadLetterQueue 1');
  });
});
