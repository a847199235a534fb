import { ALERT_EVENT_SOURCE } from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import { FaultKind } from '../../../../lib/chaos/orders/faults';
import { FaultInjector } from '../../../../lib/chaos/orders/injector';
import type { CampaignPlan, OrderPlan } from '../../../../lib/chaos/orders/plan';
import type { AssemblyFacts, AssemblyFunction } from '../../../../lib/harness/assembly';
import { type InterceptedReply, type SqsDelivery, VirtualClock } from '../../../../lib/local-runtime';

const fn = (logicalId: string, role: AssemblyFunction['role']): AssemblyFunction => ({
  logicalId,
  stackName: 'SchedulerAgentSupervisor',
  role,
  assetDir: '/nowhere',
  environment: {},
  timeoutSeconds: 10,
});

const facts = {
  supervisor: fn('SupervisorFn', 'supervisor'),
  starter: fn('StarterFn', 'starter'),
  agents: [fn('ChargePaymentAgentFn', 'agent')],
} as unknown as AssemblyFacts;

const request = { customerId: 'c', items: [], totalCents: 1, currency: 'EUR' };

function order(orderId: string, extra: Partial<OrderPlan>): OrderPlan {
  return { index: 0, orderId, request: { orderId, ...request }, mustFail: false, ...extra };
}

/** o-refused: compensation-refused; o-flaky: compensation-transient whose refund's reply is dropped. */
const plan: CampaignPlan = {
  seed: 1,
  orders: [
    order('o-perm', { attemptFault: { kind: FaultKind.PermanentFailure, step: 'ChargePayment' } }),
    order('o-refused', { attemptFault: { kind: FaultKind.CompensationRefused, step: 'ScheduleShipping' } }),
    order('o-flaky', {
      attemptFault: { kind: FaultKind.CompensationTransient, step: 'ScheduleShipping' },
      compensationFault: { kind: FaultKind.TaskSuccessDropped, compensation: 'RefundPayment' },
      duplicate: { target: 'RefundPayment', delayMillis: 1_500 },
    }),
  ],
  alertBusOutages: [],
  attemptFaultsByKey: new Map([
    ['o-perm:ChargePayment', FaultKind.PermanentFailure],
    ['o-refused:ScheduleShipping', FaultKind.CompensationRefused],
    ['o-flaky:ScheduleShipping', FaultKind.CompensationTransient],
    ['o-flaky:RefundPayment', FaultKind.TaskSuccessDropped],
  ]),
};

function injector(): FaultInjector {
  return new FaultInjector({
    plan,
    facts,
    enabledKinds: [
      FaultKind.PermanentFailure,
      FaultKind.CompensationRefused,
      FaultKind.CompensationTransient,
      FaultKind.TaskSuccessDropped,
      FaultKind.SqsDuplicate,
    ],
    remoteTransientPerCall: 0,
    holdMillis: 10,
    supervisorClockOffsetMillis: 0,
    starterClockOffsetMillis: 0,
  });
}

const reply = (status: number): InterceptedReply => ({ status, headers: {}, body: '{}' });

async function remoteCall(target: FaultInjector, path: string, key: string, status: number) {
  const hooks = target.hooks();
  return hooks.functionUrl?.(
    { method: 'POST', path, headers: { 'idempotency-key': key }, body: '{}' },
    async () => reply(status),
  );
}

