import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import {
  DEFAULT_WORKFLOW_VERSION,
  MAX_ORDER_BODY_BYTES,
  OrderMetric,
  STATE_SCHEMA_VERSION,
  workflowSteps,
} from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import { orderFingerprint } from '../../../../lambdas/scheduler-agent-supervisor/domain/order';
import { dueShardFor } from '../../../../lambdas/scheduler-agent-supervisor/domain/shard';
import { captureStdout, metricSum } from '../agents/harness';
import {
  type ApiHandler,
  type CoreResources,
  createResources,
  delayedMessageCount,
  drainBodies,
  drainQueue,
  getOrderEvent,
  HANDLERS,
  handlerEnv,
  lambdaContext,
  loadHandler,
  missingQueueUrl,
  postOrderEvent,
  type SupervisorHandler,
  scanAll,
  sleep,
  stateItem,
  TEST_CLIENTS,
  TEST_RETRY_BUDGET,
  useCoreWorld,
  validOrder,
} from './harness';

/** The steps of an order on the default workflow version (what these tests deploy). */
const V1_STEPS = workflowSteps(DEFAULT_WORKFLOW_VERSION);

const world = useCoreWorld();

let resources: CoreResources;
let submit: ApiHandler;
let getOrder: ApiHandler;
beforeEach(async () => {
  resources = await createResources(world);
  world.events.calls.length = 0;
  world.events.respondWith(() => undefined);
  submit = loadHandler<{ handler: ApiHandler }>(HANDLERS.submitOrder, handlerEnv(resources)).handler;
  getOrder = loadHandler<{ handler: ApiHandler }>(HANDLERS.getOrder, handlerEnv(resources)).handler;
});

function post(
  body: unknown,
  options: { base64?: boolean; headers?: Record<string, string>; apiKeyId?: string | null } = {},
) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return submit(postOrderEvent(text, options), lambdaContext());
}

function json(response: APIGatewayProxyResult): Record<string, unknown> {
  expect(response.headers?.['Content-Type']).toBe('application/json');
  return JSON.parse(response.body) as Record<string, unknown>;
}

async function expectNothingWritten(): Promise<void> {
  expect(await scanAll(world, resources.ordersTable)).toEqual([]);
  expect(await scanAll(world, resources.stateTable)).toEqual([]);
  expect(await drainQueue(world, resources.startQueueUrl)).toEqual([]);
  expect(await drainQueue(world, resources.conflictQueueUrl)).toEqual([]);
  expect(world.events.callsTo('PutEvents')).toEqual([]);
}

describe('POST /orders: a new order', () => {
  it('answers 202 with Location, writes the order and the initial record, and queues one start message', async () => {
    const before = Date.now();
    const response = await post(validOrder('order-new'), { headers: { 'X-Correlation-Id': 'trace-new' } });
    const after = Date.now();

    expect(response.statusCode).toBe(202);
    expect(json(response)).toEqual({ orderId: 'order-new', processState: 'Pending' });
    expect(response.headers?.Location).toBe('/test/orders/order-new');
    expect(response.headers?.['X-Correlation-Id']).toBe('trace-new');

    const orders = await scanAll(world, resources.ordersTable);
    const fingerprint = orderFingerprint({
      orderId: 'order-new',
      customerId: 'customer-1',
      items: [
        { sku: 'SKU-1', quantity: 2 },
        { sku: 'SKU-2', quantity: 1 },
      ],
      totalCents: 4599,
      currency: 'EUR',
    });
    expect(orders).toEqual([
      {
        OrderID: 'order-new',
        CustomerId: 'customer-1',
        Items: '[{"quantity":2,"sku":"SKU-1"},{"quantity":1,"sku":"SKU-2"}]',
        TotalCents: 4599,
        Currency: 'EUR',
        OrderFingerprint: fingerprint,
        CreatedAt: expect.any(String),
      },
    ]);

    const record = await stateItem(world, resources, 'order-new');
    expect(record).toEqual({
      OrderID: 'order-new',
      ProcessState: 'Pending',
      CompleteBy: expect.any(Number),
      DueShard: dueShardFor('order-new', 4),
      FailureCount: 0,
      Attempt: 0,
      Steps: Object.fromEntries(V1_STEPS.map((step) => [step.name, { Status: 'NotStarted' }])),
      // Empty, so MarkCompleted can SET each entry by path.
      CompensationLog: {},
      CompensationFailureCount: 0,
      OrderFingerprint: fingerprint,
      SchemaVersion: STATE_SCHEMA_VERSION,
      WorkflowVersion: 1,
      CreatedAt: expect.any(String),
      UpdatedAt: expect.any(String),
      ClientId: TEST_CLIENTS.first.clientId,
      // The admission slot it holds: its own shard first (the counters are far from full here).
      AdmissionShard: `shard#${dueShardFor('order-new', 4)}`,
      // The deployment's retry budget, fixed for the order's life, and no call reserved yet.
      RetryBudget: TEST_RETRY_BUDGET,
      CallsMade: {},
    });
    // CompleteBy = submission time + startGraceSeconds (1 s in these tests).
    expect(record?.CompleteBy).toBeGreaterThanOrEqual(before + 1000);
    expect(record?.CompleteBy).toBeLessThanOrEqual(after + 1000);
    expect(record).not.toHaveProperty('LockedBy');

    expect(await drainBodies(world, resources.startQueueUrl)).toEqual([
      { orderId: 'order-new', reason: 'submitted', correlationId: 'trace-new' },
    ]);
  });

  it('accepts a base64-encoded body', async () => {
    const response = await post(validOrder('order-b64'), { base64: true });
    expect(response.statusCode).toBe(202);
    expect(await stateItem(world, resources, 'order-b64')).toMatchObject({ ProcessState: 'Pending' });
  });
});

