/**
 * The fake remote services over real HTTP (function URL double), with the ledger on DynamoDB Local.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDbLedger, readLedger } from '../../../lambdas/fakes/adapters/ledger';
import { FAKES_METRICS_NAMESPACE, FakesEnvKey } from '../../../lambdas/fakes/contracts';
import { PowertoolsEnvKey } from '../../../lambdas/shared/env';
import { startDynamoDbLocal, TEST_CREDENTIALS, TEST_REGION } from '../../support/emulators';
import { startFunctionUrlServer } from '../../support/function-url-server';
import {
  type AgentHarness,
  LEDGER_TABLE,
  ledgerEffect,
  ledgerEffectsFor,
  startAgentHarness,
} from '../scheduler-agent-supervisor/agents/harness';

const TEST_AWS_ENV = {
  AWS_REGION: TEST_REGION,
  AWS_ACCESS_KEY_ID: TEST_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: TEST_CREDENTIALS.secretAccessKey,
};

const STALL_MILLIS = 600;
const SLOW_MILLIS = 400;

describe('remote service (integration, over HTTP)', () => {
  let h: AgentHarness;

  beforeAll(async () => {
    h = await startAgentHarness({ stallMillis: STALL_MILLIS, slowMillis: SLOW_MILLIS });
  });
  afterAll(async () => {
    await h?.stop();
  });

  const order = (skus: string[] = ['BOOK']) => ({
    orderId: `order-${randomUUID().slice(0, 8)}`,
    customerId: 'customer-1',
    items: skus.map((sku) => ({ sku, quantity: 2 })),
    totalCents: 4200,
    currency: 'EUR',
  });

  async function post(
    path: string,
    body: unknown,
    key: string | undefined,
  ): Promise<{ status: number; body: Record<string, unknown>; headers: Headers; tookMillis: number }> {
    const started = Date.now();
    const response = await fetch(`${h.remote.url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(key === undefined ? {} : { 'idempotency-key': key }),
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return {
      status: response.status,
      body: (await response.json()) as Record<string, unknown>,
      headers: response.headers,
      tookMillis: Date.now() - started,
    };
  }

  it('records an effect once: 201 with a confirmation, then 200 replays it unchanged', async () => {
    const body = order();
    const key = `${body.orderId}:ChargePayment`;

    const first = await post('/payments/charges', body, key);
    const again = await post('/payments/charges', body, key);

    expect(first.status).toBe(201);
    expect(first.body.confirmationId).toMatch(/^payment-/);
    expect(again).toMatchObject({ status: 200, body: first.body });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await ledgerEffect(h.dynamo, 'payment', key)).toBe(first.body.confirmationId);
    expect(await ledgerEffectsFor(h.dynamo, key)).toBe(1);
  });

  it('keeps one effect when many calls with one key race', async () => {
    const body = order();
    const key = `${body.orderId}:ReserveInventory`;

    const answers = await Promise.all(
      Array.from({ length: 8 }, () => post('/inventory/reservations', body, key)),
    );

    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(7);
    expect(new Set(answers.map((a) => a.body.confirmationId)).size).toBe(1);
    expect(await ledgerEffectsFor(h.dynamo, key)).toBe(1);
  });

  it('routes by path: each service records its own effect', async () => {
    const body = order();
    const key = `${body.orderId}:shared-key`;

    await post('/inventory/reservations', body, key);
    await post('/shipping/shipments', body, key);

    expect(await ledgerEffect(h.dynamo, 'inventory', key)).toMatch(/^inventory-/);
    expect(await ledgerEffect(h.dynamo, 'shipping', key)).toMatch(/^shipping-/);
    expect(await ledgerEffect(h.dynamo, 'payment', key)).toBeUndefined();
  });

  it('answers 400 naming the header when Idempotency-Key is missing, and records nothing', async () => {
    const body = order();

    const answer = await post('/payments/charges', body, undefined);

    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      message: 'Missing Idempotency-Key header',
      errors: [{ path: 'headers.Idempotency-Key', message: expect.stringContaining('required') }],
    });
    expect(await ledgerEffectsFor(h.dynamo, `${body.orderId}:ChargePayment`)).toBe(0);
  });

  it('answers 400 for a malformed Idempotency-Key', async () => {
    const answer = await post('/payments/charges', order(), 'has spaces in it');
    expect(answer).toMatchObject({ status: 400, body: { message: 'Invalid Idempotency-Key header' } });
  });

  // Paths in the dialect of every 400 of the project (lambdas/shared/validation.ts), under `body.`.
  it.each([
    ['bad JSON', '{"orderId":', 'body', 'Body is not valid JSON', /^must be valid JSON/],
    [
      'a missing field',
      { ...order(), customerId: undefined },
      'body.customerId',
      'Invalid request body',
      /^is required$/,
    ],
    [
      'an unknown field',
      { ...order(), coupon: 'FREE' },
      'body.coupon',
      'Invalid request body',
      /not an allowed field/,
    ],
    [
      'a bad quantity',
      { ...order(), items: [{ sku: 'A', quantity: 0 }] },
      'body.items[0].quantity',
      'Invalid request body',
      />=1/,
    ],
  ])(
    'answers 400 naming the problem for %s, recording nothing',
    async (_case, body, path, message, detail) => {
      const key = `bad-body-${randomUUID()}`;
      const answer = await post('/payments/charges', body, key);
      expect(answer.status).toBe(400);
      expect(answer.body.message).toBe(message);
      expect(answer.body.errors).toEqual(
        expect.arrayContaining([{ path, message: expect.stringMatching(detail) }]),
      );
      expect(await ledgerEffectsFor(h.dynamo, key)).toBe(0);
    },
  );

  it('answers 404 for a path no service serves and 405 for a non-POST', async () => {
    expect((await post('/refunds', order(), 'k-404')).status).toBe(404);
    const get = await fetch(`${h.remote.url}/payments/charges`, { headers: { 'idempotency-key': 'k-405' } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('FLAKY: 503 for the first two calls of a key, then success, with one effect', async () => {
    const body = order(['FLAKY']);
    const key = `${body.orderId}:ScheduleShipping`;

    const statuses: number[] = [];
    for (let call = 0; call < 4; call += 1)
      statuses.push((await post('/shipping/shipments', body, key)).status);

    expect(statuses).toEqual([503, 503, 201, 200]);
    expect(await ledgerEffectsFor(h.dynamo, key)).toBe(1);
  });

  it('OUTAGE: payment answers 503 to every call of a key until its outage is ended, then records one effect; other services are unaffected', async () => {
    const body = order(['OUTAGE']);
    const key = `${body.orderId}:ChargePayment`;
    for (let call = 0; call < 6; call += 1) {
      expect((await post('/payments/charges', body, key)).status).toBe(503);
    }
    expect(await ledgerEffectsFor(h.dynamo, key)).toBe(0);
    expect((await post('/inventory/reservations', body, `${body.orderId}:ReserveInventory`)).status).toBe(
      201,
    );

    await new DynamoDbLedger(h.dynamo, LEDGER_TABLE).endOutage('payment', key);
    expect((await post('/payments/charges', body, key)).status).toBe(201);
    expect((await post('/payments/charges', body, key)).status).toBe(200);
    expect(await ledgerEffectsFor(h.dynamo, key)).toBe(1);
    // The outage of one key is its own: another order's payment is still unavailable.
    const other = order(['OUTAGE']);
    expect((await post('/payments/charges', other, `${other.orderId}:ChargePayment`)).status).toBe(503);
  });

  it('PERM-FAIL: the payment service refuses with 422 every time and records nothing', async () => {
    const body = order(['PERM-FAIL']);
    const key = `${body.orderId}:ChargePayment`;

    const first = await post('/payments/charges', body, key);
    const second = await post('/payments/charges', body, key);

    expect([first.status, second.status]).toEqual([422, 422]);
    expect(first.body.message).toContain('PERM-FAIL');
    expect(await ledgerEffectsFor(h.dynamo, key)).toBe(0);
  });

  it('PERM-FAIL and STALL-ONCE are played by the payment service only', async () => {
    const body = order(['PERM-FAIL', 'STALL-ONCE']);
    const answer = await post('/inventory/reservations', body, `${body.orderId}:ReserveInventory`);
    expect(answer.status).toBe(201);
    expect(answer.tookMillis).toBeLessThan(STALL_MILLIS);
  });

  it('STALL-ONCE: the first call records the effect but answers 504 after the stall; later calls replay it', async () => {
    const body = order(['STALL-ONCE']);
    const key = `${body.orderId}:ChargePayment`;

    const first = await post('/payments/charges', body, key);

    expect(first.status).toBe(504);
    expect(first.tookMillis).toBeGreaterThanOrEqual(STALL_MILLIS - 5);
    const recorded = await ledgerEffect(h.dynamo, 'payment', key);
    expect(recorded).toBeDefined();

    const second = await post('/payments/charges', body, key);
    expect(second).toMatchObject({ status: 200, body: { confirmationId: recorded } });
    expect(second.tookMillis).toBeLessThan(STALL_MILLIS);
    expect(await ledgerEffectsFor(h.dynamo, key)).toBe(1);
  });

  // ---------------------------------------------------------------------------------------------
  // Compensations
  // ---------------------------------------------------------------------------------------------

  /** The ledger's view of one order: its effects, undos and closed keys, by key. */
  async function ledgerOf(orderId: string) {
    const all = await readLedger(h.dynamo, LEDGER_TABLE);
    const mine = <T extends { idempotencyKey: string }>(entries: readonly T[]) =>
      entries.filter((entry) => entry.idempotencyKey.startsWith(`${orderId}:`));
    return { effects: mine(all.effects), undos: mine(all.undos), closedKeys: mine(all.closedKeys) };
  }

  it('undoes a recorded effect once: 201 undone, then 200 replays; the effect is marked undone', async () => {
    const body = order();
    const key = `${body.orderId}:ChargePayment`;
    const charge = await post('/payments/charges', body, key);
    const undo = { orderId: body.orderId, undoes: key };

    const first = await post('/payments/refunds', undo, `${body.orderId}:RefundPayment`);
    const again = await post('/payments/refunds', undo, `${body.orderId}:RefundPayment`);

    expect(first.status).toBe(201);
    expect(first.body).toEqual({ confirmationId: expect.stringMatching(/^payment-undo-/), undone: true });
    expect(again).toMatchObject({ status: 200, body: first.body });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await ledgerOf(body.orderId)).toEqual({
      effects: [
        {
          service: 'payment',
          idempotencyKey: key,
          confirmationId: charge.body.confirmationId,
          skus: ['BOOK'],
          undoneBy: `${body.orderId}:RefundPayment`,
          undoneAt: expect.any(String),
        },
      ],
      undos: [
        {
          service: 'payment',
          idempotencyKey: `${body.orderId}:RefundPayment`,
          undoes: key,
          undone: true,
          confirmationId: first.body.confirmationId,
          createdAt: expect.any(String),
        },
      ],
      closedKeys: [],
    });
  });

  it('refuses (422) an original call whose effect was undone, even as a replay of the same key', async () => {
    const body = order();
    const key = `${body.orderId}:ScheduleShipping`;
    await post('/shipping/shipments', body, key);
    await post(
      '/shipping/cancellations',
      { orderId: body.orderId, undoes: key },
      `${body.orderId}:CancelShipment`,
    );

    const late = await post('/shipping/shipments', body, key);

    expect(late.status).toBe(422);
    expect(late.body.message).toContain('compensated');
    expect((await ledgerOf(body.orderId)).effects).toHaveLength(1);
  });

  it('answers undone: false for a key with no effect, closes it, and then refuses the original call (422)', async () => {
    const body = order();
    const key = `${body.orderId}:ReserveInventory`;
    const undo = { orderId: body.orderId, undoes: key };

    const first = await post('/inventory/releases', undo, `${body.orderId}:ReleaseInventory`);
    const late = await post('/inventory/reservations', body, key);
    const replay = await post('/inventory/releases', undo, `${body.orderId}:ReleaseInventory`);

    expect(first).toMatchObject({ status: 201, body: { undone: false } });
    expect(late.status).toBe(422);
    expect(replay).toMatchObject({ status: 200, body: first.body });
    expect(await ledgerOf(body.orderId)).toEqual({
      effects: [],
      undos: [expect.objectContaining({ undoes: key, undone: false })],
      closedKeys: [
        { service: 'inventory', idempotencyKey: key, closedBy: `${body.orderId}:ReleaseInventory` },
      ],
    });
  });

  it('undoes once when many deliveries of one compensation race', async () => {
    const body = order();
    const key = `${body.orderId}:ChargePayment`;
    await post('/payments/charges', body, key);

    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        post('/payments/refunds', { orderId: body.orderId, undoes: key }, `${body.orderId}:RefundPayment`),
      ),
    );

    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map((a) => JSON.stringify(a.body)))).toEqual(
      new Set([JSON.stringify(answers[0]?.body)]),
    );
    expect(answers[0]?.body.undone).toBe(true);
    const ledger = await ledgerOf(body.orderId);
    expect(ledger.undos).toHaveLength(1);
    expect(ledger.effects.map((e) => e.undoneBy)).toEqual([`${body.orderId}:RefundPayment`]);
  });

  it('settles an original call racing its compensation one way or the other, never both', async () => {
    for (let round = 0; round < 5; round += 1) {
      const body = order();
      const key = `${body.orderId}:ChargePayment`;

      const [charge, refund] = await Promise.all([
        post('/payments/charges', body, key),
        post('/payments/refunds', { orderId: body.orderId, undoes: key }, `${body.orderId}:RefundPayment`),
      ]);

      const ledger = await ledgerOf(body.orderId);
      expect(refund.status).toBe(201);
      if (refund.body.undone === true) {
        // The charge came first: recorded once, then undone.
        expect(charge.status).toBe(201);
        expect(ledger.effects).toEqual([
          expect.objectContaining({ undoneBy: `${body.orderId}:RefundPayment` }),
        ]);
        expect(ledger.closedKeys).toEqual([]);
      } else {
        // The refund came first: the key is closed, and the charge was refused.
        expect(charge.status).toBe(422);
        expect(ledger.effects).toEqual([]);
        expect(ledger.closedKeys).toHaveLength(1);
      }
    }
  });

  it('UNDO-FLAKY: 503 for the first two calls of a compensation key, then one undo', async () => {
    const body = order(['UNDO-FLAKY']);
    const key = `${body.orderId}:ReserveInventory`;
    expect((await post('/inventory/reservations', body, key)).status).toBe(201);

    const statuses: number[] = [];
    for (let call = 0; call < 4; call += 1) {
      const answer = await post(
        '/inventory/releases',
        { orderId: body.orderId, undoes: key },
        `${body.orderId}:ReleaseInventory`,
      );
      statuses.push(answer.status);
    }

    expect(statuses).toEqual([503, 503, 201, 200]);
    const ledger = await ledgerOf(body.orderId);
    expect(ledger.undos).toEqual([expect.objectContaining({ undone: true })]);
  });

  it('UNDO-FAIL: every compensation is refused with 422, and the effect stands', async () => {
    const body = order(['UNDO-FAIL']);
    const key = `${body.orderId}:ChargePayment`;
    expect((await post('/payments/charges', body, key)).status).toBe(201);

    const answers = [];
    for (let call = 0; call < 3; call += 1) {
      answers.push(
        await post(
          '/payments/refunds',
          { orderId: body.orderId, undoes: key },
          `${body.orderId}:RefundPayment`,
        ),
      );
    }

    expect(answers.map((a) => a.status)).toEqual([422, 422, 422]);
    expect(answers[0]?.body.message).toContain('UNDO-FAIL');
    const ledger = await ledgerOf(body.orderId);
    expect(ledger.undos).toEqual([]);
    expect(ledger.effects).toEqual([expect.not.objectContaining({ undoneBy: expect.anything() })]);
  });

  it.each([
    ['PERM-FAIL-INVENTORY', '/inventory/reservations', 'ReserveInventory', 'inventory'],
    ['PERM-FAIL-SHIPPING', '/shipping/shipments', 'ScheduleShipping', 'shipping'],
  ])(
    '%s: POST %s is refused with 422 every time and records nothing; the other services serve',
    async (sku, path, step, service) => {
      const body = order([sku]);
      const key = `${body.orderId}:${step}`;

      const answers = [await post(path, body, key), await post(path, body, key)];

      expect(answers.map((a) => a.status)).toEqual([422, 422]);
      expect(answers[0]?.body.message).toBe(`${service} refused for SKU ${sku}`);
      expect(await ledgerEffectsFor(h.dynamo, key)).toBe(0);
      expect((await post('/payments/charges', body, `${body.orderId}:ChargePayment`)).status).toBe(201);
    },
  );

  it('SLOW: every call, original or compensation, is held SLOW_MILLIS and then answered normally', async () => {
    const body = order(['SLOW']);
    const key = `${body.orderId}:ChargePayment`;

    const charge = await post('/payments/charges', body, key);
    const replay = await post('/payments/charges', body, key);
    const refund = await post(
      '/payments/refunds',
      { orderId: body.orderId, undoes: key },
      `${body.orderId}:RefundPayment`,
    );

    expect([charge.status, replay.status, refund.status]).toEqual([201, 200, 201]);
    expect(refund.body.undone).toBe(true);
    for (const answer of [charge, replay, refund])
      expect(answer.tookMillis).toBeGreaterThanOrEqual(SLOW_MILLIS - 5);
    const ordinary = await post('/payments/charges', order(), `${randomUUID()}:ChargePayment`);
    expect(ordinary.tookMillis).toBeLessThan(SLOW_MILLIS);
  });

  it('answers 400 for a compensation body that is not { orderId, undoes }, or that undoes its own key, undoing nothing', async () => {
    const body = order();
    const key = `${body.orderId}:ChargePayment`;
    await post('/payments/charges', body, key);

    const withOrderData = await post(
      '/payments/refunds',
      { ...body, undoes: key },
      `${body.orderId}:RefundPayment`,
    );
    const withoutUndoes = await post(
      '/payments/refunds',
      { orderId: body.orderId },
      `${body.orderId}:RefundPayment`,
    );
    const ownKey = await post(
      '/payments/refunds',
      { orderId: body.orderId, undoes: `${body.orderId}:RefundPayment` },
      `${body.orderId}:RefundPayment`,
    );

    expect(withOrderData.status).toBe(400);
    expect(withOrderData.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'body.customerId', message: expect.stringMatching(/not an allowed field/) },
      ]),
    );
    expect(withoutUndoes.status).toBe(400);
    expect(withoutUndoes.body.errors).toEqual([{ path: 'body.undoes', message: 'is required' }]);
    expect(ownKey.status).toBe(400);
    expect(ownKey.body.errors).toEqual([{ path: 'body.undoes', message: expect.stringContaining('own') }]);
    const ledger = await ledgerOf(body.orderId);
    expect(ledger.undos).toEqual([]);
    expect(ledger.effects.map((e) => e.undoneBy)).toEqual([undefined]);
  });
});

