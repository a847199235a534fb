/**
 * Operator routes against DynamoDB Local and the runtime's SQS (real SDK, real handler modules):
 * actions conditional on what the operator saw, their OperatorLog and start messages, races with
 * the supervisor and with another operator, the StateIndex list and the inspect view.
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, Context, DynamoDBStreamEvent, EventBridgeEvent } from 'aws-lambda';
import { DynamoOperatorStore } from '../../../../lambdas/scheduler-agent-supervisor/adapters/operator-store';
import { stateRecordToItem } from '../../../../lambdas/scheduler-agent-supervisor/adapters/state-record-item';
import { DynamoStateStore } from '../../../../lambdas/scheduler-agent-supervisor/adapters/state-store';
import {
  AdmissionCounterAttr,
  DRAIN_ITEM_KEY,
  DrainAttr,
  EnvKey,
  OPERATOR_HISTORY_PAGE_SIZE,
  type OperatorOrderDetailBody,
  type OperatorOrderListBody,
  ProcessState,
  StateAttr,
  StepStatus,
} from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import {
  admissionSlotOrder,
  retryAfterSeconds,
} from '../../../../lambdas/scheduler-agent-supervisor/domain/admission';
import { dueShardFor } from '../../../../lambdas/scheduler-agent-supervisor/domain/shard';
import { decideClaim } from '../../../../lambdas/scheduler-agent-supervisor/domain/starter';
import {
  buildInitialStateRecord,
  type StateRecord,
} from '../../../../lambdas/scheduler-agent-supervisor/domain/state-record';
import {
  ADMISSION,
  type ApiHandler,
  type ArchiverHandler,
  admissionCounters,
  BASE_TIMINGS,
  type CoreResources,
  createAlertArchiveTable,
  createResources,
  drainBodies,
  HANDLERS,
  handlerEnv,
  lambdaContext,
  loadHandler,
  missingQueueUrl,
  postOrderEvent,
  type StreamHandler,
  stateItem,
  stateStreamEventOf,
  useCoreWorld,
} from './harness';

const HANDLER = {
  action: require.resolve('../../../../lambdas/scheduler-agent-supervisor/handlers/operator-action'),
  list: require.resolve('../../../../lambdas/scheduler-agent-supervisor/handlers/operator-list'),
  inspect: require.resolve('../../../../lambdas/scheduler-agent-supervisor/handlers/operator-inspect'),
  archiver: require.resolve('../../../../lambdas/scheduler-agent-supervisor/handlers/alert-archiver'),
};
const OPERATOR = 'arn:aws:iam::000000000000:user/alice';
const SHARDS = 4;

const world = useCoreWorld();

let resources: CoreResources;
let alertTable: string;
let env: Record<string, string>;
beforeEach(async () => {
  resources = await createResources(world);
  alertTable = await createAlertArchiveTable(world);
  env = handlerEnv(resources, {
    dueShardCount: SHARDS,
    timings: { startGraceSeconds: 30 },
    env: { [EnvKey.AlertArchiveTableName]: alertTable },
  });
  world.sfn.calls.length = 0;
  world.sfn.respondWith(() => undefined);
});

const load = <H>(path: string, overrides: Record<string, string> = {}): H =>
  loadHandler<{ handler: H }>(path, { ...env, ...overrides }).handler;

/** A stored record in `state` at `updatedAt` (unlocked, out of the index unless Pending). */
async function putRecord(
  orderId: string,
  state: ProcessState,
  updatedAt: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const base: StateRecord = buildInitialStateRecord({
    workflowVersion: 1,
    orderId,
    orderFingerprint: 'fp',
    now: Date.parse(updatedAt),
    timings: BASE_TIMINGS,
    dueShardCount: SHARDS,
    retryBudget: 12,
  });
  const item = JSON.parse(JSON.stringify(stateRecordToItem(base))) as Record<string, unknown>;
  item[StateAttr.ProcessState] = state;
  item[StateAttr.UpdatedAt] = updatedAt;
  if (state !== ProcessState.Pending) delete item[StateAttr.DueShard];
  await world.doc.send(new PutCommand({ TableName: resources.stateTable, Item: { ...item, ...extra } }));
}

