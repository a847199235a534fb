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

describe('retry budget, end to end on the local runtime', () => {
  let workDir: string;
  let runtime: LocalRuntime;
  let system: SystemClient;
  let dynamo: DynamoDBClient;
  let stateTable: string;
  let duplicated = 0;

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
    // The mix really happened: duplicates were delivered, and an abandoned attempt was restarted.
    expect(duplicated).toBeGreaterThanOrEqual(2);
    expect(Number(record?.[StateAttr.Attempt]?.N)).toBeGreaterThanOrEqual(2);
    expect(Number(record?.[StateAttr.FailureCount]?.N)).toBeGreaterThanOrEqual(1);
  });
});

function parse(body: string | undefined): Record<string, unknown> | undefined {
  try {
    return JSON.parse(body ?? '') as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
