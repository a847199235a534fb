import { createHash } from 'node:crypto';
import { DELIVERY_FAULT_KINDS } from '../../../../lib/chaos/deliveries/faults';
import { commitOf, DeliveryFaultInjector, serviceOf } from '../../../../lib/chaos/deliveries/injector';
import type { DeliveryCampaignPlan } from '../../../../lib/chaos/deliveries/plan';
import { type InterceptedReply, type InvocationStart, VirtualClock } from '../../../../lib/local-runtime';

const ok: InterceptedReply = { status: 200, headers: {}, body: '{}' };

function planWith(faults: DeliveryCampaignPlan['deliveries'][number]['faults']): DeliveryCampaignPlan {
  return {
    seed: 1,
    garbage: [],
    deliveries: [
      {
        index: 0,
        deliveryId: 'd1',
        scenario: 'happy',
        request: {
          deliveryId: 'd1',
          ownerId: 'o',
          pickup: { lat: 0, lon: 0 },
          dropoff: { lat: 0, lon: 0 },
          packages: [],
        },
        faults,
        allowedOutcomes: ['Delivered', 'Failed'],
      },
    ],
  };
}

const commit = (marker: string) =>
  JSON.stringify({
    TransactItems: [
      { Put: { TableName: 'pkg-table', Item: { pk: { S: `MSG#${marker}` } } } },
      { Put: { TableName: 'pkg-table', Item: { pk: { S: 'PACKAGES#d1' } } } },
    ],
  });
const dynamoRequest = (marker: string) => ({
  method: 'POST',
  path: '/',
  headers: { 'x-amz-target': 'DynamoDB_20120810.TransactWriteItems' },
  body: commit(marker),
});

function invocation(terminated: string[]): InvocationStart {
  return {
    spec: {
      logicalId: 'PackageServiceFn',
      environment: { TABLE_NAME: 'pkg-table', POWERTOOLS_SERVICE_NAME: 'package' },
    },
    requestId: 'r1',
    event: { Records: [{ body: JSON.stringify({ deliveryId: 'd1' }) }] },
    terminate: async () => {
      terminated.push('r1');
    },
  } as unknown as InvocationStart;
}

/** A drone scheduler invocation starts (its fleet reads are the contended ones). */
function droneSchedulerStarts(hooks: ReturnType<DeliveryFaultInjector['hooks']>): void {
  hooks.onInvocation?.({
    spec: {
      logicalId: 'DroneSchedulerFn',
      environment: { TABLE_NAME: 'drone-table', POWERTOOLS_SERVICE_NAME: 'drone-scheduler' },
    },
    requestId: 'r9',
    event: { Records: [] },
    terminate: async () => {},
  } as unknown as InvocationStart);
}

/** A fleet read of one drone from `table`. */
const fleetRead = (table: string) => ({
  method: 'POST',
  path: '/',
  headers: { 'x-amz-target': 'DynamoDB_20120810.BatchGetItem' },
  body: JSON.stringify({ RequestItems: { [table]: { Keys: [{ pk: { S: 'DRONE#drone-1' } }] } } }),
});