function apiEvent(
  method: string,
  resource: string,
  options: {
    orderId?: string;
    body?: unknown;
    query?: Record<string, string>;
    userArn?: string | null;
  } = {},
): APIGatewayProxyEvent {
  const base = postOrderEvent(options.body === undefined ? null : JSON.stringify(options.body));
  return {
    ...base,
    httpMethod: method,
    resource,
    path: resource.replace('{orderId}', options.orderId ?? ''),
    pathParameters: options.orderId === undefined ? null : { orderId: options.orderId },
    queryStringParameters: options.query ?? null,
    requestContext: {
      ...base.requestContext,
      identity: { userArn: options.userArn === undefined ? OPERATOR : options.userArn },
    } as APIGatewayProxyEvent['requestContext'],
  };
}

const act = (
  action: 'retry' | 'cancel',
  orderId: string,
  body: unknown,
  userArn?: string | null,
  overrides: Record<string, string> = {},
) =>
  load<ApiHandler>(HANDLER.action, overrides)(
    apiEvent('POST', `/operator/orders/{orderId}/${action}`, { orderId, body, userArn }),
    lambdaContext(),
  );

const seen = (expectedState: ProcessState, expectedUpdatedAt: string, reason = 'downstream fixed') => ({
  reason,
  expectedState,
  expectedUpdatedAt,
});

const T0 = '2030-03-17T17:46:00.000Z';