describe('remote service failures', () => {
  const env = { ...process.env };
  afterEach(() => {
    process.env = { ...env };
  });

  async function load(overrides: Record<string, string | undefined>) {
    process.env = {
      ...env,
      [FakesEnvKey.LedgerTableName]: LEDGER_TABLE,
      [FakesEnvKey.StallMillis]: '0',
      [FakesEnvKey.SlowMillis]: '0',
      // What the platform's function construct sets on every function.
      [PowertoolsEnvKey.ServiceName]: 'remote-service-test',
      [PowertoolsEnvKey.MetricsNamespace]: FAKES_METRICS_NAMESPACE,
      [PowertoolsEnvKey.TraceEnabled]: 'false',
      ...overrides,
    };
    for (const [key, value] of Object.entries(overrides)) if (value === undefined) delete process.env[key];
    let handler: typeof import('../../../lambdas/fakes/handlers/remote-service').handler | undefined;
    await jest.isolateModulesAsync(async () => {
      handler = (await import('../../../lambdas/fakes/handlers/remote-service')).handler;
    });
    if (!handler) throw new Error('remote service did not load');
    return handler;
  }

  it.each([
    [
      { [FakesEnvKey.StallMillis]: 'soon' },
      "STALL_MILLIS must be a non-negative integer of milliseconds, got 'soon'",
    ],
    [
      { [FakesEnvKey.SlowMillis]: '-1' },
      "SLOW_MILLIS must be a non-negative integer of milliseconds, got '-1'",
    ],
    [{ [FakesEnvKey.SlowMillis]: undefined }, 'Missing required environment variable SLOW_MILLIS'],
    [{ [FakesEnvKey.LedgerTableName]: undefined }, 'Missing required environment variable LEDGER_TABLE_NAME'],
  ])('refuses to start with a bad environment (%o)', async (overrides, message) => {
    await expect(load(overrides)).rejects.toThrow(message);
  });

  it('throws (the function URL answers 502, which agents retry) when the ledger is unavailable', async () => {
    // The ledger named here was never created (this file's database holds only the harness's).
    const dynamoDb = await startDynamoDbLocal();
    try {
      const handler = await load({
        AWS_ENDPOINT_URL_DYNAMODB: dynamoDb.endpoint,
        [FakesEnvKey.LedgerTableName]: 'ledger-never-created',
        ...TEST_AWS_ENV,
      });
      const server = await startFunctionUrlServer(handler);
      try {
        const answer = await fetch(`${server.url}/payments/charges`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': 'k-ledger-down' },
          body: JSON.stringify({
            orderId: 'o-1',
            customerId: 'c',
            items: [{ sku: 'A', quantity: 1 }],
            totalCents: 1,
            currency: 'EUR',
          }),
        });
        expect(answer.status).toBe(502);
        expect(server.requests[0]?.handlerError).toContain('ResourceNotFoundException');
      } finally {
        await server.stop();
      }
    } finally {
      await dynamoDb.stop();
    }
  });
});
