/**
 * Admission control against DynamoDB Local with the real handlers: the limit holds under a race,
 * a refusal stores nothing and says when to come back, a slot is released exactly once (stream
 * consumer twice, then the reconciler), and a lost release is healed by the reconciler.
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type AdmissionSettings,
  admissionShardCaps,
  DRAIN_ITEM_KEY,
  OrderMetric,
  RETRY_AFTER_MAX_SECONDS,
} from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import { captureStdout, metricSum } from '../agents/harness';
import {
  type ApiHandler,
  admissionCounters,
  admissionHandlers,
  type CoreResources,
  createResources,
  drainBodies,
  drainQueue,
  HANDLERS,
  handlerEnv,
  lambdaContext,
  loadHandler,
  postOrderEvent,
  type ReconcilerHandler,
  type StreamHandler,
  scanAll,
  sleep,
  stateItem,
  stateStreamEventOf,
  useCoreWorld,
  validOrder,
} from './harness';

jest.setTimeout(120_000);

const world = useCoreWorld();

let resources: CoreResources;
beforeEach(async () => {
  resources = await createResources(world);
});

const handlers = (admission: Partial<AdmissionSettings>) => admissionHandlers(resources, admission);

function post(submit: ApiHandler, orderId: string, overrides: Record<string, unknown> = {}) {
  return submit(postOrderEvent(JSON.stringify(validOrder(orderId, overrides))), lambdaContext());
}

const counters = () => admissionCounters(world, resources);

async function inFlightTotal(): Promise<number> {
  return Object.values(await counters()).reduce((sum, counter) => sum + (counter.InFlight ?? 0), 0);
}

/** Moves a record to a terminal state the way the scheduler or the supervisor would (UpdatedAt too). */
async function settle(orderId: string, processState: string, updatedAt = new Date().toISOString()) {
  await world.doc.send(
    new UpdateCommand({
      TableName: resources.stateTable,
      Key: { OrderID: orderId },
      UpdateExpression: 'SET ProcessState = :state, UpdatedAt = :at REMOVE DueShard',
      ExpressionAttributeValues: { ':state': processState, ':at': updatedAt },
    }),
  );
}

const streamEventOf = (orderId: string, sequenceNumber: string) =>
  stateStreamEventOf(world, resources, orderId, sequenceNumber);