describe('POST /operator/orders/{orderId}/retry and /cancel', () => {
  it('retries an Error order: Pending, failures reset, in the supervisor index, logged with who and why, start message queued', async () => {
    await putRecord('order-1', ProcessState.Error, T0, {
      [StateAttr.FailureCount]: 3,
      [StateAttr.Attempt]: 3,
    });
    const before = Date.now();
    const response = await act('retry', 'order-1', seen(ProcessState.Error, T0));
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({
      orderId: 'order-1',
      action: 'retry',
      processState: 'Pending',
    });

    const item = await stateItem(world, resources, 'order-1');
    expect(item).toMatchObject({
      ProcessState: 'Pending',
      FailureCount: 0,
      Attempt: 3,
      DueShard: dueShardFor('order-1', SHARDS),
      OperatorLog: [
        {
          Action: 'retry',
          By: OPERATOR,
          Reason: 'downstream fixed',
          SeenState: 'Error',
          SeenUpdatedAt: T0,
          NewState: 'Pending',
          ResetFailureCount: 3,
          At: JSON.parse(response.body).updatedAt,
        },
      ],
    });
    expect(item?.LockedBy).toBeUndefined();
    // The claim window of a new start: the starter may claim it at once.
    expect(Number(item?.CompleteBy)).toBeGreaterThanOrEqual(before + 30_000);
    expect(await drainBodies(world, resources.startQueueUrl)).toEqual([
      expect.objectContaining({ orderId: 'order-1', reason: 'operator-retry' }),
    ]);

    // The starter claims the retried order right away (attempt 4), as it would after the message.
    const store = new DynamoStateStore(world.doc, resources.stateTable);
    const record = await store.get('order-1');
    const decision = decideClaim(record as StateRecord, Date.now(), {
      ...BASE_TIMINGS,
      startGraceSeconds: 30,
    });
    expect(decision).toMatchObject({ kind: 'claim', attempt: 4 });
  });

  it('cancels a Processed order into CompensationInProgress, unlocked, with an operator-cancel start message', async () => {
    await putRecord('order-2', ProcessState.Processed, T0);
    const response = await act('cancel', 'order-2', seen(ProcessState.Processed, T0, 'customer asked'));
    expect(response.statusCode).toBe(200);
    const item = await stateItem(world, resources, 'order-2');
    expect(item).toMatchObject({
      ProcessState: 'CompensationInProgress',
      DueShard: dueShardFor('order-2', SHARDS),
      OperatorLog: [
        expect.objectContaining({
          Action: 'cancel',
          Reason: 'customer asked',
          NewState: 'CompensationInProgress',
        }),
      ],
    });
    expect(item?.LockedBy).toBeUndefined();
    expect(item?.OperatorLog).toEqual([
      expect.not.objectContaining({ ResetFailureCount: expect.anything() }),
    ]);
    expect(await drainBodies(world, resources.startQueueUrl)).toEqual([
      expect.objectContaining({ orderId: 'order-2', reason: 'operator-cancel' }),
    ]);
  });

  it('appends to the OperatorLog: a second action keeps the first entry', async () => {
    await putRecord('order-3', ProcessState.Error, T0);
    const first = await act('retry', 'order-3', seen(ProcessState.Error, T0));
    const firstAt = JSON.parse(first.body).updatedAt as string;
    // The retried attempt failed again (as the supervisor would leave it).
    await world.doc.send(
      new UpdateCommand({
        TableName: resources.stateTable,
        Key: { OrderID: 'order-3' },
        UpdateExpression: 'SET ProcessState = :e, UpdatedAt = :u REMOVE DueShard',
        ExpressionAttributeValues: { ':e': 'Error', ':u': '2030-03-17T18:00:00.000Z' },
      }),
    );
    const second = await act(
      'cancel',
      'order-3',
      seen(ProcessState.Error, '2030-03-17T18:00:00.000Z', 'give up'),
    );
    expect(second.statusCode).toBe(200);
    const log = (await stateItem(world, resources, 'order-3'))?.OperatorLog as Record<string, unknown>[];
    expect(log.map((entry) => [entry.Action, entry.At === firstAt])).toEqual([
      ['retry', true],
      ['cancel', false],
    ]);
  });

  it('answers 409 StateChanged when UpdatedAt moved since the operator looked, changing nothing', async () => {
    await putRecord('order-4', ProcessState.Error, '2030-03-17T17:47:00.000Z');
    const response = await act('retry', 'order-4', seen(ProcessState.Error, T0));
    expect(response.statusCode).toBe(409);
    expect(JSON.parse(response.body)).toEqual({
      message: expect.stringContaining('changed since it was read'),
      refusal: 'StateChanged',
      currentState: 'Error',
      currentUpdatedAt: '2030-03-17T17:47:00.000Z',
    });
    expect((await stateItem(world, resources, 'order-4'))?.OperatorLog).toBeUndefined();
    expect(await drainBodies(world, resources.startQueueUrl)).toEqual([]);
  });

  it('answers 409 NotAllowed to a cancel of a Processing order, naming the states that allow it', async () => {
    await putRecord('order-5', ProcessState.Processing, T0, { [StateAttr.LockedBy]: 'order-5--attempt-1' });
    const response = await act('cancel', 'order-5', seen(ProcessState.Processing, T0));
    expect(response.statusCode).toBe(409);
    expect(JSON.parse(response.body)).toEqual({
      message:
        'Cannot cancel an order in state Processing (an attempt is running: wait until it settles, then look again); cancel applies to Pending, Processed, Error',
      refusal: 'NotAllowed',
      currentState: 'Processing',
      currentUpdatedAt: T0,
    });
    expect((await stateItem(world, resources, 'order-5'))?.ProcessState).toBe('Processing');
  });

  it('answers 404 for an unknown order, creating nothing', async () => {
    const response = await act('retry', 'nobody', seen(ProcessState.Error, T0));
    expect(response.statusCode).toBe(404);
    expect(await stateItem(world, resources, 'nobody')).toBeUndefined();
  });

  it('answers 403 without a caller identity and 400 naming each bad field', async () => {
    await putRecord('order-6', ProcessState.Error, T0);
    expect((await act('retry', 'order-6', seen(ProcessState.Error, T0), null)).statusCode).toBe(403);
    const bad = await act('retry', 'order-6', { reason: '', expectedState: 'Broken' });
    expect(bad.statusCode).toBe(400);
    expect(
      JSON.parse(bad.body)
        .errors.map((error: { path: string }) => error.path)
        .sort(),
    ).toEqual(['expectedState', 'expectedUpdatedAt', 'reason']);
    expect((await stateItem(world, resources, 'order-6'))?.ProcessState).toBe('Error');
  });

  it('answers 400 for a reason or a seen timestamp that is not printable text, recording nothing', async () => {
    await putRecord('order-6b', ProcessState.Error, T0);
    const bad = await act('cancel', 'order-6b', {
      ...seen(ProcessState.Error, T0, 'fixed \u202Edexif'),
      expectedUpdatedAt: `${T0}\u200b`,
    });
    expect(bad.statusCode).toBe(400);
    expect(JSON.parse(bad.body).errors).toEqual([
      { path: 'reason', message: 'contains U+202E (RIGHT-TO-LEFT OVERRIDE) at index 6' },
      { path: 'expectedUpdatedAt', message: expect.stringMatching(/^contains U\+200B \(ZERO WIDTH SPACE\)/) },
    ]);
    const record = await stateItem(world, resources, 'order-6b');
    expect(record?.ProcessState).toBe('Error');
    expect(record?.OperatorLog).toBeUndefined();
  });

  it('succeeds when the start message cannot be sent: the record is in the index for the supervisor to re-queue', async () => {
    await putRecord('order-7', ProcessState.Error, T0);
    const response = await act('retry', 'order-7', seen(ProcessState.Error, T0), undefined, {
      [EnvKey.StartQueueUrl]: missingQueueUrl(world),
    });
    expect(response.statusCode).toBe(200);
    expect(await stateItem(world, resources, 'order-7')).toMatchObject({
      ProcessState: 'Pending',
      DueShard: expect.any(String),
    });
  });
});