describe('delivery fault injector', () => {
  it('reads the table, delivery and marker of a commit, and the service of a function', () => {
    expect(commitOf(commit('ingestion:d1:1'))).toEqual({
      table: 'pkg-table',
      deliveryId: 'd1',
      markerId: 'ingestion:d1:1',
    });
    expect(serviceOf({}, 'DroneDeliveryDroneSchedulerFnABC')).toBe('drone-scheduler');
    expect(serviceOf({ POWERTOOLS_SERVICE_NAME: 'delivery' }, 'X')).toBe('delivery');
    expect(serviceOf({}, 'PackageOutboxRelayFn')).toBeUndefined();
  });

  it('fails the first message of a delivery to the planned service as many times as planned, then lets it through', async () => {
    const injector = new DeliveryFaultInjector({
      plan: planWith({ dependencyTimeout: { service: 'package', mode: 'error', failures: 2 } }),
      enabledKinds: DELIVERY_FAULT_KINDS,
      hangMillis: 10,
    });
    const hooks = injector.hooks();
    hooks.onInvocation?.(invocation([]));
    const statuses: number[] = [];
    for (const marker of ['m1', 'm1', 'm1', 'm2']) {
      const reply = await hooks.awsApi?.dynamodb?.(dynamoRequest(marker), async () => ok);
      statuses.push(reply === 'drop' ? 0 : (reply?.status ?? -1));
    }
    expect(statuses).toEqual([500, 500, 200, 200]);
    expect(injector.firedCount('dependency-timeout')).toBe(2);
  });

  it('kills the consumer holding the delivery right after its commit succeeded, once', async () => {
    const terminated: string[] = [];
    const injector = new DeliveryFaultInjector({
      plan: planWith({ consumerKilled: { service: 'package' } }),
      enabledKinds: DELIVERY_FAULT_KINDS,
      hangMillis: 10,
    });
    const hooks = injector.hooks();
    hooks.onInvocation?.(invocation(terminated));
    await hooks.awsApi?.dynamodb?.(dynamoRequest('m1'), async () => ok);
    await hooks.awsApi?.dynamodb?.(dynamoRequest('m1'), async () => ok);
    expect(terminated).toEqual(['r1']);
    expect(injector.events.map((event) => event.kind)).toEqual(['consumer-killed-after-effect']);
  });

  it('records the dead letters remediation receives under its own key, and answers the relay PutEvents with a failed entry', async () => {
    const injector = new DeliveryFaultInjector({
      plan: planWith({ relayFailedEntry: { calls: 1 } }),
      enabledKinds: DELIVERY_FAULT_KINDS,
      hangMillis: 10,
    });
    const hooks = injector.hooks();
    const deadLetter = {
      body: JSON.stringify({ deliveryId: 'd1' }),
      attributes: { MessageDeduplicationId: 'e1:PACKAGE_TOO_HEAVY' },
      messageAttributes: {
        reasonCode: { stringValue: 'PACKAGE_TOO_HEAVY' },
        deadLetteredBy: { stringValue: 'package' },
      },
    };
    // remediation receives it twice (a deferral brings it back): one dead letter
    for (const requestId of ['r1', 'r2']) {
      hooks.onInvocation?.({
        spec: { logicalId: 'RemediationFn', environment: { POWERTOOLS_SERVICE_NAME: 'remediation' } },
        requestId,
        event: { Records: [deadLetter, { ...deadLetter, messageAttributes: {} }] },
        terminate: async () => {},
      } as unknown as InvocationStart);
    }
    expect(injector.deadLetters).toEqual([
      {
        service: 'package',
        // remediation's DEADLETTER# key: the SHA-256 of the deduplication id
        key: createHash('sha256').update('e1:PACKAGE_TOO_HEAVY').digest('hex'),
        deliveryId: 'd1',
        reasonCode: 'PACKAGE_TOO_HEAVY',
      },
    ]);
    const putEvents = {
      method: 'POST',
      path: '/',
      headers: { 'x-amz-target': 'AWSEvents.PutEvents' },
      body: JSON.stringify({
        Entries: [{ Detail: JSON.stringify({ deliveryId: 'd1', eventId: 'delivery:d1:1' }) }],
      }),
    };
    const first = await hooks.awsApi?.eventbridge?.(putEvents, async () => ok);
    const second = await hooks.awsApi?.eventbridge?.(putEvents, async () => ok);
    expect(first !== 'drop' && JSON.parse(first?.body ?? '{}').FailedEntryCount).toBe(1);
    expect(second).toBe(ok);
  });

  it("answers the drone scheduler's fleet reads late (contention), and no one else's", async () => {
    const injector = new DeliveryFaultInjector({
      plan: planWith({}),
      enabledKinds: DELIVERY_FAULT_KINDS,
      hangMillis: 10,
      fleetReadDelayMillis: 50,
    });
    const hooks = injector.hooks();
    droneSchedulerStarts(hooks);
    const timed = async (table: string) => {
      const started = Date.now();
      await hooks.awsApi?.dynamodb?.(fleetRead(table), async () => ok);
      return Date.now() - started;
    };
    expect(await timed('drone-table')).toBeGreaterThanOrEqual(45);
    expect(await timed('pkg-table')).toBeLessThan(45);
    expect(injector.events).toEqual([]);
  });

  it('waits for a fleet read partner on the machine too when the run is on a virtual clock', async () => {
    // The clock jumps the limit as soon as nothing holds it; the partner (another consumer's
    // invocation) comes in real time, so a lone read waits the limit of wall time as well.
    const clock = new VirtualClock();
    const injector = new DeliveryFaultInjector({
      plan: planWith({}),
      enabledKinds: DELIVERY_FAULT_KINDS,
      hangMillis: 10,
      fleetReadDelayMillis: 200,
      clock,
    });
    const hooks = injector.hooks();
    droneSchedulerStarts(hooks);
    const started = Date.now();
    const clockStarted = clock.now();
    await hooks.awsApi?.dynamodb?.(fleetRead('drone-table'), async () => ok);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(clock.now() - clockStarted).toBeGreaterThanOrEqual(200);
    clock.stop();
  });

  it("waits for a fleet read partner on the run's clock alone when it is seeded (a replay decides the same)", async () => {
    // A minute of the clock: waited on the machine too, the read would outlast the test's timeout.
    const clock = new VirtualClock({ seed: 3 });
    const injector = new DeliveryFaultInjector({
      plan: planWith({}),
      enabledKinds: DELIVERY_FAULT_KINDS,
      hangMillis: 10,
      fleetReadDelayMillis: 60_000,
      clock,
    });
    const hooks = injector.hooks();
    droneSchedulerStarts(hooks);
    const clockStarted = clock.now();
    await hooks.awsApi?.dynamodb?.(fleetRead('drone-table'), async () => ok);
    expect(clock.now() - clockStarted).toBe(60_000);
    clock.stop();
  });
});
