/**
 * The fence of the scheduler, on a real DynamoDB emulator: the UpdateItem requests the state
 * machine would send (rendered from the synthesized definition, resolved against a sample
 * execution state) succeed for the instance holding the lock and are rejected, changing
 * nothing, for a stale instance.
 */
import {
  type AttributeValue,
  CreateTableCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { ORDER_STEPS } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { allStates } from '../../../lib/platform/guardrails';
import { resolveParameters } from '../../infra/support/asl-parameters';
import { stateMachineDefinition, synthesizeStack } from '../../infra/support/synth';
import { dynamoClient, type RunningEmulator, startDynamoDbLocal } from '../../support/emulators';

const ORDER_ID = 'order-42';
const HOLDER = `${ORDER_ID}--attempt-2`;
const STALE = `${ORDER_ID}--attempt-1`;
const PLAN_MILLIS = 1_900_000_000_000;
const [FIRST_STEP] = ORDER_STEPS;

/** The record as the starter leaves it after claiming attempt 2 (attempt 1 expired). */
function claimedRecord(): Record<string, AttributeValue> {
  return {
    OrderID: { S: ORDER_ID },
    ProcessState: { S: 'Processing' },
    LockedBy: { S: HOLDER },
    CompleteBy: { N: String(PLAN_MILLIS) },
    DueShard: { S: '3' },
    FailureCount: { N: '1' },
    Attempt: { N: '2' },
    Steps: {
      M: Object.fromEntries(ORDER_STEPS.map((s) => [s.name, { M: { Status: { S: 'NotStarted' } } }])),
    },
    Plan: {
      M: Object.fromEntries(ORDER_STEPS.map((s, k) => [s.name, { N: String(PLAN_MILLIS + k * 8000) }])),
    },
    SchemaVersion: { N: '1' },
    WorkflowVersion: { N: '1' },
    CreatedAt: { S: '2030-01-01T00:00:00.000Z' },
    UpdatedAt: { S: '2030-01-01T00:00:00.000Z' },
  };
}

describe('fenced store updates of the synthesized state machine (DynamoDB Local)', () => {
  let dynamo: RunningEmulator;
  let client: DynamoDBClient;
  let tableName: string;
  let parametersOf: (state: string) => Record<string, unknown>;
  let tableToken: string;
  let tableSchema: Omit<CreateTableCommandInput, 'TableName'>;
  let fencedUpdates: string[];
  let tables = 0;

  beforeAll(async () => {
    dynamo = await startDynamoDbLocal();
    client = dynamoClient(dynamo.endpoint);
    const { template, stack } = synthesizeStack('local');
    const states = allStates(stateMachineDefinition(template));
    parametersOf = (name) => {
      const parameters = states.get(name)?.Parameters;
      if (!parameters) throw new Error(`No Parameters on state ${name}`);
      return parameters;
    };
    const stateTableId = stack.resolve(stack.stateStore.table.tableName) as { Ref: string };
    tableToken = `{{Ref:${stateTableId.Ref}}}`;
    // Create the table from the template's own key schema and index, not from a copy of it.
    const resource = template.toJSON().Resources[stateTableId.Ref].Properties;
    tableSchema = {
      AttributeDefinitions: resource.AttributeDefinitions,
      KeySchema: resource.KeySchema,
      BillingMode: resource.BillingMode,
      GlobalSecondaryIndexes: resource.GlobalSecondaryIndexes,
    };
    fencedUpdates = [...states]
      .filter(([, state]) => state.Resource?.endsWith(':states:::dynamodb:updateItem'))
      .map(([name]) => name);
  });

  beforeEach(async () => {
    tableName = `state-${++tables}`;
    await client.send(new CreateTableCommand({ ...tableSchema, TableName: tableName }));
    await client.send(new PutItemCommand({ TableName: tableName, Item: claimedRecord() }));
  });

  afterAll(async () => {
    await dynamo.stop();
  });

  /** The request a state would send for an execution started as `instanceId`. */
  function request(state: string, instanceId: string): UpdateItemCommandInput {
    const input = {
      orderId: ORDER_ID,
      instanceId,
      attempt: Number(instanceId.slice(-1)),
      correlationId: 'corr-1',
      workflowVersion: 1,
      record: { Item: claimedRecord() },
      results: Object.fromEntries(ORDER_STEPS.map((s) => [s.name, { confirmationId: `conf-${s.name}` }])),
      failedStep: FIRST_STEP.name,
      error: { Error: 'Agent.PermanentFailure', Cause: '{"status":422}' },
    };
    const resolved = resolveParameters(parametersOf(state), {
      input,
      context: { State: { EnteredTime: '2030-01-01T00:00:05.000Z' } },
    }) as UpdateItemCommandInput;
    expect(resolved.TableName).toBe(tableToken);
    return { ...resolved, TableName: tableName };
  }

  const read = async () =>
    (
      await client.send(
        new GetItemCommand({ TableName: tableName, Key: { OrderID: { S: ORDER_ID } }, ConsistentRead: true }),
      )
    ).Item;

  it(`${FIRST_STEP.name}.MarkRunning: the holder marks the step Running with the planned deadline`, async () => {
    await client.send(new UpdateItemCommand(request(`${FIRST_STEP.name}.MarkRunning`, HOLDER)));
    const item = await read();
    expect(item?.Steps?.M?.[FIRST_STEP.name]?.M).toEqual({
      Status: { S: 'Running' },
      StartedAt: { S: '2030-01-01T00:00:05.000Z' },
    });
    expect(item?.CompleteBy).toEqual({ N: String(PLAN_MILLIS) });
    expect(item?.LockedBy).toEqual({ S: HOLDER });
  });

  it(`${FIRST_STEP.name}.MarkRunning: a stale instance is rejected and changes nothing`, async () => {
    const before = await read();
    await expect(
      client.send(new UpdateItemCommand(request(`${FIRST_STEP.name}.MarkRunning`, STALE))),
    ).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(await read()).toEqual(before);
  });

  it('MarkProcessed: the holder sets Processed and removes LockedBy and DueShard', async () => {
    await client.send(new UpdateItemCommand(request('MarkProcessed', HOLDER)));
    const item = await read();
    expect(item?.ProcessState).toEqual({ S: 'Processed' });
    expect(item?.LockedBy).toBeUndefined();
    expect(item?.DueShard).toBeUndefined();
    expect(item?.UpdatedAt).toEqual({ S: '2030-01-01T00:00:05.000Z' });
  });

  it('MarkProcessed: a stale instance is rejected and changes nothing', async () => {
    const before = await read();
    await expect(client.send(new UpdateItemCommand(request('MarkProcessed', STALE)))).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
    });
    expect(await read()).toEqual(before);
  });

  it('MarkProcessed: even the former holder is rejected once the supervisor reset the record to Pending', async () => {
    await client.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: { OrderID: { S: ORDER_ID } },
        UpdateExpression: 'SET ProcessState = :pending REMOVE LockedBy',
        ExpressionAttributeValues: { ':pending': { S: 'Pending' } },
      }),
    );
    const before = await read();
    await expect(client.send(new UpdateItemCommand(request('MarkProcessed', HOLDER)))).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
    });
    expect(await read()).toEqual(before);
  });

  it('every fenced update of the definition: a stale instance is rejected and changes nothing', async () => {
    expect(fencedUpdates.length).toBe(2 * ORDER_STEPS.length + 2);
    for (const state of fencedUpdates) {
      const before = await read();
      await expect(client.send(new UpdateItemCommand(request(state, STALE)))).rejects.toMatchObject({
        name: 'ConditionalCheckFailedException',
      });
      expect({ state, item: await read() }).toEqual({ state, item: before });
    }
  });

  it('every fenced update of the definition succeeds for the holder', async () => {
    for (const state of fencedUpdates) {
      await client.send(new PutItemCommand({ TableName: tableName, Item: claimedRecord() }));
      await expect(client.send(new UpdateItemCommand(request(state, HOLDER)))).resolves.toBeDefined();
    }
  });

  it('MarkError: the holder sets Error with LastError naming the failed step, out of the index', async () => {
    await client.send(new UpdateItemCommand(request('MarkError', HOLDER)));
    const item = await read();
    expect(item?.ProcessState).toEqual({ S: 'Error' });
    expect(item?.LastError?.M).toMatchObject({
      Source: { S: FIRST_STEP.name },
      Error: { S: 'Agent.PermanentFailure' },
      Cause: { S: JSON.stringify({ Error: 'Agent.PermanentFailure', Cause: '{"status":422}' }) },
    });
    expect(item?.LockedBy).toBeUndefined();
    expect(item?.DueShard).toBeUndefined();
  });
});