describe('the limit under a race', () => {
  it('200 concurrent submissions against a limit of 50: exactly 50 accepted, 150 refused with Retry-After, nothing stored for them', async () => {
    const { submit } = handlers({ limit: 50, shards: 4 });
    const ids = Array.from({ length: 200 }, (_, index) => `race-${index}`);
    const responses = await Promise.all(ids.map((id) => post(submit, id)));

    const accepted = ids.filter((_, index) => responses[index]?.statusCode === 202);
    const refused = responses.filter((response) => response.statusCode === 429);
    expect(
      responses.map((response) => response.statusCode).filter((code) => code !== 202 && code !== 429),
    ).toEqual([]);
    expect(accepted).toHaveLength(50);
    expect(refused).toHaveLength(150);
    for (const response of refused) {
      // No release observed yet: the longest wait.
      expect(response.headers?.['Retry-After']).toBe(String(RETRY_AFTER_MAX_SECONDS));
      expect(JSON.parse(response.body)).toEqual({
        message: expect.stringMatching(/Too many orders in progress/),
      });
    }

    const shards = await counters();
    const caps = admissionShardCaps(50, 4);
    expect(Object.keys(shards).sort()).toEqual(['shard#0', 'shard#1', 'shard#2', 'shard#3']);
    for (const [key, counter] of Object.entries(shards)) {
      expect(counter.InFlight).toBe(caps[Number(key.slice(6))]);
      expect(counter.Cap).toBe(caps[Number(key.slice(6))]);
    }
    expect(await inFlightTotal()).toBe(50);

    const stored = (await scanAll(world, resources.stateTable)).map((item) => String(item.OrderID)).sort();
    expect(stored).toEqual([...accepted].sort());
    expect((await scanAll(world, resources.ordersTable)).map((item) => String(item.OrderID)).sort()).toEqual(
      [...accepted].sort(),
    );
    const starts = await drainBodies<{ orderId: string }>(world, resources.startQueueUrl);
    expect(starts.map((start) => start.orderId).sort()).toEqual([...accepted].sort());
    // Each record names the shard whose counter holds its slot.
    const holders = new Map<string, number>();
    for (const item of await scanAll(world, resources.stateTable)) {
      holders.set(String(item.AdmissionShard), (holders.get(String(item.AdmissionShard)) ?? 0) + 1);
    }
    for (const [key, counter] of Object.entries(shards)) expect(holders.get(key)).toBe(counter.InFlight);
  });

  it('answers a duplicate (200) and a conflict (409) from what is stored even when every slot is taken, taking none', async () => {
    const { submit } = handlers({ limit: 2, shards: 2 });
    expect((await post(submit, 'full-a')).statusCode).toBe(202);
    expect((await post(submit, 'full-b')).statusCode).toBe(202);
    expect((await post(submit, 'full-c')).statusCode).toBe(429);
    await drainQueue(world, resources.startQueueUrl);

    expect((await post(submit, 'full-a')).statusCode).toBe(200);
    expect((await post(submit, 'full-a', { totalCents: 1 })).statusCode).toBe(409);
    expect(await drainQueue(world, resources.conflictQueueUrl)).toHaveLength(1);
    expect(await inFlightTotal()).toBe(2);
    expect(await drainQueue(world, resources.startQueueUrl)).toEqual([]);
    expect(await stateItem(world, resources, 'full-c')).toBeUndefined();
  });

  it('derives Retry-After from the observed drain, clamped', async () => {
    const { submit } = handlers({ limit: 1, shards: 1 });
    expect((await post(submit, 'drain-a')).statusCode).toBe(202);
    const drain = (intervalMillisEwma: number) =>
      world.doc.send(
        new PutCommand({
          TableName: resources.admissionTable,
          Item: {
            Pk: DRAIN_ITEM_KEY,
            IntervalMillisEwma: intervalMillisEwma,
            LastReleaseAt: Date.now(),
            Version: 3,
          },
        }),
      );
    await drain(4_200);
    expect((await post(submit, 'drain-b')).headers?.['Retry-After']).toBe('5');
    await drain(50);
    expect((await post(submit, 'drain-b')).headers?.['Retry-After']).toBe('1');
    await drain(3_600_000);
    expect((await post(submit, 'drain-b')).headers?.['Retry-After']).toBe('60');
  });
});

