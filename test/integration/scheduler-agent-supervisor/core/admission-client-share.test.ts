/**
 * A client's share of admission against DynamoDB Local with the real handlers: under a race, one
 * client flooding holds exactly its share and the other's orders are all admitted; the refusal
 * names the client's share; a slot of the share is released exactly once with the limit's (the
 * stream consumer twice, then the reconciler, which finds it through the index and a read); an
 * order of a client without a share takes no client slot.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AdmissionSettings } from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import {
  type ApiHandler,
  admissionHandlers,
  type CoreResources,
  createResources,
  lambdaContext,
  postOrderEvent,
  scanAll,
  sleep,
  stateItem,
  stateStreamEventOf,
  TEST_CLIENTS,
  useCoreWorld,
  validOrder,
} from './harness';

jest.setTimeout(120_000);

const world = useCoreWorld();
const FLOODER = TEST_CLIENTS.first;
const OTHER = TEST_CLIENTS.second;

let resources: CoreResources;
beforeEach(async () => {
  resources = await createResources(world);
});

const handlers = (admission: Partial<AdmissionSettings>) => admissionHandlers(resources, admission);

const post = (submit: ApiHandler, client: { apiKeyId: string }, orderId: string) =>
  submit(postOrderEvent(JSON.stringify(validOrder(orderId)), { apiKeyId: client.apiKeyId }), lambdaContext());

/** Slots held per counter family: the limit's shards, and each client's counters. */
async function held(): Promise<{ shards: number; byClient: Record<string, number> }> {
  let shards = 0;
  const byClient: Record<string, number> = {};
  for (const item of await scanAll(world, resources.admissionTable)) {
    const key = String(item.Pk);
    const inFlight = typeof item.InFlight === 'number' ? item.InFlight : 0;
    if (key.startsWith('shard#')) shards += inFlight;
    const client = /^client#(.+)#shard#\d+$/.exec(key)?.[1];
    if (client !== undefined) byClient[client] = (byClient[client] ?? 0) + inFlight;
  }
  return { shards, byClient };
}

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

describe("a client's share under a race", () => {
  it('one client racing 200 submissions holds exactly its share (20); the other client’s 20, racing alongside, are all admitted', async () => {
    const { submit } = handlers({
      limit: 50,
      shards: 4,
      clientCaps: { [FLOODER.clientId]: 20, [OTHER.clientId]: 30 },
    });
    const flood = Array.from({ length: 200 }, (_, index) => `flood-${index}`);
    const others = Array.from({ length: 20 }, (_, index) => `other-${index}`);
    const [floodAnswers, otherAnswers] = await Promise.all([
      Promise.all(flood.map((id) => post(submit, FLOODER, id))),
      Promise.all(others.map((id) => post(submit, OTHER, id))),
    ]);

    expect(otherAnswers.map((answer) => answer.statusCode)).toEqual(others.map(() => 202));
    const floodCodes = floodAnswers.map((answer) => answer.statusCode);
    expect(floodCodes.filter((code) => code !== 202 && code !== 429)).toEqual([]);
    expect(floodCodes.filter((code) => code === 202)).toHaveLength(20);
    for (const refused of floodAnswers.filter((answer) => answer.statusCode === 429)) {
      expect(Number(refused.headers?.['Retry-After'])).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(refused.body)).toEqual({
        message: expect.stringMatching(
          /^Too many orders in progress for client 'web-shop' \(its share of the limit\); order 'flood-\d+' was not accepted\. Retry after \d+ s$/,
        ),
      });
    }
    expect(await held()).toEqual({ shards: 40, byClient: { [FLOODER.clientId]: 20, [OTHER.clientId]: 20 } });
    // Each record names the client counter its share's slot is in, and nothing refused is stored.
    const records = await scanAll(world, resources.stateTable);
    expect(records).toHaveLength(40);
    for (const record of records) {
      expect(record.AdmissionClientShard).toBe(`client#${record.ClientId}#${record.AdmissionShard}`);
    }
  });

  it('refuses with the limit’s message when the limit, not the client’s share, is what is taken', async () => {
    const { submit } = handlers({
      limit: 4,
      shards: 2,
      clientCaps: { [FLOODER.clientId]: 3, [OTHER.clientId]: 3 },
    });
    for (const id of ['a-1', 'a-2', 'a-3']) expect((await post(submit, FLOODER, id)).statusCode).toBe(202);
    expect((await post(submit, OTHER, 'b-1')).statusCode).toBe(202);
    const refused = await post(submit, OTHER, 'b-2');
    expect(refused.statusCode).toBe(429);
    expect(JSON.parse(refused.body).message).toMatch(
      /^Too many orders in progress; order 'b-2' was not accepted/,
    );
  });

  it('takes no client slot for a client without a share (only the limit bounds it)', async () => {
    const { submit } = handlers({ limit: 10, shards: 2, clientCaps: { [OTHER.clientId]: 5 } });
    for (const id of ['free-1', 'free-2', 'free-3'])
      expect((await post(submit, FLOODER, id)).statusCode).toBe(202);
    expect(await held()).toEqual({ shards: 3, byClient: {} });
    expect(await stateItem(world, resources, 'free-1')).not.toHaveProperty('AdmissionClientShard');
  });
});

