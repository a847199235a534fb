/**
 * The retry budget, measured end to end: the real app's assembly on the local runtime (the real
 * state machine, the real agents, starter and supervisor, DynamoDB Local, the fake downstream).
 * The payment service is out for the order (OUTAGE: 503 on every call), every agent request of the
 * order is delivered twice (SQS at-least-once, played by the runtime's duplicate-delivery hook), and
 * the first attempt is abandoned and restarted by the supervisor: with a test-sized budget of 9,
 * attempt 1's two deliveries make at most 4 + 4 calls, both fail transiently, and only a later
 * attempt can reach the budget. The downstream's own ledger counts the calls it received per order
 * and operation: never more than the order's RetryBudget, and exactly the budget for the payment,
 * because the budget is smaller than what the layers allow (3 attempts x 4 calls, doubled by the
 * duplicates), so the counter is what stops it.
 *
 * A spent budget is an uncertain outcome (issue 25): the calls were made, and one may have had its
 * effect with its answer lost. The second test loses the answer of an inventory reservation that
 * was made (the runtime's function-URL hook forwards the call, then answers 504) and spends the
 * order's budget on that one call, so the agent's retry is refused in the same execution: the
 * compact version (the default) undoes the step just in case, and the order ends Compensated with
 * the downstream's reservation undone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { AgentError, StateAttr } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { type LocalRuntime, startLocalRuntime, synthesizeLocalAssembly } from '../../../lib/local-runtime';
import { awsClientConfig } from '../../acceptance/client-support';
import { SystemClient } from '../../acceptance/scheduler-agent-supervisor/system-client';
import { parseTargetDescription } from '../../acceptance/target';
import { testClock, testTimingsContext } from '../../support/test-clock';

jest.setTimeout(240_000);

/**
 * Smaller than what the layers let through (3 attempts x 2 deliveries x 4 calls), so the record's
 * counter, not a layer, stops the calls; larger than one attempt's 2 x 4, so attempt 1 is abandoned
 * (transient) and restarted before the budget refuses.
 */
const TEST_BUDGET = 9;
const ORDER_PREFIX = 'budget-';
/** Orders whose first inventory reservation is made but its answer lost (no duplicates for them). */
const LOST_ANSWER_PREFIX = 'lost-answer-';
const LOST_STEP = 'ReserveInventory';

