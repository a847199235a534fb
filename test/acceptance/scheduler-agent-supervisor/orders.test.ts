/**
 * Black-box acceptance scenarios of the Scheduler Agent Supervisor app. They talk only to the API
 * and read the state store, the downstream ledger and the alert inbox named by the target
 * description, so the same file runs against the local runtime (npm test), LocalStack
 * (npm run test:localstack) and AWS (npm run test:aws).
 */
import { randomUUID } from 'node:crypto';
import {
  DEFAULT_WORKFLOW_VERSION,
  workflowSteps,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { acceptanceTarget, scenarioTimeoutMs } from '../setup';
import { SystemClient } from './system-client';

/** The steps of an order on the default workflow version (what these tests deploy). */
const V1_STEPS = workflowSteps(DEFAULT_WORKFLOW_VERSION);

const runId = randomUUID().slice(0, 8);
const orderId = (name: string) => `acc-${runId}-${name}`;
const order = (id: string, sku = 'SKU-1', overrides: Record<string, unknown> = {}) => ({
  orderId: id,
  customerId: 'customer-42',
  items: [{ sku, quantity: 2 }],
  totalCents: 1999,
  currency: 'EUR',
  ...overrides,
});

let system: SystemClient;
beforeAll(() => {
  system = new SystemClient(acceptanceTarget());
});
afterAll(() => system.close());

describe('a normal order', () => {
  const id = orderId('normal');

  it('is accepted with 202, a Location header and Pending', async () => {
    const response = await system.submit(order(id));
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ orderId: id, processState: 'Pending' });
    expect(response.headers.get('location')).toMatch(new RegExp(`/orders/${id}$`));
  });

  it('reaches Processed with every step Completed and one effect per step', async () => {
    const state = await system.waitForState(id, ['Processed', 'Error'], scenarioTimeoutMs.normal);
    expect(state.processState).toBe('Processed');
    expect(state.lockedBy).toBeUndefined();
    expect(Object.values(state.steps)).toEqual(V1_STEPS.map(() => 'Completed'));
    const effects = await system.ledgerEffects(id);
    expect(effects.map((e) => e.IdempotencyKey?.S).sort()).toEqual(
      V1_STEPS.map((s) => `${id}:${s.name}`).sort(),
    );
  });

  it('is reported by GET /orders/{id}', async () => {
    const response = await system.getOrder(id);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      orderId: id,
      processState: 'Processed',
      failureCount: 0,
      attempt: 1,
      steps: V1_STEPS.map((s) => ({ name: s.name, status: 'Completed' })),
    });
    expect(typeof (response.body as { updatedAt: unknown }).updatedAt).toBe('string');
  });

  it('resubmitted with identical data answers 200 and changes nothing', async () => {
    const before = await system.state(id);
    const response = await system.submit(order(id));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ orderId: id, processState: 'Processed' });
    expect(await system.state(id)).toEqual(before);
    expect(await system.ledgerEffects(id)).toHaveLength(V1_STEPS.length);
  });

  it('resubmitted with conflicting data answers 409 and dead-letters the request (counted, not alerted)', async () => {
    const response = await system.submit(order(id, 'SKU-1', { totalCents: 5 }));
    expect(response.status).toBe(409);
    expect((response.body as { message: string }).message).toMatch(/conflict|differ/i);
    const state = await system.state(id);
    expect(state?.processState).toBe('Processed');
    await expect(system.conflictMessagesFor(id)).resolves.toBeGreaterThanOrEqual(1);
  });
});