describe('POST /orders: resubmission', () => {
  it('answers an identical resubmission (other key order) with 200 and the status, duplicating nothing', async () => {
    expect((await post(validOrder('order-dup'))).statusCode).toBe(202);
    const ordersBefore = await scanAll(world, resources.ordersTable);
    const recordBefore = await stateItem(world, resources, 'order-dup');

    const reordered = JSON.stringify({
      currency: 'EUR',
      items: [
        { quantity: 2, sku: 'SKU-1' },
        { quantity: 1, sku: 'SKU-2' },
      ],
      totalCents: 4599,
      customerId: 'customer-1',
      orderId: 'order-dup',
    });
    const second = await post(reordered);
    expect(second.statusCode).toBe(200);
    expect(json(second)).toEqual({
      orderId: 'order-dup',
      processState: 'Pending',
      failureCount: 0,
      attempt: 0,
      steps: V1_STEPS.map((step) => ({ name: step.name, status: 'NotStarted' })),
      updatedAt: recordBefore?.UpdatedAt,
    });

    expect(await scanAll(world, resources.ordersTable)).toEqual(ordersBefore);
    expect(await scanAll(world, resources.stateTable)).toEqual([recordBefore]);
    expect(await drainBodies(world, resources.startQueueUrl)).toHaveLength(1);
  });

  it('answers conflicting data with 409, dead-letters the raw request, counts it without an alert, and overwrites nothing', async () => {
    expect((await post(validOrder('order-clash'))).statusCode).toBe(202);
    await drainQueue(world, resources.startQueueUrl);
    const ordersBefore = await scanAll(world, resources.ordersTable);
    const statesBefore = await scanAll(world, resources.stateTable);

    const conflicting = JSON.stringify(validOrder('order-clash', { totalCents: 1 }));
    // The core harness turns metrics off; this test reads one.
    const submitCounting = loadHandler<{ handler: ApiHandler }>(HANDLERS.submitOrder, {
      ...handlerEnv(resources),
      POWERTOOLS_METRICS_DISABLED: 'false',
    }).handler;
    const output = captureStdout();
    const mark = output.mark();
    let response: APIGatewayProxyResult;
    try {
      response = await submitCounting(
        postOrderEvent(conflicting, { headers: { 'X-Correlation-Id': 'trace-clash' } }),
        lambdaContext(),
      );
    } finally {
      output.restore();
      process.env.POWERTOOLS_METRICS_DISABLED = 'true';
    }
    // One caller could flood the operator: a conflict is counted (an alarm watches the rate), never alerted.
    expect(metricSum(output.since(mark), OrderMetric.SubmissionConflicts)).toBe(1);
    expect(world.events.callsTo('PutEvents')).toEqual([]);

    expect(response.statusCode).toBe(409);
    // The submitter's own order: the 409 names the fields that differ.
    expect(json(response)).toEqual({
      message: "Order 'order-clash' already exists with different data; the request was not applied",
      errors: [{ path: 'totalCents', message: 'differs from the accepted order' }],
    });
    expect(await scanAll(world, resources.ordersTable)).toEqual(ordersBefore);
    expect(await scanAll(world, resources.stateTable)).toEqual(statesBefore);
    expect(await drainQueue(world, resources.startQueueUrl)).toEqual([]);

    const storedFingerprint = String(ordersBefore[0]?.OrderFingerprint);
    const dead = await drainQueue(world, resources.conflictQueueUrl);
    expect(dead).toHaveLength(1);
    expect(JSON.parse(dead[0]?.Body ?? '')).toEqual({
      orderId: 'order-clash',
      correlationId: 'trace-clash',
      receivedAt: expect.any(String),
      storedFingerprint,
      submittedFingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      rawBody: conflicting,
    });
    expect(dead[0]?.MessageAttributes?.orderId?.StringValue).toBe('order-clash');
  });
});

