import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import type {
  LambdaInvocationResult,
  PutEventsEntry,
  PutEventsOutcome,
} from '../../../../lib/local-runtime/stepfunctions';
import { createTable, register, type SfnHarness, startSfnHarness, waitForEnd } from './harness';

const STATE_TABLE = 'sfn-state';
const ORDERS_TABLE = 'sfn-orders';

describe('service integrations (real DynamoDB Local, injected EventBridge and Lambda)', () => {
  let h: SfnHarness;
  const putEventsCalls: PutEventsEntry[][] = [];
  let putEventsReply: (entries: readonly PutEventsEntry[]) => Promise<PutEventsOutcome> = async (
    entries,
  ) => ({
    FailedEntryCount: 0,
    Entries: entries.map((_, index) => ({ EventId: `event-${index}` })),
  });
  const lambdaCalls: { functionName: string; payload: unknown }[] = [];
  let lambdaReply: (payload: unknown) => LambdaInvocationResult = (payload) => ({
    payload: { echoed: payload },
  });

  beforeAll(async () => {
    h = await startSfnHarness({
      putEvents: (entries) => {
        putEventsCalls.push([...entries]);
        return putEventsReply(entries);
      },
      invokeLambda: async (functionName, payload) => {
        lambdaCalls.push({ functionName, payload });
        return lambdaReply(payload);
      },
    });
    await Promise.all([createTable(h.dynamodb, STATE_TABLE), createTable(h.dynamodb, ORDERS_TABLE)]);
  });
  afterAll(async () => {
    await h.stop();
  });

  async function run(
    definition: object,
    input: object,
  ): Promise<{ status?: string; output?: unknown; error?: string; cause?: string; executionArn: string }> {
    const arn = register(h.sfn, definition);
    const started = await h.client.send(
      new StartExecutionCommand({ stateMachineArn: arn, input: JSON.stringify(input) }),
    );
    const ended = await waitForEnd(h.client, started.executionArn ?? '');
    return {
      executionArn: started.executionArn ?? '',
      status: ended.status,
      output: ended.output === undefined ? undefined : JSON.parse(ended.output),
      ...(ended.error === undefined ? {} : { error: ended.error }),
      ...(ended.cause === undefined ? {} : { cause: ended.cause }),
    };
  }

  /** A fenced store update, as the scheduler writes it: only while LockedBy names this instance. */
  function fencedUpdate(next: string) {
    return {
      Type: 'Task',
      Resource: 'arn:aws:states:::dynamodb:updateItem',
      Parameters: {
        TableName: STATE_TABLE,
        Key: { OrderID: { 'S.$': '$.orderId' } },
        UpdateExpression: 'SET ProcessState = :processed',
        ConditionExpression: 'LockedBy = :me',
        ExpressionAttributeValues: { ':processed': { S: 'Processed' }, ':me': { 'S.$': '$.instanceId' } },
      },
      ResultPath: null,
      TimeoutSeconds: 10,
      Catch: [
        {
          ErrorEquals: ['DynamoDB.ConditionalCheckFailedException'],
          ResultPath: '$.fenced',
          Next: 'FencedOut',
        },
      ],
      Next: next,
    };
  }

  it('runs a scheduler-like flow: getItem, StringToJson, Choice, fenced updateItem, Succeed', async () => {
    await h.dynamodb.send(
      new PutItemCommand({
        TableName: STATE_TABLE,
        Item: { OrderID: { S: 'o-1' }, LockedBy: { S: 'o-1--attempt-1' }, ProcessState: { S: 'Processing' } },
      }),
    );
    await h.dynamodb.send(
      new PutItemCommand({
        TableName: ORDERS_TABLE,
        Item: { OrderID: { S: 'o-1' }, Items: { S: '[{"sku":"A","quantity":2}]' } },
      }),
    );
    const definition = {
      StartAt: 'LoadStateRecord',
      States: {
        LoadStateRecord: {
          Type: 'Task',
          Resource: 'arn:aws:states:::dynamodb:getItem',
          Parameters: {
            TableName: STATE_TABLE,
            Key: { OrderID: { 'S.$': '$.orderId' } },
            ConsistentRead: true,
          },
          ResultSelector: { 'lockedBy.$': '$.Item.LockedBy.S', 'processState.$': '$.Item.ProcessState.S' },
          ResultPath: '$.record',
          TimeoutSeconds: 10,
          Next: 'LoadOrder',
        },
        LoadOrder: {
          Type: 'Task',
          Resource: 'arn:aws:states:::dynamodb:getItem',
          Parameters: { TableName: ORDERS_TABLE, Key: { OrderID: { 'S.$': '$.orderId' } } },
          ResultSelector: { 'items.$': 'States.StringToJson($.Item.Items.S)' },
          ResultPath: '$.order',
          TimeoutSeconds: 10,
          Next: 'CheckLock',
        },
        CheckLock: {
          Type: 'Choice',
          Choices: [
            {
              And: [
                { Variable: '$.record.lockedBy', StringEqualsPath: '$.instanceId' },
                { Variable: '$.record.processState', StringEquals: 'Processing' },
              ],
              Next: 'MarkProcessed',
            },
          ],
          Default: 'FencedOut',
        },
        MarkProcessed: fencedUpdate('Describe'),
        Describe: {
          Type: 'Pass',
          Parameters: {
            'summary.$': "States.Format('{} x{}', $.order.items[0].sku, $.order.items[0].quantity)",
          },
          Next: 'Done',
        },
        Done: { Type: 'Succeed' },
        FencedOut: { Type: 'Succeed' },
      },
    };
    const result = await run(definition, { orderId: 'o-1', instanceId: 'o-1--attempt-1' });
    expect(result).toMatchObject({ status: 'SUCCEEDED', output: { summary: 'A x2' } });
    const stored = await h.dynamodb.send(
      new GetItemCommand({ TableName: STATE_TABLE, Key: { OrderID: { S: 'o-1' } } }),
    );
    expect(stored.Item?.ProcessState).toEqual({ S: 'Processed' });
  });

  it('catches a failing ConditionExpression as DynamoDB.ConditionalCheckFailedException and changes nothing', async () => {
    await h.dynamodb.send(
      new PutItemCommand({
        TableName: STATE_TABLE,
        Item: { OrderID: { S: 'o-2' }, LockedBy: { S: 'o-2--attempt-2' }, ProcessState: { S: 'Processing' } },
      }),
    );
    const definition = {
      StartAt: 'MarkProcessed',
      States: {
        MarkProcessed: fencedUpdate('Done'),
        Done: { Type: 'Succeed' },
        FencedOut: { Type: 'Succeed' },
      },
    };
    const result = await run(definition, { orderId: 'o-2', instanceId: 'o-2--attempt-1' });
    expect(result.status).toBe('SUCCEEDED');
    expect(result.output).toMatchObject({
      fenced: {
        Error: 'DynamoDB.ConditionalCheckFailedException',
        Cause: expect.stringContaining('Status Code: 400'),
      },
    });
    const stored = await h.dynamodb.send(
      new GetItemCommand({ TableName: STATE_TABLE, Key: { OrderID: { S: 'o-2' } } }),
    );
    expect(stored.Item?.ProcessState).toEqual({ S: 'Processing' });
  });

  it('retries an integration error as Retry says, then catches it', async () => {
    const definition = {
      StartAt: 'Read',
      States: {
        Read: {
          Type: 'Task',
          Resource: 'arn:aws:states:::dynamodb:getItem',
          Parameters: { TableName: 'no-such-table', Key: { OrderID: { S: 'x' } } },
          TimeoutSeconds: 10,
          Retry: [
            {
              ErrorEquals: ['DynamoDB.ResourceNotFoundException'],
              IntervalSeconds: 1,
              MaxAttempts: 2,
              BackoffRate: 1,
            },
          ],
          Catch: [{ ErrorEquals: ['States.TaskFailed'], ResultPath: '$.error', Next: 'Handled' }],
          Next: 'Handled',
        },
        Handled: { Type: 'Pass', End: true },
      },
    };
    const result = await run(definition, {});
    expect(result.status).toBe('SUCCEEDED');
    expect(result.output).toMatchObject({ error: { Error: 'DynamoDB.ResourceNotFoundException' } });
    const attempts = h.events.filter(
      (e) => e.executionArn === result.executionArn && e.type === 'TaskScheduled',
    );
    expect(attempts).toHaveLength(3);
  });

  it('putItem and deleteItem pass their parameters through', async () => {
    const definition = {
      StartAt: 'Put',
      States: {
        Put: {
          Type: 'Task',
          Resource: 'arn:aws:states:::dynamodb:putItem',
          Parameters: {
            TableName: STATE_TABLE,
            Item: { OrderID: { 'S.$': '$.orderId' }, Note: { S: 'written' } },
          },
          ResultPath: null,
          TimeoutSeconds: 10,
          Next: 'Delete',
        },
        Delete: {
          Type: 'Task',
          Resource: 'arn:aws:states:::dynamodb:deleteItem',
          Parameters: {
            TableName: STATE_TABLE,
            Key: { OrderID: { 'S.$': '$.orderId' } },
            ReturnValues: 'ALL_OLD',
          },
          ResultSelector: { 'note.$': '$.Attributes.Note.S' },
          TimeoutSeconds: 10,
          End: true,
        },
      },
    };
    const result = await run(definition, { orderId: 'o-3' });
    expect(result).toMatchObject({ status: 'SUCCEEDED', output: { note: 'written' } });
    const stored = await h.dynamodb.send(
      new GetItemCommand({ TableName: STATE_TABLE, Key: { OrderID: { S: 'o-3' } } }),
    );
    expect(stored.Item).toBeUndefined();
  });

  const alertDefinition = {
    StartAt: 'RaiseAlert',
    States: {
      RaiseAlert: {
        Type: 'Task',
        Resource: 'arn:aws:states:::events:putEvents',
        Parameters: {
          Entries: [
            {
              EventBusName: 'alerts',
              Source: 'order-processing',
              DetailType: 'OrderFailed',
              Detail: { 'orderId.$': '$.orderId', reason: 'AgentPermanentFailure' },
            },
          ],
        },
        TimeoutSeconds: 10,
        Catch: [{ ErrorEquals: ['EventBridge.FailedEntry'], ResultPath: '$.error', Next: 'AlertFailed' }],
        End: true,
      },
      AlertFailed: { Type: 'Pass', End: true },
    },
  };

  it('events:putEvents hands entries (Detail serialized) to the injected handler', async () => {
    putEventsCalls.length = 0;
    const result = await run(alertDefinition, { orderId: 'o-4' });
    expect(result.status).toBe('SUCCEEDED');
    expect(result.output).toMatchObject({ FailedEntryCount: 0, Entries: [{ EventId: 'event-0' }] });
    expect(putEventsCalls).toEqual([
      [
        {
          EventBusName: 'alerts',
          Source: 'order-processing',
          DetailType: 'OrderFailed',
          Detail: JSON.stringify({ orderId: 'o-4', reason: 'AgentPermanentFailure' }),
        },
      ],
    ]);
  });

  it('a failed PutEvents entry raises EventBridge.FailedEntry; a thrown error is prefixed EventBridge.', async () => {
    putEventsReply = async () => ({
      FailedEntryCount: 1,
      Entries: [{ ErrorCode: 'InternalFailure', ErrorMessage: 'bus unavailable' }],
    });
    const caught = await run(alertDefinition, { orderId: 'o-5' });
    expect(caught.output).toMatchObject({
      error: { Error: 'EventBridge.FailedEntry', Cause: expect.stringContaining('bus unavailable') },
    });

    putEventsReply = async () => {
      throw Object.assign(new Error('Event bus alerts does not exist.'), {
        name: 'ResourceNotFoundException',
        $metadata: { httpStatusCode: 400 },
      });
    };
    const failed = await run(alertDefinition, { orderId: 'o-6' });
    expect(failed).toMatchObject({ status: 'FAILED', error: 'EventBridge.ResourceNotFoundException' });
  });

  it('lambda:invoke and plain function ARNs go to the injected invoker; a function error keeps its errorType', async () => {
    lambdaCalls.length = 0;
    const definition = {
      StartAt: 'Invoke',
      States: {
        Invoke: {
          Type: 'Task',
          Resource: 'arn:aws:states:::lambda:invoke',
          Parameters: {
            FunctionName: 'arn:aws:lambda:us-east-1:000000000000:function:echo',
            'Payload.$': '$',
          },
          ResultSelector: { 'echoed.$': '$.Payload.echoed', 'status.$': '$.StatusCode' },
          ResultPath: '$.invoked',
          TimeoutSeconds: 10,
          Next: 'Plain',
        },
        Plain: {
          Type: 'Task',
          Resource: 'arn:aws:lambda:us-east-1:000000000000:function:plain',
          TimeoutSeconds: 10,
          End: true,
        },
      },
    };
    const result = await run(definition, { n: 1 });
    expect(result.status).toBe('SUCCEEDED');
    expect(lambdaCalls).toEqual([
      { functionName: 'arn:aws:lambda:us-east-1:000000000000:function:echo', payload: { n: 1 } },
      {
        functionName: 'arn:aws:lambda:us-east-1:000000000000:function:plain',
        payload: { n: 1, invoked: { echoed: { n: 1 }, status: 200 } },
      },
    ]);
    expect(result.output).toEqual({ echoed: { n: 1, invoked: { echoed: { n: 1 }, status: 200 } } });

    lambdaReply = () => ({
      functionError: 'Unhandled',
      payload: { errorType: 'OrderRejected', errorMessage: 'nope' },
    });
    const failed = await run(definition, { n: 2 });
    expect(failed).toMatchObject({ status: 'FAILED', error: 'OrderRejected' });
    expect(JSON.parse(failed.cause ?? '')).toEqual({ errorType: 'OrderRejected', errorMessage: 'nope' });
  });
});
