/**
 * The fake remote services over real HTTP (function URL double), with the ledger on DynamoDB Local.
 */
import { randomUUID } from 'node:crypto';
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

describe('remote service (integration, over HTTP)', () => {
  let h: AgentHarness;

  beforeAll(async () => {
    h = await startAgentHarness({ stallMillis: STALL_MILLIS });
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