describe('admission of operator retries (a retry is new work)', () => {
  /** A small limit, so "every shard full" is a few counter items. */
  const SMALL = { limit: 4, shards: 2, reconcileGraceSeconds: 1 };
  const small = { [EnvKey.AdmissionSettings]: JSON.stringify(SMALL) };
  const counters = () => admissionCounters(world, resources);
  const release = (event: DynamoDBStreamEvent) =>
    loadHandler<{ handler: StreamHandler }>(HANDLERS.admissionRelease, env).handler(event, lambdaContext());
  const reconcile = () =>
    loadHandler<{ handler: (event: unknown, context: Context) => Promise<unknown> }>(
      HANDLERS.admissionReconciler,
      env,
    ).handler({}, lambdaContext());

  /** Moves a record on the way the scheduler or the supervisor would (UpdatedAt too). */
  async function settle(orderId: string, processState: ProcessState): Promise<void> {
    await world.doc.send(
      new UpdateCommand({
        TableName: resources.stateTable,
        Key: { [StateAttr.OrderId]: orderId },
        UpdateExpression: 'SET ProcessState = :state, UpdatedAt = :at REMOVE DueShard',
        ExpressionAttributeValues: { ':state': processState, ':at': new Date().toISOString() },
      }),
    );
  }

  async function fillCounter(key: string, inFlight: number, cap: number): Promise<void> {
    await world.doc.send(
      new PutCommand({
        TableName: resources.admissionTable,
        Item: {
          [AdmissionCounterAttr.Pk]: key,
          [AdmissionCounterAttr.InFlight]: inFlight,
          [AdmissionCounterAttr.Cap]: cap,
          [AdmissionCounterAttr.UpdatedAt]: T0,
        },
      }),
    );
  }

  it.each([
    [ProcessState.Error, ProcessState.Pending],
    [ProcessState.CompensationFailed, ProcessState.CompensationInProgress],
  ])(
    'a retry of a %s record holding no slot takes one in the same write: counter +1, AdmissionShard on the record; released once when it settles',
    async (state, newState) => {
      const orderId = `slot-${state}`;
      await putRecord(orderId, state, T0, { [StateAttr.FailureCount]: 3 });
      const response = await act('retry', orderId, seen(state, T0));
      expect(response.statusCode).toBe(200);
      const shard = admissionSlotOrder(orderId, ADMISSION.limit, ADMISSION.shards)[0]?.key as string;
      expect(await counters()).toEqual({ [shard]: expect.objectContaining({ InFlight: 1 }) });
      expect(await stateItem(world, resources, orderId)).toMatchObject({
        ProcessState: newState,
        AdmissionShard: shard,
        OperatorLog: [expect.objectContaining({ Action: 'retry' })],
      });

      // The retried order finishes; the release consumer (twice: a redelivery) and then the
      // reconciler give the slot back exactly once.
      await settle(orderId, ProcessState.Processed);
      const event = await stateStreamEventOf(world, resources, orderId, '100');
      expect(await release(event)).toEqual({ batchItemFailures: [] });
      expect(await release(event)).toEqual({ batchItemFailures: [] });
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await reconcile()).toMatchObject({ examined: 0, released: 0 });
      expect((await counters())[shard]).toMatchObject({ InFlight: 0, Released: 1 });
      expect(await stateItem(world, resources, orderId)).not.toHaveProperty('AdmissionShard');
    },
  );

  it('every shard full: 429 with Retry-After from the drain, and nothing changed (record, counters, start queue)', async () => {
    await putRecord('full-1', ProcessState.Error, T0, { [StateAttr.FailureCount]: 3 });
    await fillCounter('shard#0', 2, 2);
    await fillCounter('shard#1', 2, 2);
    const drain = {
      [DrainAttr.IntervalMillisEwma]: 7_300,
      [DrainAttr.LastReleaseAt]: Date.now(),
      [DrainAttr.Version]: 4,
    };
    await world.doc.send(
      new PutCommand({
        TableName: resources.admissionTable,
        Item: { [AdmissionCounterAttr.Pk]: DRAIN_ITEM_KEY, ...drain },
      }),
    );
    const recordBefore = await stateItem(world, resources, 'full-1');
    const countersBefore = await counters();

    const response = await act('retry', 'full-1', seen(ProcessState.Error, T0), undefined, small);
    expect(response.statusCode).toBe(429);
    expect(JSON.parse(response.body)).toEqual({
      message: expect.stringContaining('every admission slot is taken'),
    });
    const expected = retryAfterSeconds(
      { intervalMillisEwma: 7_300, lastReleaseAt: Date.now(), version: 4 },
      Date.now(),
    );
    expect(expected).toBe(8);
    expect(response.headers?.['Retry-After']).toBe(String(expected));
    expect(await stateItem(world, resources, 'full-1')).toEqual(recordBefore);
    expect(await counters()).toEqual(countersBefore);
    expect(await drainBodies(world, resources.startQueueUrl)).toEqual([]);

    // One slot frees up: the same retry (same seen version) now goes through, on that shard.
    await fillCounter('shard#1', 1, 2);
    expect((await act('retry', 'full-1', seen(ProcessState.Error, T0), undefined, small)).statusCode).toBe(
      200,
    );
    expect(await stateItem(world, resources, 'full-1')).toMatchObject({
      ProcessState: 'Pending',
      AdmissionShard: 'shard#1',
    });
    expect((await counters())['shard#1']).toMatchObject({ InFlight: 2 });
  });

  it('a retry of a record still holding its slot (release not run yet) keeps it and takes no second one; the late release leaves it, the final one releases once', async () => {
    await fillCounter('shard#1', 1, 2);
    await putRecord('held-1', ProcessState.Error, T0, { [StateAttr.AdmissionShard]: 'shard#1' });
    // The stream record of the Error image, delivered only after the retry.
    const lateEvent = await stateStreamEventOf(world, resources, 'held-1', '200');

    const response = await act('retry', 'held-1', seen(ProcessState.Error, T0), undefined, small);
    expect(response.statusCode).toBe(200);
    expect(await stateItem(world, resources, 'held-1')).toMatchObject({
      ProcessState: 'Pending',
      AdmissionShard: 'shard#1',
    });
    expect(await counters()).toEqual({ 'shard#1': expect.objectContaining({ InFlight: 1 }) });

    expect(await release(lateEvent)).toEqual({ batchItemFailures: [] });
    expect(await counters()).toEqual({ 'shard#1': expect.objectContaining({ InFlight: 1 }) });
    expect(await stateItem(world, resources, 'held-1')).toMatchObject({ AdmissionShard: 'shard#1' });

    await settle('held-1', ProcessState.Processed);
    const finalEvent = await stateStreamEventOf(world, resources, 'held-1', '201');
    expect(await release(finalEvent)).toEqual({ batchItemFailures: [] });
    expect(await release(finalEvent)).toEqual({ batchItemFailures: [] });
    expect((await counters())['shard#1']).toMatchObject({ InFlight: 0, Released: 1 });
  });

  it('a keeping write whose slot was released in between is lost (the domain then takes a slot)', async () => {
    await putRecord('held-2', ProcessState.Error, T0);
    const store = new DynamoOperatorStore(world.doc, resources.stateTable, {
      admissionTable: resources.admissionTable,
    });
    const entry = {
      action: 'retry' as const,
      by: OPERATOR,
      reason: 'probe',
      at: T0,
      seenState: ProcessState.Error,
      seenUpdatedAt: T0,
      newState: ProcessState.Pending,
    };
    const write = {
      orderId: 'held-2',
      transition: 'operatorRetry' as const,
      seenState: ProcessState.Error,
      seenUpdatedAt: T0,
      completeBy: Date.now() + 60_000,
      dueShard: '0',
      entry,
      at: Date.now(),
    };
    expect(await store.apply({ ...write, keepsSlot: 'shard#0' })).toBe('lost');
    expect((await stateItem(world, resources, 'held-2'))?.ProcessState).toBe('Error');
    expect(await store.applyTakingSlot(write, { key: 'shard#0', cap: 1 })).toBe('applied');
    expect(await store.applyTakingSlot(write, { key: 'shard#0', cap: 1 })).toBe('lost');
    expect(await counters()).toEqual({ 'shard#0': expect.objectContaining({ InFlight: 1 }) });
  });

  it('a cancel takes no slot (compensation is not new work), even with every shard full', async () => {
    await fillCounter('shard#0', 2, 2);
    await fillCounter('shard#1', 2, 2);
    await putRecord('cancel-1', ProcessState.Error, T0);
    const response = await act('cancel', 'cancel-1', seen(ProcessState.Error, T0), undefined, small);
    expect(response.statusCode).toBe(200);
    const item = await stateItem(world, resources, 'cancel-1');
    expect(item?.ProcessState).toBe('CompensationInProgress');
    expect(item).not.toHaveProperty('AdmissionShard');
    expect(Object.values(await counters()).map((counter) => counter.InFlight)).toEqual([2, 2]);
  });
});