describe('POST /orders: bad input changes nothing', () => {
  const item = { sku: 'SKU-1', quantity: 1 };
  it.each<[string, string, string, RegExp]>([
    ['bad JSON', '{"orderId": "x",', '(body)', /valid JSON/],
    [
      'wrong types',
      JSON.stringify(validOrder('o1', { totalCents: '12', items: 'none' })),
      'totalCents',
      /number/,
    ],
    [
      'an unknown field',
      JSON.stringify(validOrder('o2', { coupon: 'FREE' })),
      'coupon',
      /not an allowed field/,
    ],
    [
      'oversize',
      JSON.stringify(validOrder('o3', { customerId: 'x'.repeat(MAX_ORDER_BODY_BYTES) })),
      '(body)',
      /at most 16384 bytes/,
    ],
    ['a missing field', JSON.stringify(validOrder('o4', { currency: undefined })), 'currency', /is required/],
    ['a bad orderId', JSON.stringify(validOrder('bad id!')), 'orderId', /1-64 characters/],
    ['empty items', JSON.stringify(validOrder('o5', { items: [] })), 'items', />=1/],
    [
      '51 items',
      JSON.stringify(validOrder('o6', { items: Array.from({ length: 51 }, () => item) })),
      'items',
      /<=50/,
    ],
    [
      'a bad item quantity',
      JSON.stringify(validOrder('o7', { items: [{ sku: 'SKU-1', quantity: -1 }] })),
      'items[0].quantity',
      />=1/,
    ],
    [
      'a bidi override in customerId',
      JSON.stringify(validOrder('o8', { customerId: 'abc\u202Efed' })),
      'customerId',
      /^contains U\+202E \(RIGHT-TO-LEFT OVERRIDE\) at index 3$/,
    ],
    [
      'NUL in a sku',
      JSON.stringify(validOrder('o9', { items: [{ sku: 'SKU\u00001', quantity: 1 }] })),
      'items[0].sku',
      /^contains U\+0000 \(NULL\) at index 3$/,
    ],
    [
      'a zero-width space in customerId',
      JSON.stringify(validOrder('o10', { customerId: 'cust\u200bomer' })),
      'customerId',
      /U\+200B \(ZERO WIDTH SPACE\)/,
    ],
    [
      'a customerId not in NFC (NFD "é")',
      JSON.stringify(validOrder('o11', { customerId: 'cafe\u0301' })),
      'customerId',
      /not in Unicode normalization form NFC/,
    ],
    ['a bidi isolate in orderId', JSON.stringify(validOrder('o12\u2066')), 'orderId', /1-64 characters/],
    [
      'a duplicate top-level key',
      JSON.stringify(validOrder('o13')).replace('{', '{"customerId":"first",'),
      'customerId',
      /duplicate key: "customerId"/,
    ],
    [
      'a duplicate item key (escaped)',
      JSON.stringify(validOrder('o14')).replace('"sku":', '"sku":"SKU-0","s\\u006bu":'),
      'items[0].sku',
      /duplicate key: "sku"/,
    ],
  ])('rejects %s with 400, names the field and writes nothing', async (_case, body, path, message) => {
    const response = await post(body);
    expect(response.statusCode).toBe(400);
    const parsed = json(response) as { message: string; errors: { path: string; message: string }[] };
    expect(parsed.message).toEqual(expect.any(String));
    expect(parsed.errors).toContainEqual({ path, message: expect.stringMatching(message) });
    await expectNothingWritten();
  });

  it('answers bad JSON with a fixed message that quotes nothing of the body', async () => {
    const response = await post('{"orderId": "secret-order", "customerId": ');
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({
      message: 'Request body is not valid JSON',
      errors: [{ path: '(body)', message: 'must be valid JSON' }],
    });
    expect(response.body).not.toContain('secret');
    await expectNothingWritten();
  });

  it('rejects a missing body with 400', async () => {
    const response = await submit(postOrderEvent(null), lambdaContext());
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({
      message: 'Request body is required',
      errors: [{ path: '(body)', message: 'is required' }],
    });
    await expectNothingWritten();
  });
});

