/**
 * The status notifier on real stream records: orders submitted through the real submit-order handler
 * under two clients' keys into a stream-enabled state table on DynamoDB Local, their state moved on
 * with UpdateItem, the table's stream read with the Streams API and handed (unfiltered, so the code's
 * own change detection is what is tested) to the real notifier handler, and both clients' FIFO reply
 * queues on the runtime's SQS service read back.
 */
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type {
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  Context,
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
} from 'aws-lambda';
import {
  ClientStatusMessageSchema,
  EnvKey,
  ProcessState,
  StateAttr,
} from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import { buildInitialStateRecord } from '../../../../lambdas/scheduler-agent-supervisor/domain/state-record';
import {
  type CoreResources,
  type CoreWorld,
  createResources,
  HANDLERS,
  handlerEnv,
  lambdaContext,
  loadHandler,
  missingQueueUrl,
  postOrderEvent,
  putStateRecord,
  startCoreWorld,
  stateStreamRecords,
  TEST_CLIENTS,
  testClientRegistry,
  validOrder,
} from './harness';

type ApiHandler = {
  handler: (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
};
type StreamHandler = {
  handler: (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse>;
};

const NOTIFIER = require.resolve('../../../../lambdas/scheduler-agent-supervisor/handlers/status-notifier');

let world: CoreWorld;
beforeAll(async () => {
  world = await startCoreWorld();
});
afterAll(async () => {
  await world.stop();
});

interface Setup {
  readonly resources: CoreResources;
  /** Each client's reply queue (as created, whatever the handlers were told). */
  readonly queues: Record<string, string>;
  /** A fresh notifier (a new container) told these queue URLs. */
  readonly notifierWith: (
    queues: Record<string, string>,
  ) => (records: DynamoDBRecord[]) => Promise<DynamoDBBatchResponse>;
  readonly submit: ApiHandler['handler'];
  readonly notify: (records: DynamoDBRecord[]) => Promise<DynamoDBBatchResponse>;
}

let counter = 0;
async function setUp(queueOverrides: Partial<Record<string, string>> = {}): Promise<Setup> {
  counter += 1;
  const resources = await createResources(world, { stateStream: true });
  const queues: Record<string, string> = {};
  for (const client of Object.values(TEST_CLIENTS)) {
    const { QueueUrl } = await world.sqs.send(
      new CreateQueueCommand({
        QueueName: `${client.clientId}-${counter}.fifo`,
        Attributes: { FifoQueue: 'true' },
      }),
    );
    queues[client.clientId] = QueueUrl as string;
  }
  const envWith = (urls: Record<string, string>) =>
    handlerEnv(resources, { env: { [EnvKey.ClientRegistry]: testClientRegistry(urls) } });
  const told = { ...queues, ...queueOverrides } as Record<string, string>;
  const submit = loadHandler<ApiHandler>(HANDLERS.submitOrder, envWith(told)).handler;
  const notifierWith = (urls: Record<string, string>) => {
    const notifier = loadHandler<StreamHandler>(NOTIFIER, envWith(urls)).handler;
    return (records: DynamoDBRecord[]) => notifier({ Records: records }, lambdaContext());
  };
  return { resources, queues, submit, notifierWith, notify: notifierWith(told) };
}

async function submitAs(setup: Setup, orderId: string, apiKeyId: string): Promise<void> {
  const response = await setup.submit(
    postOrderEvent(JSON.stringify(validOrder(orderId)), { apiKeyId }),
    lambdaContext(),
  );
  expect(response.statusCode).toBe(202);
}

let tick = 0;
/** Moves a record to `state` as a transition does: ProcessState and a new UpdatedAt. */
async function moveTo(setup: Setup, orderId: string, state: ProcessState): Promise<void> {
  tick += 1;
  await world.doc.send(
    new UpdateCommand({
      TableName: setup.resources.stateTable,
      Key: { [StateAttr.OrderId]: orderId },
      UpdateExpression: 'SET #ps = :ps, #u = :u',
      ExpressionAttributeNames: { '#ps': StateAttr.ProcessState, '#u': StateAttr.UpdatedAt },
      ExpressionAttributeValues: { ':ps': state, ':u': new Date(Date.now() + tick).toISOString() },
    }),
  );
}

/** A change within a state (a step marked running), which tells the client nothing. */
async function touch(setup: Setup, orderId: string): Promise<void> {
  await world.doc.send(
    new UpdateCommand({
      TableName: setup.resources.stateTable,
      Key: { [StateAttr.OrderId]: orderId },
      UpdateExpression: 'SET #rs = :rs',
      ExpressionAttributeNames: { '#rs': StateAttr.RunningStep },
      ExpressionAttributeValues: { ':rs': 'ReserveInventory' },
    }),
  );
}

/** Receives and deletes every visible message, with its FIFO attributes (group, deduplication id). */
async function receiveAll(queueUrl: string): Promise<Message[]> {
  const received: Message[] = [];
  for (;;) {
    const { Messages = [] } = await world.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    if (Messages.length === 0) return received;
    for (const message of Messages) {
      received.push(message);
      await world.sqs.send(
        new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }),
      );
    }
  }
}

/** The status messages on a client's queue, each checked against the documented schema. */
async function statuses(setup: Setup, clientId: string): Promise<Array<[string, string, Message]>> {
  const messages = await receiveAll(setup.queues[clientId] as string);
  return messages.map((message) => {
    const body = ClientStatusMessageSchema.parse(JSON.parse(message.Body ?? 'null'));
    expect(body.clientId).toBe(clientId);
    return [body.orderId, body.status, message];
  });
}