describe('operator actions racing other writers', () => {
  it('a cancel of a Pending order racing the supervisor restart: exactly one wins', async () => {
    for (let round = 0; round < 5; round += 1) {
      const orderId = `race-${round}`;
      await putRecord(orderId, ProcessState.Pending, T0);
      const stored = await new DynamoStateStore(world.doc, resources.stateTable).get(orderId);
      const supervisor = new DynamoStateStore(world.doc, resources.stateTable);
      const [operator, restart] = await Promise.all([
        act('cancel', orderId, seen(ProcessState.Pending, T0)),
        supervisor.restartPending(
          {
            orderId,
            processState: ProcessState.Pending,
            completeBy: stored?.completeBy as number,
            failureCount: 0,
            compensationFailureCount: 0,
            attempt: 0,
          },
          { completeBy: Date.now() + 60_000, at: Date.now() },
        ),
      ]);
      const outcomes = [operator.statusCode === 200 ? 'applied' : 'lost', restart];
      expect({ round, winners: outcomes.filter((outcome) => outcome === 'applied').length }).toEqual({
        round,
        winners: 1,
      });
      const item = await stateItem(world, resources, orderId);
      expect(item?.ProcessState).toBe(operator.statusCode === 200 ? 'CompensationInProgress' : 'Pending');
      if (operator.statusCode !== 200) {
        expect(JSON.parse(operator.body)).toMatchObject({ refusal: 'StateChanged', currentState: 'Pending' });
      }
    }
  });

  it('two operators retrying the same Error order: exactly one retry is applied and logged', async () => {
    await putRecord('order-8', ProcessState.Error, T0);
    const responses = await Promise.all(
      ['arn:aws:iam::000000000000:user/alice', 'arn:aws:iam::000000000000:user/bob'].map((who) =>
        act('retry', 'order-8', seen(ProcessState.Error, T0), who),
      ),
    );
    expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 409]);
    expect((await stateItem(world, resources, 'order-8'))?.OperatorLog).toHaveLength(1);
    expect(await drainBodies(world, resources.startQueueUrl)).toHaveLength(1);
  });

  it('the operator store refuses a write whose record is locked, even at the UpdatedAt seen', async () => {
    await putRecord('order-9', ProcessState.Error, T0, { [StateAttr.LockedBy]: 'someone' });
    const store = new DynamoOperatorStore(world.doc, resources.stateTable);
    const result = await store.apply({
      orderId: 'order-9',
      transition: 'operatorRetry',
      seenState: ProcessState.Error,
      seenUpdatedAt: T0,
      completeBy: 1,
      dueShard: '0',
      entry: {
        action: 'retry',
        by: OPERATOR,
        reason: 'probe',
        at: T0,
        seenState: ProcessState.Error,
        seenUpdatedAt: T0,
        newState: ProcessState.Pending,
      },
      at: 1,
    });
    expect(result).toBe('lost');
  });
});