describe('POST /orders: partial failures', () => {
  it('still answers 202 when the start message cannot be sent, and the supervisor re-queues the order', async () => {
    const brokenQueue = handlerEnv(resources, { env: { START_QUEUE_URL: missingQueueUrl(world) } });
    const submitWithoutQueue = loadHandler<{ handler: ApiHandler }>(
      HANDLERS.submitOrder,
      brokenQueue,
    ).handler;

    const response = await submitWithoutQueue(
      postOrderEvent(JSON.stringify(validOrder('order-lost-start'))),
      lambdaContext(),
    );
    expect(response.statusCode).toBe(202);
    expect(await stateItem(world, resources, 'order-lost-start')).toMatchObject({
      ProcessState: 'Pending',
      Attempt: 0,
    });
    expect(await drainQueue(world, resources.startQueueUrl)).toEqual([]);

    // Recovery: once the start grace (1 s) has passed, a supervisor sweep hands the order back.
    await sleep(1_100);
    const supervisor = loadHandler<{ handler: SupervisorHandler }>(
      HANDLERS.supervisor,
      handlerEnv(resources),
    ).handler;
    const summary = await supervisor({}, lambdaContext());
    expect(summary.restarts).toBe(1);
    expect(await drainBodies(world, resources.startQueueUrl)).toEqual([
      { orderId: 'order-lost-start', reason: 'supervisor-restart', correlationId: expect.any(String) },
    ]);
    expect(await delayedMessageCount(world, resources.startQueueUrl)).toBe(0);
  });

  it('writes nothing when the state write fails (one transaction), and the retry is accepted once', async () => {
    const stateDown = loadHandler<{ handler: ApiHandler }>(
      HANDLERS.submitOrder,
      handlerEnv(resources, { env: { STATE_TABLE_NAME: 'no-such-state-table' } }),
    ).handler;
    const body = JSON.stringify(validOrder('order-half-written'));

    expect((await stateDown(postOrderEvent(body), lambdaContext())).statusCode).toBe(500);
    await expectNothingWritten();
    expect(await scanAll(world, resources.admissionTable)).toEqual([]);

    const retry = await submit(postOrderEvent(body), lambdaContext());
    expect(retry.statusCode).toBe(202);
    expect(await scanAll(world, resources.ordersTable)).toHaveLength(1);
    expect(await stateItem(world, resources, 'order-half-written')).toMatchObject({
      ProcessState: 'Pending',
    });
    expect(await drainBodies(world, resources.startQueueUrl)).toEqual([
      { orderId: 'order-half-written', reason: 'submitted', correlationId: expect.any(String) },
    ]);
  });

  it('accepts an order stored without its state record (written before acceptance was one transaction) once', async () => {
    const first = await submit(postOrderEvent(JSON.stringify(validOrder('order-legacy'))), lambdaContext());
    expect(first.statusCode).toBe(202);
    const [order] = await scanAll(world, resources.ordersTable);
    // A fresh set of tables holding only that order item, as a half-written request left it.
    resources = await createResources(world);
    submit = loadHandler<{ handler: ApiHandler }>(HANDLERS.submitOrder, handlerEnv(resources)).handler;
    await world.doc.send(new PutCommand({ TableName: resources.ordersTable, Item: order }));

    // Different data while no record says whose order it is: a 409 that names no field.
    const unknownOwner = await submit(
      postOrderEvent(JSON.stringify(validOrder('order-legacy', { customerId: 'someone-else' })), {
        apiKeyId: TEST_CLIENTS.second.apiKeyId,
      }),
      lambdaContext(),
    );
    expect(unknownOwner.statusCode).toBe(409);
    expect(json(unknownOwner)).not.toHaveProperty('errors');

    const retry = await submit(postOrderEvent(JSON.stringify(validOrder('order-legacy'))), lambdaContext());
    expect(retry.statusCode).toBe(202);
    expect(await scanAll(world, resources.ordersTable)).toEqual([order]);
    expect(await stateItem(world, resources, 'order-legacy')).toMatchObject({ ProcessState: 'Pending' });
    const counters = await scanAll(world, resources.admissionTable);
    expect(counters.map((counter) => counter.InFlight)).toEqual([1]);

    const conflicting = await submit(
      postOrderEvent(JSON.stringify(validOrder('order-legacy', { totalCents: 1 }))),
      lambdaContext(),
    );
    expect(conflicting.statusCode).toBe(409);
  });

  it('answers 500 (no stack, correlation id) when the orders table is unavailable, and writes nothing', async () => {
    const broken = loadHandler<{ handler: ApiHandler }>(
      HANDLERS.submitOrder,
      handlerEnv(resources, { env: { ORDERS_TABLE_NAME: 'no-such-table' } }),
    ).handler;
    const response = await broken(
      postOrderEvent(JSON.stringify(validOrder('order-db-down')), {
        headers: { 'X-Correlation-Id': 'trace-500' },
      }),
      lambdaContext(),
    );
    expect(response.statusCode).toBe(500);
    expect(json(response)).toEqual({ message: 'Internal error', correlationId: 'trace-500' });
    expect(response.body).not.toMatch(/ResourceNotFound|no-such-table|\.ts:/);
    await expectNothingWritten();
  });
});