describe('release', () => {
  it('releases a slot exactly once: the consumer twice on the same stream record, then the reconciler', async () => {
    const { submit, release, reconcile } = handlers({ limit: 1, shards: 1, reconcileGraceSeconds: 1 });
    expect((await post(submit, 'once')).statusCode).toBe(202);
    expect((await post(submit, 'waiting')).statusCode).toBe(429);
    await settle('once', 'Processed');
    const event = await streamEventOf('once', '100');

    expect(await release(event, lambdaContext())).toEqual({ batchItemFailures: [] });
    expect(await release(event, lambdaContext())).toEqual({ batchItemFailures: [] });
    await sleep(1_100);
    expect(await reconcile({}, lambdaContext())).toMatchObject({ examined: 0, released: 0 });

    expect((await counters())['shard#0']).toMatchObject({ InFlight: 0, Released: 1 });
    expect(await stateItem(world, resources, 'once')).not.toHaveProperty('AdmissionShard');
    // The first release started the drain clock (one release says nothing about a rate yet).
    const { Item: drain } = await world.doc.send(
      new GetCommand({ TableName: resources.admissionTable, Key: { Pk: DRAIN_ITEM_KEY } }),
    );
    expect(drain).toMatchObject({ Version: 1, LastReleaseAt: expect.any(Number) });
    expect(drain).not.toHaveProperty('IntervalMillisEwma');

    // Acceptance resumes once the slot is back.
    expect((await post(submit, 'waiting')).statusCode).toBe(202);
  });

  it('leaves a record that is no longer terminal (an operator retry came first) holding its slot', async () => {
    const { submit, release } = handlers({ limit: 3, shards: 1 });
    expect((await post(submit, 'moved-on')).statusCode).toBe(202);
    await settle('moved-on', 'Error');
    const event = await streamEventOf('moved-on', '200');
    await settle('moved-on', 'Pending');
    expect(await release(event, lambdaContext())).toEqual({ batchItemFailures: [] });
    expect(await inFlightTotal()).toBe(1);
    expect(await stateItem(world, resources, 'moved-on')).toMatchObject({ AdmissionShard: 'shard#0' });
  });

  it('reports the failing record so the stream retries from it when the release cannot be written', async () => {
    const { submit } = handlers({ limit: 3, shards: 1 });
    expect((await post(submit, 'retry-me')).statusCode).toBe(202);
    await settle('retry-me', 'Compensated');
    const broken = loadHandler<{ handler: StreamHandler }>(
      HANDLERS.admissionRelease,
      handlerEnv(resources, { env: { ADMISSION_TABLE_NAME: 'no-such-admission-table' } }),
    ).handler;
    expect(await broken(await streamEventOf('retry-me', '300'), lambdaContext())).toEqual({
      batchItemFailures: [{ itemIdentifier: '300' }],
    });
    expect(await inFlightTotal()).toBe(1);
  });

  it('heals a lost release: the reconciler releases terminal records past the grace period, once, and nothing else', async () => {
    const { submit, reconcile } = handlers({ limit: 10, shards: 2, reconcileGraceSeconds: 30 });
    for (const id of ['lost-1', 'lost-2', 'recent', 'running']) {
      expect((await post(submit, id)).statusCode).toBe(202);
    }
    const longAgo = new Date(Date.now() - 120_000).toISOString();
    await settle('lost-1', 'Processed', longAgo);
    await settle('lost-2', 'CompensationFailed', longAgo);
    // Terminal only just now: its stream release may still be on its way.
    await settle('recent', 'Error');

    const first = await reconcile({}, lambdaContext());
    expect(first).toMatchObject({ examined: 2, released: 2, alreadyReleased: 0, errors: 0 });
    expect(await reconcile({}, lambdaContext())).toMatchObject({ examined: 0, released: 0 });

    expect(await inFlightTotal()).toBe(2);
    for (const id of ['lost-1', 'lost-2']) {
      expect(await stateItem(world, resources, id)).not.toHaveProperty('AdmissionShard');
    }
    for (const id of ['recent', 'running']) {
      expect(await stateItem(world, resources, id)).toHaveProperty('AdmissionShard');
    }
    // Only Query on the index: the reconciler never scans.
    expect(world.dynamo.callsTo('Scan')).toEqual([]);
  });

  it('reports the slots held across the counters as OrdersInFlight after each run', async () => {
    const { submit } = handlers({ limit: 10, shards: 2, reconcileGraceSeconds: 30 });
    for (const id of ['gauge-1', 'gauge-2', 'gauge-3']) {
      expect((await post(submit, id)).statusCode).toBe(202);
    }
    // The core harness turns metrics off; this run reads one.
    const reconcile = loadHandler<{ handler: ReconcilerHandler }>(HANDLERS.admissionReconciler, {
      ...handlerEnv(resources, { admission: { limit: 10, shards: 2, reconcileGraceSeconds: 30 } }),
      POWERTOOLS_METRICS_DISABLED: 'false',
    }).handler;
    const output = captureStdout();
    const mark = output.mark();
    try {
      await reconcile({}, lambdaContext());
    } finally {
      output.restore();
      process.env.POWERTOOLS_METRICS_DISABLED = 'true';
    }
    expect(await inFlightTotal()).toBe(3);
    expect(metricSum(output.since(mark), OrderMetric.OrdersInFlight)).toBe(3);
  });
});