describe('GET /operator/orders', () => {
  const list = (query: Record<string, string>, userArn?: string | null) =>
    load<ApiHandler>(HANDLER.list)(apiEvent('GET', '/operator/orders', { query, userArn }), lambdaContext());

  it('lists one state newest first, page by page with an opaque cursor', async () => {
    for (let index = 0; index < 5; index += 1) {
      await putRecord(`err-${index}`, ProcessState.Error, `2030-03-17T17:4${index}:00.000Z`, {
        [StateAttr.FailureCount]: index,
      });
    }
    await putRecord('done-1', ProcessState.Processed, T0);
    const first = await list({ state: 'Error', limit: '2' });
    expect(first.statusCode).toBe(200);
    const page1 = JSON.parse(first.body) as OperatorOrderListBody;
    expect(page1.items).toEqual([
      {
        orderId: 'err-4',
        processState: 'Error',
        updatedAt: '2030-03-17T17:44:00.000Z',
        createdAt: expect.any(String),
        failureCount: 4,
        attempt: 0,
      },
      expect.objectContaining({ orderId: 'err-3' }),
    ]);
    const ids = page1.items.map((row) => row.orderId);
    let cursor = page1.nextCursor;
    while (cursor !== undefined) {
      const page = JSON.parse(
        (await list({ state: 'Error', limit: '2', cursor })).body,
      ) as OperatorOrderListBody;
      ids.push(...page.items.map((row) => row.orderId));
      cursor = page.nextCursor;
    }
    expect(ids).toEqual(['err-4', 'err-3', 'err-2', 'err-1', 'err-0']);
  });

  it('answers 400 for a bad state, limit or cursor, and 403 without a caller identity', async () => {
    expect(JSON.parse((await list({ state: 'Nope' })).body).errors).toEqual([
      { path: 'state', message: expect.stringMatching(/^must be one of/) },
    ]);
    expect((await list({ state: 'Error', limit: '500' })).statusCode).toBe(400);
    const badCursor = await list({ state: 'Error', cursor: 'not-a-cursor' });
    expect(badCursor.statusCode).toBe(400);
    expect(JSON.parse(badCursor.body).errors[0].path).toBe('cursor');
    expect((await list({ state: 'Error' }, null)).statusCode).toBe(403);
  });
});