describe('clients: the API key id decides who submits and who may read', () => {
  it.each([
    ['no key id', null],
    ['a key id of no registered client', 'key-of-nobody'],
  ])('refuses a submission with %s (403) and writes nothing', async (_case, apiKeyId) => {
    const response = await post(validOrder('order-anon'), { apiKeyId });
    expect(response.statusCode).toBe(403);
    expect(json(response)).toEqual({ message: 'This API key is not registered to a client' });
    await expectNothingWritten();
  });

  it("records each client's orders under its ClientId", async () => {
    await post(validOrder('order-first'));
    await post(validOrder('order-second'), { apiKeyId: TEST_CLIENTS.second.apiKeyId });
    expect(await stateItem(world, resources, 'order-first')).toMatchObject({ ClientId: 'web-shop' });
    expect(await stateItem(world, resources, 'order-second')).toMatchObject({ ClientId: 'call-center' });
  });

  it("answers another client's resubmission of the same order with 409, changing nothing and alerting no one", async () => {
    await post(validOrder('order-owned'));
    const recordBefore = await stateItem(world, resources, 'order-owned');
    await drainQueue(world, resources.startQueueUrl);
    const response = await post(validOrder('order-owned'), { apiKeyId: TEST_CLIENTS.second.apiKeyId });
    expect(response.statusCode).toBe(409);
    expect(json(response)).toEqual({
      message: "Order id 'order-owned' is not available; choose another orderId",
    });
    // Not the owner's status: nothing of the order is shown to the other client.
    expect(response.body).not.toContain('Pending');
    expect(await stateItem(world, resources, 'order-owned')).toEqual(recordBefore);
    expect(await drainQueue(world, resources.startQueueUrl)).toEqual([]);
    expect(await drainQueue(world, resources.conflictQueueUrl)).toEqual([]);
    expect(world.events.callsTo('PutEvents')).toEqual([]);
    // The owner's own resubmission is still an identical resubmission.
    expect((await post(validOrder('order-owned'))).statusCode).toBe(200);
  });

  it("refuses another client's orderId before comparing data, takes no admission slot and reports no conflict", async () => {
    await post(validOrder('order-taken'));
    const recordBefore = await stateItem(world, resources, 'order-taken');
    const inFlight = async () =>
      (await scanAll(world, resources.admissionTable))
        .filter((item) => typeof item.InFlight === 'number')
        .reduce((sum, item) => sum + (item.InFlight as number), 0);
    expect(await inFlight()).toBe(1);
    await drainQueue(world, resources.startQueueUrl);
    world.events.calls.length = 0;
    // Different data: still "another client's", never a data conflict (no conflict DLQ, no alert).
    const response = await post(validOrder('order-taken', { totalCents: 1 }), {
      apiKeyId: TEST_CLIENTS.second.apiKeyId,
    });
    expect(response.statusCode).toBe(409);
    expect(json(response)).toEqual({
      message: "Order id 'order-taken' is not available; choose another orderId",
    });
    expect(await stateItem(world, resources, 'order-taken')).toEqual(recordBefore);
    expect(await inFlight()).toBe(1);
    expect(await drainQueue(world, resources.startQueueUrl)).toEqual([]);
    expect(await drainQueue(world, resources.conflictQueueUrl)).toEqual([]);
    expect(world.events.callsTo('PutEvents')).toEqual([]);
    // The same answer whatever the other order holds: identical data, or the order once it is
    // terminal, reveal nothing more (headers included, but the correlation id).
    const identical = await post(validOrder('order-taken'), { apiKeyId: TEST_CLIENTS.second.apiKeyId });
    await world.doc.send(
      new UpdateCommand({
        TableName: resources.stateTable,
        Key: { OrderID: 'order-taken' },
        UpdateExpression: 'SET ProcessState = :state',
        ExpressionAttributeValues: { ':state': 'Processed' },
      }),
    );
    const afterTerminal = await post(validOrder('order-taken', { totalCents: 7 }), {
      apiKeyId: TEST_CLIENTS.second.apiKeyId,
    });
    const shape = (answer: typeof response) => ({
      statusCode: answer.statusCode,
      body: answer.body,
      headers: Object.keys(answer.headers ?? {}).sort(),
    });
    expect(shape(identical)).toEqual(shape(response));
    expect(shape(afterTerminal)).toEqual(shape(response));
  });

  it("answers another client's GET with 404, exactly as for a missing order; a key of no client with 403", async () => {
    await post(validOrder('order-private'));
    const other = await getOrder(
      getOrderEvent('order-private', TEST_CLIENTS.second.apiKeyId),
      lambdaContext(),
    );
    expect(other.statusCode).toBe(404);
    expect(json(other)).toEqual({ message: "Order 'order-private' not found" });
    const owner = await getOrder(getOrderEvent('order-private'), lambdaContext());
    expect(owner.statusCode).toBe(200);
    const anonymous = await getOrder(getOrderEvent('order-private', 'key-of-nobody'), lambdaContext());
    expect(anonymous.statusCode).toBe(403);
  });
});