describe("release of a share's slot", () => {
  it('gives the client its slot back once, with the limit’s: the consumer twice, then the reconciler', async () => {
    const { submit, release, reconcile } = handlers({
      limit: 4,
      shards: 2,
      reconcileGraceSeconds: 1,
      clientCaps: { [FLOODER.clientId]: 1, [OTHER.clientId]: 2 },
    });
    expect((await post(submit, FLOODER, 'share-1')).statusCode).toBe(202);
    expect((await post(submit, FLOODER, 'share-2')).statusCode).toBe(429);
    await settle('share-1', 'Processed');
    const event = await stateStreamEventOf(world, resources, 'share-1', '100');
    expect(await release(event, lambdaContext())).toEqual({ batchItemFailures: [] });
    expect(await release(event, lambdaContext())).toEqual({ batchItemFailures: [] });
    await sleep(1_100);
    expect(await reconcile({}, lambdaContext())).toMatchObject({ examined: 0, released: 0 });
    expect(await held()).toEqual({ shards: 0, byClient: { [FLOODER.clientId]: 0 } });
    const record = await stateItem(world, resources, 'share-1');
    expect(record).not.toHaveProperty('AdmissionShard');
    expect(record).not.toHaveProperty('AdmissionClientShard');
    expect((await post(submit, FLOODER, 'share-2')).statusCode).toBe(202);
  });

  it('heals a lost release of a share’s slot: the reconciler reads the record’s client counter and releases both', async () => {
    const { submit, reconcile } = handlers({
      limit: 10,
      shards: 2,
      reconcileGraceSeconds: 30,
      clientCaps: { [FLOODER.clientId]: 2, [OTHER.clientId]: 2 },
    });
    for (const id of ['lost-a', 'kept-a']) expect((await post(submit, FLOODER, id)).statusCode).toBe(202);
    expect((await post(submit, FLOODER, 'waiting-a')).statusCode).toBe(429);
    await settle('lost-a', 'Compensated', new Date(Date.now() - 120_000).toISOString());
    expect(await reconcile({}, lambdaContext())).toMatchObject({ examined: 1, released: 1, errors: 0 });
    expect(await reconcile({}, lambdaContext())).toMatchObject({ examined: 0, released: 0 });
    expect(await held()).toEqual({ shards: 1, byClient: { [FLOODER.clientId]: 1 } });
    expect(await stateItem(world, resources, 'lost-a')).not.toHaveProperty('AdmissionClientShard');
    expect((await post(submit, FLOODER, 'waiting-a')).statusCode).toBe(202);
  });
});