describe('bad input gets 400 and writes nothing', () => {
  const cases: [string, string][] = [
    ['malformed JSON', '{"orderId": '],
    ['a JSON array', '[]'],
    ['a wrong type', JSON.stringify({ ...order(orderId('bad-type')), totalCents: '12' })],
    ['an unknown field', JSON.stringify({ ...order(orderId('bad-field')), discount: 3 })],
    [
      'a missing field',
      JSON.stringify({
        orderId: orderId('bad-missing'),
        customerId: 'c',
        items: [{ sku: 'a', quantity: 1 }],
        currency: 'EUR',
      }),
    ],
    ['an invalid order id', JSON.stringify(order('has spaces!'))],
    ['no items', JSON.stringify({ ...order(orderId('bad-empty')), items: [] })],
    ['a zero quantity', JSON.stringify({ ...order(orderId('bad-qty')), items: [{ sku: 'a', quantity: 0 }] })],
    ['an oversize body', JSON.stringify({ ...order(orderId('bad-big')), customerId: 'x'.repeat(20_000) })],
  ];

  it.each(cases)('%s', async (_name, body) => {
    const response = await system.request('POST', '/orders', body);
    expect(response.status).toBe(400);
    const payload = response.body as { message?: unknown; errors?: { path: unknown; message: unknown }[] };
    expect(typeof payload.message).toBe('string');
    expect(Array.isArray(payload.errors)).toBe(true);
    for (const error of payload.errors ?? []) {
      expect(typeof error.path).toBe('string');
      expect(typeof error.message).toBe('string');
    }
    let id: unknown;
    try {
      id = (JSON.parse(body) as { orderId?: unknown }).orderId;
    } catch {
      id = undefined;
    }
    if (typeof id === 'string') {
      expect(await system.state(id)).toBeUndefined();
      expect(await system.orderExists(id)).toBe(false);
    }
  });

  it('names the offending field', async () => {
    const response = await system.request(
      'POST',
      '/orders',
      JSON.stringify({ ...order(orderId('bad-path')), items: [{ sku: 'a', quantity: 1.5 }] }),
    );
    expect(response.status).toBe(400);
    expect((response.body as { errors: { path: string }[] }).errors.map((e) => e.path)).toContain(
      'items[0].quantity',
    );
  });
});

it('an unknown order id answers 404', async () => {
  const response = await system.getOrder(orderId('never-submitted'));
  expect(response.status).toBe(404);
});

describe('scenarios played by the fake downstream', () => {
  it('a FLAKY order is Processed with no duplicated effect', async () => {
    const id = orderId('flaky');
    expect((await system.submit(order(id, 'FLAKY'))).status).toBe(202);
    const state = await system.waitForState(id, ['Processed', 'Error'], scenarioTimeoutMs.normal);
    expect(state.processState).toBe('Processed');
    expect(await system.ledgerEffects(id)).toHaveLength(V1_STEPS.length);
  });

  it('a STALL-ONCE order is reset by the supervisor and Processed with failureCount 1', async () => {
    const id = orderId('stall');
    expect((await system.submit(order(id, 'STALL-ONCE'))).status).toBe(202);
    const state = await system.waitForState(id, ['Processed', 'Error'], scenarioTimeoutMs.recovery);
    expect(state).toMatchObject({ processState: 'Processed', failureCount: 1, attempt: 2 });
    const keys = (await system.ledgerEffects(id)).map((e) => e.IdempotencyKey?.S).sort();
    expect(keys).toEqual(V1_STEPS.map((s) => `${id}:${s.name}`).sort());
  });

  it('a PERM-FAIL order is rolled back: Compensated, the reservation released once, no operator alert', async () => {
    const id = orderId('perm');
    expect((await system.submit(order(id, 'PERM-FAIL'))).status).toBe(202);
    const state = await system.waitForState(
      id,
      ['Processed', 'Error', 'Compensated', 'CompensationFailed'],
      scenarioTimeoutMs.normal,
    );
    expect(state).toMatchObject({
      processState: 'Compensated',
      steps: { ReserveInventory: 'Compensated', ChargePayment: 'Failed', ScheduleShipping: 'NotStarted' },
      compensationLog: { ReserveInventory: 'Compensated' },
    });
    expect(state.lockedBy).toBeUndefined();
    const paymentStep = V1_STEPS.find((s) => s.service === 'payment');
    const keys = (await system.ledgerEffects(id)).map((e) => e.IdempotencyKey?.S);
    expect(keys).not.toContain(`${id}:${paymentStep?.name}`);
    expect(await system.ledgerUndos(id)).toMatchObject([
      { idempotencyKey: `${id}:ReleaseInventory`, undoes: `${id}:ReserveInventory`, undone: true },
    ]);
    // A refusal the rollback absorbed needs no operator: the client is told (Compensated) instead.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await system.alertsFor(id)).toEqual([]);
  });
});