describe('GET /orders/{orderId}', () => {
  it('returns 200 with the status of a known order', async () => {
    await post(validOrder('order-get'));
    const response = await getOrder(getOrderEvent('order-get'), lambdaContext());
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({
      orderId: 'order-get',
      processState: 'Pending',
      failureCount: 0,
      attempt: 0,
      steps: V1_STEPS.map((step) => ({ name: step.name, status: 'NotStarted' })),
      updatedAt: expect.any(String),
    });
  });

  it('returns 404 for an unknown order', async () => {
    const response = await getOrder(getOrderEvent('nobody'), lambdaContext());
    expect(response.statusCode).toBe(404);
    expect(json(response)).toEqual({ message: "Order 'nobody' not found" });
  });

  it.each([
    ['an invalid id', 'bad id!'],
    ['a too long id', 'x'.repeat(65)],
    ['a missing id', undefined],
  ])('returns 400 for %s', async (_case, orderId) => {
    const response = await getOrder(getOrderEvent(orderId), lambdaContext());
    expect(response.statusCode).toBe(400);
    expect(json(response)).toMatchObject({ errors: [{ path: 'orderId' }] });
  });

  it('reads the record with one consistent key lookup', async () => {
    world.dynamo.calls.length = 0;
    await getOrder(getOrderEvent('order-x'), lambdaContext());
    expect(world.dynamo.calls.map((call) => [call.operation, call.body.ConsistentRead])).toEqual([
      ['GetItem', true],
    ]);
  });
});