const statusList = (entries: Array<[string, string, Message]>) =>
  entries.map(([orderId, status]) => `${orderId}:${status}`);

describe('status notifier on the state table stream', () => {
  it("tells each client its own orders' transitions, once each, and never another client's", async () => {
    const setup = await setUp();
    await submitAs(setup, 'a-1', TEST_CLIENTS.first.apiKeyId);
    await submitAs(setup, 'b-1', TEST_CLIENTS.second.apiKeyId);
    // a-1 runs through; b-1 has an attempt retried (Processing -> Pending -> Processing), then fails.
    await moveTo(setup, 'a-1', ProcessState.Processing);
    await touch(setup, 'a-1');
    await moveTo(setup, 'a-1', ProcessState.Processed);
    await moveTo(setup, 'b-1', ProcessState.Processing);
    await moveTo(setup, 'b-1', ProcessState.Pending);
    await moveTo(setup, 'b-1', ProcessState.Processing);
    await moveTo(setup, 'b-1', ProcessState.Error);

    const records = await stateStreamRecords(world, setup.resources);
    // Two creations, a-1's three changes (one within Processing) and b-1's four.
    expect(records).toHaveLength(9);
    expect(await setup.notify(records)).toEqual({ batchItemFailures: [] });

    const first = await statuses(setup, TEST_CLIENTS.first.clientId);
    const second = await statuses(setup, TEST_CLIENTS.second.clientId);
    expect(statusList(first)).toEqual(['a-1:Received', 'a-1:Completed']);
    expect(statusList(second)).toEqual(['b-1:Received', 'b-1:Failed']);
    const [, , completed] = first[1] as [string, string, Message];
    const body = JSON.parse(completed.Body ?? '{}');
    expect(completed.Attributes).toMatchObject({
      MessageGroupId: 'a-1',
      MessageDeduplicationId: body.messageKey,
    });
    expect(body.messageKey).toBe(`a-1:Completed:${body.at}`);
  });

  it('sends one message per transition when the stream batch is delivered again', async () => {
    const setup = await setUp();
    await submitAs(setup, 'a-2', TEST_CLIENTS.first.apiKeyId);
    await moveTo(setup, 'a-2', ProcessState.Processing);
    await moveTo(setup, 'a-2', ProcessState.Processed);
    const records = await stateStreamRecords(world, setup.resources);
    expect(await setup.notify(records)).toEqual({ batchItemFailures: [] });
    // Redelivered: whole, then its second half bisected off, as Lambda retries a batch.
    expect(await setup.notify(records)).toEqual({ batchItemFailures: [] });
    expect(await setup.notify(records.slice(1))).toEqual({ batchItemFailures: [] });
    expect(statusList(await statuses(setup, TEST_CLIENTS.first.clientId))).toEqual([
      'a-2:Received',
      'a-2:Completed',
    ]);
    expect(await statuses(setup, TEST_CLIENTS.second.clientId)).toEqual([]);
  });

  it('passes over a record without a known client (nothing sent, the batch succeeds)', async () => {
    const setup = await setUp();
    const legacy = buildInitialStateRecord({
      workflowVersion: 1,
      orderId: 'legacy-1',
      orderFingerprint: 'f'.repeat(64),
      now: Date.now(),
      timings: { startGraceSeconds: 1 },
      dueShardCount: 4,
      retryBudget: 12,
    });
    const gone = { ...legacy, orderId: 'gone-1', clientId: 'gone-client' };
    for (const record of [legacy, gone]) await putStateRecord(world, setup.resources, record);
    await submitAs(setup, 'a-3', TEST_CLIENTS.first.apiKeyId);
    expect(await setup.notify(await stateStreamRecords(world, setup.resources))).toEqual({
      batchItemFailures: [],
    });
    expect(statusList(await statuses(setup, TEST_CLIENTS.first.clientId))).toEqual(['a-3:Received']);
    expect(await statuses(setup, TEST_CLIENTS.second.clientId)).toEqual([]);
  });

  it("stops at the first record whose client's queue refuses, reporting its sequence number; the retry tells the rest once", async () => {
    const broken = await setUp({ [TEST_CLIENTS.second.clientId]: missingQueueUrl(world) });
    await submitAs(broken, 'a-4', TEST_CLIENTS.first.apiKeyId);
    await submitAs(broken, 'b-4', TEST_CLIENTS.second.apiKeyId);
    await submitAs(broken, 'a-5', TEST_CLIENTS.first.apiKeyId);
    const records = await stateStreamRecords(world, broken.resources);
    const response = await broken.notify(records);
    expect(response).toEqual({
      batchItemFailures: [{ itemIdentifier: records[1]?.dynamodb?.SequenceNumber }],
    });
    // Nothing after the failed record overtook it.
    expect(statusList(await statuses(broken, TEST_CLIENTS.first.clientId))).toEqual(['a-4:Received']);
    // The queue is back: the event source retries from the failed record; a-4's message, already
    // sent by the first try, goes out again with the same deduplication id and is absorbed.
    const repaired = broken.notifierWith(broken.queues);
    expect(await repaired(records)).toEqual({ batchItemFailures: [] });
    expect(statusList(await statuses(broken, TEST_CLIENTS.first.clientId))).toEqual(['a-5:Received']);
    expect(statusList(await statuses(broken, TEST_CLIENTS.second.clientId))).toEqual(['b-4:Received']);
  });
});
