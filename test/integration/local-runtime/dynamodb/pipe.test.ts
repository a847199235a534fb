/**
 * EventBridge pipes from a DynamoDB stream, run against DynamoDB Local and the runtime's SQS service over the
 * real SDK, with the runtime's own LocalEventBridge as a bus target: filtering, FIFO message groups
 * taken from the record, a Lambda target's batch (a JSON array) and partial failure, and the dead-
 * letter record of a pipe that gives up.
 */
import { CreateTableCommand, type DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import {
  CreateQueueCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { DynamoDbStreamPipe, type DynamoDbStreamPipeSpec } from '../../../../lib/local-runtime/dynamodb/pipe';
import { LocalEventBridge } from '../../../../lib/local-runtime/eventbridge/event-buses';
import type { InvocationResult } from '../../../../lib/local-runtime/lambda/host';
import {
  dynamoClient,
  type RunningEmulator,
  sqsClient,
  startDynamoDbLocal,
  startLocalSqs,
  streamsClient,
  TEST_REGION,
} from '../../../support/emulators';

jest.setTimeout(60_000);

const ACCOUNT = '123456789012';

interface PipeRecord {
  readonly eventID: string;
  readonly eventName: string;
  readonly dynamodb: { readonly Keys: { id: { S: string } } };
}

describe('EventBridge pipe from a DynamoDB stream', () => {
  let dynamoEmulator: RunningEmulator;
  let sqsEmulator: RunningEmulator;
  let dynamodb: DynamoDBClient;
  let streams: DynamoDBStreamsClient;
  let sqs: SQSClient;
  let eventBridge: LocalEventBridge;
  const running: DynamoDbStreamPipe[] = [];
  const problems: string[] = [];
  const queueUrls = new Map<string, string>();
  const invocations: unknown[][] = [];
  let answer: (records: readonly PipeRecord[], call: number) => InvocationResult = () => ({
    ok: true,
    payload: null,
    requestId: 'r',
  });
  let tables = 0;

  beforeAll(async () => {
    [dynamoEmulator, sqsEmulator] = await Promise.all([startDynamoDbLocal(), startLocalSqs()]);
    dynamodb = dynamoClient(dynamoEmulator.endpoint);
    sqs = sqsClient(sqsEmulator.endpoint);
    streams = streamsClient(dynamoEmulator.endpoint);
    eventBridge = new LocalEventBridge({
      region: TEST_REGION,
      accountId: ACCOUNT,
      deliver: async (target, input) => {
        await sqs.send(new SendMessageCommand({ QueueUrl: queueUrls.get(target.arn), MessageBody: input }));
      },
      onProblem: (message) => problems.push(message),
    });
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((pipe) => pipe.stop()));
  });
  afterAll(async () => {
    await eventBridge.stop();
    dynamodb.destroy();
    streams.destroy();
    sqs.destroy();
    await Promise.all([dynamoEmulator.stop(), sqsEmulator.stop()]);
  });

  async function streamTable(): Promise<{ table: string; streamArn: string }> {
    tables += 1;
    const table = `pipe-source-${tables}`;
    const { TableDescription } = await dynamodb.send(
      new CreateTableCommand({
        TableName: table,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      }),
    );
    return { table, streamArn: TableDescription?.LatestStreamArn ?? '' };
  }

  const put = (table: string, id: string) =>
    dynamodb.send(new PutItemCommand({ TableName: table, Item: { id: { S: id } } }));

  async function queue(name: string, fifo = false): Promise<{ arn: string; url: string }> {
    const queueName = fifo ? `${name}.fifo` : name;
    const { QueueUrl = '' } = await sqs.send(
      new CreateQueueCommand({
        QueueName: queueName,
        ...(fifo ? { Attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'true' } } : {}),
      }),
    );
    const arn = `arn:aws:sqs:${TEST_REGION}:${ACCOUNT}:${queueName}`;
    queueUrls.set(arn, QueueUrl);
    return { arn, url: QueueUrl };
  }

  async function receive(url: string, count: number): Promise<Message[]> {
    const messages: Message[] = [];
    const deadline = Date.now() + 20_000;
    while (messages.length < count && Date.now() < deadline) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['MessageGroupId'],
          AttributeNames: ['All'],
        }),
      );
      messages.push(...Messages);
    }
    return messages;
  }

  async function start(
    spec: Partial<DynamoDbStreamPipeSpec> & Pick<DynamoDbStreamPipeSpec, 'streamArn' | 'target'>,
  ) {
    const pipe = new DynamoDbStreamPipe(
      {
        logicalId: 'Pipe',
        pipeName: 'orders-pipe',
        pipeArn: `arn:aws:pipes:${TEST_REGION}:${ACCOUNT}:pipe/orders-pipe`,
        region: TEST_REGION,
        startingPosition: 'TRIM_HORIZON',
        batchSize: 10,
        maximumBatchingWindowSeconds: 0,
        maximumRetryAttempts: -1,
        maximumRecordAgeSeconds: -1,
        bisect: false,
        retryDelayMillis: () => 20,
        ...spec,
      },
      {
        streams,
        targets: {
          sendMessage: async (queueArn, body, { messageGroupId, messageDeduplicationId }) => {
            await sqs.send(
              new SendMessageCommand({
                QueueUrl: queueUrls.get(queueArn),
                MessageBody: body,
                MessageGroupId: messageGroupId,
                MessageDeduplicationId: messageDeduplicationId,
              }),
            );
          },
          publish: async () => {
            throw new Error('no topic in this test');
          },
          putEvents: (entries) => eventBridge.putEvents(entries),
          invoke: async (_arn, event) => {
            const records = event as PipeRecord[];
            invocations.push(records);
            return answer(records, invocations.length);
          },
          invokeAsync: () => undefined,
          startExecution: async () => undefined,
        },
        sendToDestination: async (arn, message) => {
          await sqs.send(new SendMessageCommand({ QueueUrl: queueUrls.get(arn), MessageBody: message }));
        },
        onProblem: (message) => problems.push(message),
      },
    );
    running.push(pipe);
    await pipe.start();
  }

  it('sends matching records to a FIFO queue, one message per record, grouped by a path into the record', async () => {
    const { table, streamArn } = await streamTable();
    const target = await queue('pipe-changes', true);
    await start({
      streamArn,
      target: { kind: 'sqs', arn: target.arn, messageGroupId: '$.dynamodb.Keys.id.S' },
      filterPatterns: [{ dynamodb: { Keys: { id: { S: [{ prefix: 'order-' }] } } } }],
    });
    for (const id of ['order-1', 'audit-1', 'order-2']) await put(table, id);
    const messages = await receive(target.url, 2);
    expect(
      messages.map((message) => [
        JSON.parse(message.Body ?? '{}').dynamodb.Keys.id.S,
        message.Attributes?.MessageGroupId,
      ]),
    ).toEqual([
      ['order-1', 'order-1'],
      ['order-2', 'order-2'],
    ]);
    expect(JSON.parse(messages[0]?.Body ?? '{}')).toMatchObject({
      eventName: 'INSERT',
      eventSource: 'aws:dynamodb',
      eventSourceARN: streamArn,
    });
  });

  it('puts each record on an event bus as the detail of an event from the pipe', async () => {
    const { table, streamArn } = await streamTable();
    const inbox = await queue('pipe-bus-inbox');
    eventBridge.addBus('orders');
    eventBridge.addRule({
      logicalId: 'FromPipe',
      name: 'from-pipe',
      arn: `arn:aws:events:${TEST_REGION}:${ACCOUNT}:rule/orders/from-pipe`,
      busName: 'orders',
      pattern: { source: ['Pipe orders-pipe'], 'detail-type': ['Event from aws:dynamodb'] },
      targets: [{ id: 'Inbox', arn: inbox.arn }],
    });
    await start({
      streamArn,
      target: { kind: 'events', arn: `arn:aws:events:${TEST_REGION}:${ACCOUNT}:event-bus/orders` },
    });
    await put(table, 'order-9');
    const [message] = await receive(inbox.url, 1);
    expect(JSON.parse(message?.Body ?? '{}')).toMatchObject({
      source: 'Pipe orders-pipe',
      'detail-type': 'Event from aws:dynamodb',
      detail: { eventName: 'INSERT', dynamodb: { Keys: { id: { S: 'order-9' } } } },
    });
  });

  it('hands a Lambda target the batch as a JSON array, and resumes at the eventID it reports failed', async () => {
    const { table, streamArn } = await streamTable();
    for (const id of ['r1', 'r2', 'r3']) await put(table, id);
    invocations.length = 0;
    answer = (records, call) =>
      call === 1
        ? {
            ok: true,
            payload: { batchItemFailures: [{ itemIdentifier: records[1]?.eventID }] },
            requestId: 'a',
          }
        : { ok: true, payload: null, requestId: 'b' };
    await start({
      streamArn,
      target: {
        kind: 'lambda',
        arn: 'arn:aws:lambda:us-east-1:0:function:f',
        invocationType: 'REQUEST_RESPONSE',
      },
    });
    const deadline = Date.now() + 20_000;
    while (invocations.length < 2 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(
      invocations.map((batch) => (batch as PipeRecord[]).map((record) => record.dynamodb.Keys.id.S)),
    ).toEqual([
      ['r1', 'r2', 'r3'],
      ['r2', 'r3'],
    ]);
  });

  it('honours MaximumRetryAttempts (Pipes retry forever by default) and describes the batch to its DLQ', async () => {
    const { table, streamArn } = await streamTable();
    const deadLetters = await queue('pipe-dead-letters');
    invocations.length = 0;
    answer = () => ({ ok: false, error: { errorType: 'Error', errorMessage: 'down' }, requestId: 'x' });
    await start({
      streamArn,
      maximumRetryAttempts: 1,
      deadLetterArn: deadLetters.arn,
      target: {
        kind: 'lambda',
        arn: 'arn:aws:lambda:us-east-1:0:function:f',
        invocationType: 'REQUEST_RESPONSE',
      },
    });
    await put(table, 'doomed');
    const [message] = await receive(deadLetters.url, 1);
    expect(invocations).toHaveLength(2);
    expect(JSON.parse(message?.Body ?? '{}')).toEqual({
      context: {
        partnerResourceArn: `arn:aws:pipes:${TEST_REGION}:${ACCOUNT}:pipe/orders-pipe`,
        condition: 'RetryAttemptsExhausted',
      },
      version: '1.0',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      DDBStreamBatchInfo: expect.objectContaining({ batchSize: 1, streamArn }),
    });
  });
});