describe('order fault injector and compensations', () => {
  it('records a permanent failure only for the planned step refused by its own service', async () => {
    const target = injector();
    await remoteCall(target, '/payments/charges', 'o-perm:ChargePayment', 422);
    // A late original call refused because its key was compensated is not the planned fault.
    await remoteCall(target, '/shipping/shipments', 'o-perm:ScheduleShipping', 422);
    expect(target.events.map((event) => [event.kind, event.orderIds])).toEqual([
      [FaultKind.PermanentFailure, ['o-perm']],
    ]);
  });

  it('records a refused compensation and a flaky one from the service answers to compensation paths', async () => {
    const target = injector();
    await remoteCall(target, '/shipping/shipments', 'o-refused:ScheduleShipping', 422);
    await remoteCall(target, '/payments/refunds', 'o-refused:RefundPayment', 422);
    await remoteCall(target, '/payments/refunds', 'o-flaky:RefundPayment', 503);
    await remoteCall(target, '/payments/refunds', 'o-flaky:RefundPayment', 201);
    expect(target.events.map((event) => [event.kind, event.orderIds])).toEqual([
      [FaultKind.CompensationRefused, ['o-refused']],
      [FaultKind.CompensationTransient, ['o-flaky']],
    ]);
  });

  it("drops the SendTaskSuccess of a compensation keyed by the compensation's idempotency key, once", async () => {
    const target = injector();
    const forwarded: string[] = [];
    const send = (key: string) =>
      target.hooks().stepFunctionsApi?.(
        {
          method: 'POST',
          path: '/',
          headers: { 'x-amz-target': 'AWSStepFunctions.SendTaskSuccess' },
          body: JSON.stringify({ taskToken: 't', output: JSON.stringify({ idempotencyKey: key }) }),
        },
        async () => {
          forwarded.push(key);
          return reply(200);
        },
      );
    await send('o-flaky:ChargePayment');
    await send('o-flaky:RefundPayment');
    await send('o-flaky:RefundPayment');
    expect(forwarded).toEqual(['o-flaky:ChargePayment', 'o-flaky:RefundPayment']);
    expect(target.events.map((event) => event.kind)).toEqual([FaultKind.TaskSuccessDropped]);
  });

  it('duplicates the compensation request it was planned on, not the step of the same agent', () => {
    const target = injector();
    const delivery = (operation: string, action: string): SqsDelivery =>
      ({
        mappingLogicalId: 'Mapping',
        functionLogicalId: 'ChargePaymentAgentFn',
        message: {
          Body: JSON.stringify({ orderId: 'o-flaky', step: 'ChargePayment', action, operation, attempt: 1 }),
        },
      }) as SqsDelivery;
    const duplicate = target.hooks().duplicateDelivery;
    expect(duplicate?.(delivery('ChargePayment', 'perform'))).toBeUndefined();
    expect(duplicate?.(delivery('RefundPayment', 'compensate'))).toBe(1_500);
    expect(duplicate?.(delivery('RefundPayment', 'compensate'))).toBeUndefined();
  });
});