describe('retry budget, end to end on the local runtime', () => {
  let workDir: string;
  let runtime: LocalRuntime;
  let system: SystemClient;
  let dynamo: DynamoDBClient;
  let stateTable: string;
  let duplicated = 0;
  /** The status the service really answered each lost call with, by idempotency key. */
  const lostAnswers = new Map<string, number>();

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'retry-budget-it-'));
    const assemblyDir = join(workDir, 'cdk.out');
    synthesizeLocalAssembly(assemblyDir, { context: testTimingsContext() });
    runtime = await startLocalRuntime({
      assemblyDir,
      port: 0,
      targetFile: null,
      log: () => undefined,
      clock: testClock(),
      faults: {
        // The first reservation call of a lost-answer order reaches the inventory service and has
        // its effect; then the order's budget is made the one call already reserved, and the agent
        // gets a 504 instead of the answer.
        functionUrl: async (request, forward) => {
          const key = request.headers['idempotency-key'] ?? '';
          const orderId = key.slice(0, -`:${LOST_STEP}`.length);
          if (
            request.method !== 'POST' ||
            !key.startsWith(LOST_ANSWER_PREFIX) ||
            !key.endsWith(`:${LOST_STEP}`) ||
            lostAnswers.has(key)
          ) {
            return forward();
          }
          const reply = await forward();
          lostAnswers.set(key, reply.status);
          await spendBudget(orderId);
          return {
            status: 504,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ message: 'gateway timeout (test: the answer was lost)' }),
          };
        },
        // Every agent request of the test's orders comes twice, the copy 20 ms after the original.
        duplicateDelivery: ({ message }) => {
          const body = parse(message.Body);
          if (typeof body?.taskToken !== 'string' || !String(body.orderId).startsWith(ORDER_PREFIX)) {
            return undefined;
          }
          duplicated += 1;
          return 20;
        },
      },
    });
    const target = parseTargetDescription(runtime.target, { kind: 'local' });
    system = new SystemClient(target);
    dynamo = new DynamoDBClient(awsClientConfig(target, 'dynamodb'));
    stateTable = target.outputs.StateTableName ?? '';
  });

  /** The order's budget becomes the one call of LOST_STEP already reserved: its retry is refused. */
  const spendBudget = (orderId: string) =>
    dynamo.send(
      new UpdateItemCommand({
        TableName: stateTable,
        Key: { [StateAttr.OrderId]: { S: orderId } },
        UpdateExpression: 'SET #budget = :one',
        ConditionExpression: '#calls.#op = :one',
        ExpressionAttributeNames: {
          '#budget': StateAttr.RetryBudget,
          '#calls': StateAttr.CallsMade,
          '#op': LOST_STEP,
        },
        ExpressionAttributeValues: { ':one': { N: '1' } },
      }),
    );

  afterAll(async () => {
    system?.close();
    dynamo?.destroy();
    await runtime?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('a dependency that fails every call receives exactly the order budget of calls, duplicates and restarts included', async () => {
    const orderId = `${ORDER_PREFIX}${Date.now()}`;
    const accepted = await system.submit({
      orderId,
      customerId: 'c-budget',
      items: [{ sku: 'OUTAGE', quantity: 1 }],
      totalCents: 500,
      currency: 'EUR',
    });
    expect(accepted.status).toBe(202);
    // The record was created with the deployment's budget (36 in local); this order gets a smaller
    // one, as an order created under an earlier configuration would keep it. Conditional on no
    // payment call reserved yet (the inventory step runs first), so the test cannot race it.
    await dynamo.send(
      new UpdateItemCommand({
        TableName: stateTable,
        Key: { [StateAttr.OrderId]: { S: orderId } },
        UpdateExpression: 'SET #budget = :budget',
        ConditionExpression: 'attribute_not_exists(#calls.#charge)',
        ExpressionAttributeNames: {
          '#budget': StateAttr.RetryBudget,
          '#calls': StateAttr.CallsMade,
          '#charge': 'ChargePayment',
        },
        ExpressionAttributeValues: { ':budget': { N: String(TEST_BUDGET) } },
      }),
    );

    const done = await system.waitForState(
      orderId,
      ['Processed', 'Error', 'Compensated', 'CompensationFailed'],
      180_000,
    );

    // The charge was refused for good by the budget, so the reservation was undone.
    expect(done.processState).toBe('Compensated');
    const { calls } = await system.ledger(orderId);
    const received = Object.fromEntries(calls.map((entry) => [entry.idempotencyKey, entry.calls]));
    expect(received[`${orderId}:ChargePayment`]).toBe(TEST_BUDGET);
    for (const [key, count] of Object.entries(received)) {
      expect([key, count <= TEST_BUDGET]).toEqual([key, true]);
    }
    const { Item: record } = await dynamo.send(
      new GetItemCommand({
        TableName: stateTable,
        Key: { [StateAttr.OrderId]: { S: orderId } },
        ConsistentRead: true,
      }),
    );
    const reserved = Object.fromEntries(
      Object.entries(record?.[StateAttr.CallsMade]?.M ?? {}).map(([op, value]) => [op, Number(value.N)]),
    );
    // Every call the dependency received was reserved first; refused reservations never count.
    expect(reserved.ChargePayment).toBe(TEST_BUDGET);
    for (const [key, count] of Object.entries(received)) {
      const operation = key.slice(orderId.length + 1);
      expect([operation, count <= (reserved[operation] ?? 0)]).toEqual([operation, true]);
    }
    expect(record?.[StateAttr.LastError]?.M?.Error?.S).toBe(AgentError.RetryBudgetExhausted);
    // A spent budget is uncertain: the charge was undone just in case (the outage recorded nothing).
    const { undos } = await system.ledger(orderId);
    expect(undos.filter((undo) => undo.undoes === `${orderId}:ChargePayment`)).toEqual([
      expect.objectContaining({ undone: false }),
    ]);
    // The mix really happened: duplicates were delivered, and an abandoned attempt was restarted.
    expect(duplicated).toBeGreaterThanOrEqual(2);
    expect(Number(record?.[StateAttr.Attempt]?.N)).toBeGreaterThanOrEqual(2);
    expect(Number(record?.[StateAttr.FailureCount]?.N)).toBeGreaterThanOrEqual(1);
  });

  it('a budget spent after a call whose answer was lost: the step is undone just in case, and the order ends Compensated with its effect undone', async () => {
    const orderId = `${LOST_ANSWER_PREFIX}${Date.now()}`;
    const accepted = await system.submit({
      orderId,
      customerId: 'c-lost-answer',
      items: [{ sku: 'SKU-LOST', quantity: 1 }],
      totalCents: 500,
      currency: 'EUR',
    });
    expect(accepted.status).toBe(202);

    const done = await system.waitForState(
      orderId,
      ['Processed', 'Error', 'Compensated', 'CompensationFailed'],
      180_000,
    );

    // The call was made and had its effect; its answer never reached the agent.
    expect(lostAnswers.get(`${orderId}:${LOST_STEP}`)).toBe(201);
    const ledger = await system.ledger(orderId);
    expect(ledger.effects.map((effect) => effect.idempotencyKey)).toEqual([`${orderId}:${LOST_STEP}`]);
    // The retry was refused by the budget: the service received the one call.
    expect(ledger.calls.find((entry) => entry.idempotencyKey === `${orderId}:${LOST_STEP}`)?.calls).toBe(1);
    // The order is Compensated, and the reservation is undone (not left in place).
    expect(done.processState).toBe('Compensated');
    expect(ledger.undos).toEqual([
      expect.objectContaining({ undoes: `${orderId}:${LOST_STEP}`, undone: true }),
    ]);
    expect(ledger.effects[0]?.undoneBy).toBeDefined();
    expect(done.steps[LOST_STEP]).toBe('Compensated');
    expect(done.compensationLog[LOST_STEP]).toBe('Compensated');
    const { Item: record } = await dynamo.send(
      new GetItemCommand({
        TableName: stateTable,
        Key: { [StateAttr.OrderId]: { S: orderId } },
        ConsistentRead: true,
      }),
    );
    expect(record?.[StateAttr.LastError]?.M?.Error?.S).toBe(AgentError.RetryBudgetExhausted);
    // Undone just in case: its log entry was created Uncertain (Undo.MarkUncertain), not from a result.
    expect(record?.[StateAttr.CompensationLog]?.M?.[LOST_STEP]?.M?.Uncertain?.BOOL).toBe(true);
  });
});

function parse(body: string | undefined): Record<string, unknown> | undefined {
  try {
    return JSON.parse(body ?? '') as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