describe('GET /operator/orders/{orderId} and the alert archive', () => {
  it('shows the record, steps, compensation log by descending Seq, attempts, alerts and operator log; never plans nor fingerprints', async () => {
    await putRecord('order-10', ProcessState.Error, T0, {
      [StateAttr.Attempt]: 2,
      [StateAttr.FailureCount]: 3,
      [StateAttr.ClientId]: 'shop',
      [StateAttr.Plan]: { ReserveInventory: 1 },
      [StateAttr.LastError]: {
        Source: 'supervisor',
        Error: 'FailureThresholdReached',
        Cause: 'expired',
        At: T0,
      },
      [StateAttr.Steps]: {
        ReserveInventory: {
          Status: StepStatus.Completed,
          StartedAt: T0,
          CompletedAt: T0,
          Result: { ConfirmationId: 'res-1' },
        },
        ChargePayment: { Status: StepStatus.TimedOut, StartedAt: T0, EndedAt: T0 },
        ScheduleShipping: { Status: StepStatus.NotStarted },
      },
      [StateAttr.CompensationLog]: {
        ReserveInventory: {
          Seq: 1,
          Compensation: 'ReleaseInventory',
          Status: 'Recorded',
          ConfirmationId: 'res-1',
        },
        ChargePayment: { Seq: 2, Compensation: 'RefundPayment', Status: 'Recorded', Uncertain: true },
      },
    });
    // Attempt 1 exists: described, and its history (AWS JSON: epoch seconds, one page) holds a
    // completed reservation and a payment call that timed out. Attempt 2 does not exist.
    const attempt1History = [
      { id: 1, previousEventId: 0, timestamp: 1_900_000_000, type: 'ExecutionStarted' },
      {
        id: 2,
        previousEventId: 1,
        timestamp: 1_900_000_001,
        type: 'TaskStateEntered',
        stateEnteredEventDetails: { name: 'ReserveInventory.CallAgent' },
      },
      { id: 3, previousEventId: 2, timestamp: 1_900_000_001, type: 'TaskScheduled' },
      { id: 4, previousEventId: 3, timestamp: 1_900_000_002, type: 'TaskSucceeded' },
      {
        id: 5,
        previousEventId: 4,
        timestamp: 1_900_000_003,
        type: 'TaskStateEntered',
        stateEnteredEventDetails: { name: 'ChargePayment.CallAgent' },
      },
      { id: 6, previousEventId: 5, timestamp: 1_900_000_003, type: 'TaskScheduled' },
      {
        id: 7,
        previousEventId: 6,
        timestamp: 1_900_000_009,
        type: 'TaskTimedOut',
        taskTimedOutEventDetails: { resourceType: 'sqs', resource: 'sendMessage', error: 'States.Timeout' },
      },
    ];
    world.sfn.respondWith((call) => {
      if (!String(call.body.executionArn).endsWith('order-10--attempt-1'))
        return { error: 'ExecutionDoesNotExist', message: 'Execution Does Not Exist' };
      if (call.operation === 'DescribeExecution')
        return { result: { status: 'FAILED', startDate: 1_900_000_000, stopDate: 1_900_000_060 } };
      if (call.operation === 'GetExecutionHistory') return { result: { events: attempt1History } };
      return undefined;
    });
    const archive = load<ArchiverHandler>(HANDLER.archiver);
    const alert = {
      id: 'event-1',
      source: 'order-processing',
      'detail-type': 'OrderFailed',
      time: '2030-03-17T17:45:00Z',
      detail: { orderId: 'order-10', reason: 'FailureThresholdReached' },
    } as unknown as EventBridgeEvent<string, unknown>;
    await archive(alert, lambdaContext());
    await archive(alert, lambdaContext()); // a redelivery overwrites itself
    await archive({ ...alert, source: 'elsewhere' }, lambdaContext()); // not ours: dropped

    const response = await load<ApiHandler>(HANDLER.inspect)(
      apiEvent('GET', '/operator/orders/{orderId}', { orderId: 'order-10' }),
      lambdaContext(),
    );
    expect(response.statusCode).toBe(200);
    const detail = JSON.parse(response.body) as OperatorOrderDetailBody;
    expect(detail).toEqual({
      orderId: 'order-10',
      processState: 'Error',
      attempt: 2,
      failureCount: 3,
      compensationFailureCount: 0,
      workflowVersion: 1,
      clientId: 'shop',
      createdAt: expect.any(String),
      updatedAt: T0,
      lastError: { source: 'supervisor', error: 'FailureThresholdReached', cause: 'expired', at: T0 },
      steps: [
        {
          name: 'ReserveInventory',
          status: 'Completed',
          startedAt: T0,
          completedAt: T0,
          confirmationId: 'res-1',
        },
        { name: 'ChargePayment', status: 'TimedOut', startedAt: T0, endedAt: T0 },
        { name: 'ScheduleShipping', status: 'NotStarted' },
      ],
      compensationLog: [
        { step: 'ChargePayment', seq: 2, compensation: 'RefundPayment', status: 'Recorded', uncertain: true },
        {
          step: 'ReserveInventory',
          seq: 1,
          compensation: 'ReleaseInventory',
          status: 'Recorded',
          confirmationId: 'res-1',
        },
      ],
      attempts: [
        {
          attempt: 1,
          executionName: 'order-10--attempt-1',
          status: 'FAILED',
          startDate: new Date(1_900_000_000_000).toISOString(),
          stopDate: new Date(1_900_000_060_000).toISOString(),
          stepRuns: [
            {
              step: 'ReserveInventory',
              action: 'perform',
              outcome: 'Completed',
              startedAt: new Date(1_900_000_001_000).toISOString(),
              endedAt: new Date(1_900_000_002_000).toISOString(),
            },
            {
              step: 'ChargePayment',
              action: 'perform',
              outcome: 'TimedOut',
              startedAt: new Date(1_900_000_003_000).toISOString(),
              endedAt: new Date(1_900_000_009_000).toISOString(),
              error: 'States.Timeout',
            },
          ],
          stepRunsRead: 'All',
        },
        {
          attempt: 2,
          executionName: 'order-10--attempt-2',
          status: 'NotFound',
          stepRuns: [],
          stepRunsRead: 'NotRead',
        },
      ],
      alerts: [
        {
          at: '2030-03-17T17:45:00Z',
          type: 'OrderFailed',
          eventId: 'event-1',
          detail: { orderId: 'order-10', reason: 'FailureThresholdReached' },
        },
      ],
      operatorLog: [],
    });
    expect(response.body).not.toMatch(/Plan|Fingerprint|fp/);
    // Described in parallel: compare as a set.
    expect(
      world.sfn
        .callsTo('DescribeExecution')
        .map((call) => call.body.executionArn)
        .sort(),
    ).toEqual([
      `${resources.stateMachineArn.replace(':stateMachine:', ':execution:')}:order-10--attempt-1`,
      `${resources.stateMachineArn.replace(':stateMachine:', ':execution:')}:order-10--attempt-2`,
    ]);
    // Histories read without execution data (no order data in the answer), one bounded page each.
    expect(
      world.sfn
        .callsTo('GetExecutionHistory')
        .map((call) => [
          String(call.body.executionArn).split(':').pop(),
          call.body.includeExecutionData,
          call.body.maxResults,
        ])
        .sort(),
    ).toEqual([
      ['order-10--attempt-1', false, OPERATOR_HISTORY_PAGE_SIZE],
      ['order-10--attempt-2', false, OPERATOR_HISTORY_PAGE_SIZE],
    ]);
  });

  it('answers 404 for an unknown order and 403 without a caller identity', async () => {
    const inspect = load<ApiHandler>(HANDLER.inspect);
    expect(
      (await inspect(apiEvent('GET', '/operator/orders/{orderId}', { orderId: 'none' }), lambdaContext()))
        .statusCode,
    ).toBe(404);
    expect(
      (
        await inspect(
          apiEvent('GET', '/operator/orders/{orderId}', { orderId: 'none', userArn: null }),
          lambdaContext(),
        )
      ).statusCode,
    ).toBe(403);
  });
});