describe('alert bus outages (alert-bus-outage)', () => {
  let clock = 0;
  const outagePlan: CampaignPlan = {
    ...plan,
    alertBusOutages: [
      { afterAlerts: 1, durationMillis: 1_000, failure: 'failed-entry' },
      { afterAlerts: 2, durationMillis: 1_000, failure: 'error' },
    ],
  };
  const withOutages = (enabledKinds: FaultKind[]) =>
    new FaultInjector({
      plan: outagePlan,
      facts,
      enabledKinds,
      remoteTransientPerCall: 0,
      holdMillis: 10,
      supervisorClockOffsetMillis: 0,
      starterClockOffsetMillis: 0,
      now: () => clock,
    });
  const putEvents = (source: string, detail: Record<string, unknown>) => ({
    method: 'POST',
    path: '/',
    headers: { 'x-amz-target': 'AWSEvents.PutEvents' },
    body: JSON.stringify({
      Entries: [
        {
          EventBusName: 'AlertBus',
          Source: source,
          DetailType: 'OrderFailed',
          Detail: JSON.stringify(detail),
        },
      ],
    }),
  });
  const accepted = async (): Promise<InterceptedReply> => ({
    status: 200,
    headers: {},
    body: JSON.stringify({ FailedEntryCount: 0, Entries: [{ EventId: 'e' }] }),
  });
  const alert = (n: number) => ({ alertId: `o${n}:OrderFailed:1`, orderId: `o${n}` });

  it('fails alert PutEvents while a window is open, opening each at a new alert once enough were seen', async () => {
    clock = 0;
    const target = withOutages([FaultKind.AlertBusOutage]);
    const eventbridge = target.hooks().awsApi?.eventbridge;
    if (!eventbridge) throw new Error('no eventbridge hook');
    const send = async (at: number, detail: Record<string, unknown>, source = ALERT_EVENT_SOURCE) => {
      clock = at;
      const answer = await eventbridge(putEvents(source, detail), accepted);
      if (answer === 'drop') throw new Error('dropped');
      return [answer.status, JSON.parse(answer.body).FailedEntryCount ?? answer.body];
    };
    // The first alert opens nothing (window 1 waits for one alert seen); the second opens it.
    expect(await send(0, alert(1))).toEqual([200, 0]);
    expect(await send(10, alert(2))).toEqual([200, 1]);
    // Within the window every alert fails, a redelivery of a delivered one too...
    expect(await send(20, alert(1))).toEqual([200, 1]);
    // ...but not what is no outbox alert (no alertId), nor another source's event.
    expect(await send(30, { orderId: 'o9', reason: 'conflict' })).toEqual([200, 0]);
    expect(await send(40, alert(5), 'drone-delivery')).toEqual([200, 0]);
    // Closed: the retried alert goes through; window 2 opens only on a new alert.
    expect(await send(1_100, alert(2))).toEqual([200, 0]);
    expect((await send(1_200, alert(3)))[0]).toBe(500);
    expect(await send(2_300, alert(3))).toEqual([200, 0]);
    expect(await send(2_400, alert(4))).toEqual([200, 0]);
    expect(target.events.map((event) => [event.kind, event.orderIds])).toEqual([
      [FaultKind.AlertBusOutage, ['o2']],
      [FaultKind.AlertBusOutage, ['o1']],
      [FaultKind.AlertBusOutage, ['o3']],
    ]);
    expect(target.alertBus?.stats()).toEqual({
      windowsOpened: 2,
      windowsPlanned: 2,
      failedCalls: { error: 1, 'failed-entry': 2 },
      // o1's failed publish was a redelivery: it had been delivered already.
      alertsHit: 2,
      alertsHitDelivered: 2,
      deliveryDelaysMillis: [1_090, 1_100],
      alertsAccepted: 4,
      alertEntriesAccepted: 4,
    });
  });

  it('adds no EventBridge proxy when the kind is off', () => {
    const target = withOutages([FaultKind.RemoteOutage]);
    expect(target.hooks().awsApi).toBeUndefined();
    expect(target.alertBus).toBeUndefined();
  });
});

describe('held replies on the run clock', () => {
  const outagePlan: CampaignPlan = {
    seed: 1,
    orders: [order('o-out', { attemptFault: { kind: FaultKind.RemoteOutage, step: 'ChargePayment' } })],
    alertBusOutages: [],
    attemptFaultsByKey: new Map([['o-out:ChargePayment', FaultKind.RemoteOutage]]),
  };
  const START = Date.parse('2030-01-01T00:00:00Z');
  const outageInjector = (clock: VirtualClock) =>
    new FaultInjector({
      plan: outagePlan,
      facts,
      enabledKinds: [FaultKind.RemoteOutage],
      remoteTransientPerCall: 0,
      holdMillis: 120_000,
      supervisorClockOffsetMillis: 0,
      starterClockOffsetMillis: 0,
      clock,
      now: () => clock.now(),
    });

  it('answers a held call once the hold has passed on the clock, and records the firing at its time', async () => {
    const clock = new VirtualClock({ startMillis: START });
    const target = outageInjector(clock);
    const answer = await remoteCall(target, '/payments/charges', 'o-out:ChargePayment', 200);
    expect(answer).toMatchObject({ status: 504 });
    expect(clock.now() - START).toBe(120_000);
    expect(target.events).toEqual([{ kind: FaultKind.RemoteOutage, at: START, orderIds: ['o-out'] }]);
    clock.stop();
  });

  it('never answers a held call once the held replies are cancelled (the runtime is going down)', async () => {
    const clock = new VirtualClock({ startMillis: START });
    const target = outageInjector(clock);
    let answered = false;
    void remoteCall(target, '/payments/charges', 'o-out:ChargePayment', 200).then(() => {
      answered = true;
    });
    await clock.sleep(1_000);
    target.cancelHeldReplies();
    await clock.sleep(600_000);
    expect(answered).toBe(false);
    clock.stop();
  });
});
