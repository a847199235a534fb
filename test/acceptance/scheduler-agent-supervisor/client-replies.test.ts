/**
 * Per-client reply queues, black-box: two clients submit with their own API keys (from the Clients
 * output), each sees only its own orders through the API, and each reads its own FIFO reply queue:
 * Received, then Completed, once per transition, even when an attempt is retried by the supervisor.
 *
 * Reading a reply queue needs the client's principal (its queue policy denies every other), on AWS
 * and locally alike: each client's queue is read with the credentials the target description lists
 * for its principal (`identities`: the local runtime lists the users its queue policies name). A
 * target that lists none is read with the suite's own credentials, which must then be allowed.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient, GetItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { ListExecutionsCommand, SFNClient } from '@aws-sdk/client-sfn';
import { ListTopicsCommand, SNSClient } from '@aws-sdk/client-sns';
import {
  GetQueueAttributesCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
  SQSServiceException,
} from '@aws-sdk/client-sqs';
import {
  type ClientStatus,
  type ClientStatusMessage,
  ClientStatusMessageSchema,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import type { ClientOutput } from '../../../lib/scheduler-agent-supervisor/stack';
import { type ApiResponse, apiKeyValue, apiRequest, awsClientConfig, takeMatching } from '../client-support';
import { acceptanceTarget, scenarioTimeoutMs } from '../setup';
import type { TargetDescription } from '../target';
import { SystemClient } from './system-client';

const runId = randomUUID().slice(0, 8);
const orderId = (name: string) => `acc-${runId}-client-${name}`;
const order = (id: string, sku = 'SKU-1') => ({
  orderId: id,
  customerId: 'customer-7',
  items: [{ sku, quantity: 1 }],
  totalCents: 1250,
  currency: 'EUR',
});

interface Client extends ClientOutput {
  readonly key: string;
}

let target: TargetDescription;
let system: SystemClient;
let sqs: SQSClient;
let clients: Client[];
/** SQS clients signing as a client's principal, by clientId. */
const readers = new Map<string, SQSClient>();
/** Status messages taken from the reply queues so far, by queue URL (a queue is read once). */
const taken = new Map<string, ClientStatusMessage[]>();

beforeAll(async () => {
  target = acceptanceTarget();
  system = new SystemClient(target);
  sqs = new SQSClient(awsClientConfig(target, 'sqs'));
  const listed = JSON.parse(target.outputs.Clients ?? '[]') as ClientOutput[];
  clients = await Promise.all(
    listed.map(async (client) => ({ ...client, key: await apiKeyValue(target, client.apiKeyId) })),
  );
});
afterAll(() => {
  system.close();
  sqs.destroy();
  for (const reader of readers.values()) reader.destroy();
});

/** The target's credentials for a client's principal, if it lists them. */
function credentialsOf(client: Client) {
  return Object.values(target.identities ?? {}).find((identity) => identity.userArn === client.principal);
}

/** An SQS client signing as the client's principal (the suite's own credentials without them). */
function readerOf(client: Client): SQSClient {
  const credentials = credentialsOf(client);
  if (!credentials) return sqs;
  let reader = readers.get(client.clientId);
  if (!reader) {
    reader = new SQSClient({ ...awsClientConfig(target, 'sqs'), credentials, maxAttempts: 1 });
    readers.set(client.clientId, reader);
  }
  return reader;
}

function clientNo(index: number): Client {
  const client = clients[index];
  if (!client) throw new Error(`The Clients output lists ${clients.length} clients; these tests need two`);
  return client;
}

const as = (client: Client, method: string, path: string, body?: unknown): Promise<ApiResponse> =>
  apiRequest(target, method, path, body === undefined ? undefined : JSON.stringify(body), {
    'x-api-key': client.key,
  });

/** Takes this run's status messages from a client's queue (others' stay) and returns all taken so far. */
async function messagesOn(client: Client): Promise<ClientStatusMessage[]> {
  const bodies = await takeMatching(
    readerOf(client),
    target,
    client.replyQueueUrl,
    (body) => (JSON.parse(body) as { orderId?: string }).orderId?.startsWith(`acc-${runId}-client-`) === true,
    50,
  );
  const seen = taken.get(client.replyQueueUrl) ?? [];
  seen.push(...bodies.map((body) => ClientStatusMessageSchema.parse(JSON.parse(body))));
  taken.set(client.replyQueueUrl, seen);
  return seen;
}

/** Polls a client's queue until the order's statuses include `last`, then a little longer for stragglers. */
async function statusesOf(
  client: Client,
  id: string,
  last: ClientStatus,
  timeoutMs: number,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  const ofOrder = async () => (await messagesOn(client)).filter((m) => m.orderId === id).map((m) => m.status);
  while (Date.now() < deadline) {
    if ((await ofOrder()).includes(last)) {
      // A duplicate would arrive right behind the original: give it the time to show up.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      return ofOrder();
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(
    `${client.clientId} was not told ${last} for ${id}; told: ${JSON.stringify(await ofOrder())}`,
  );
}

describe('two clients, each with its own key and reply queue', () => {
  const first = orderId('first');
  const second = orderId('second');

  it('lists every client with a key and a FIFO reply queue', () => {
    expect(clients.length).toBeGreaterThanOrEqual(2);
    for (const client of clients) {
      expect(client.replyQueueUrl).toMatch(/\.fifo$/);
      expect(client.key).not.toBe('');
    }
    expect(new Set(clients.map((client) => client.key)).size).toBe(clients.length);
  });

  it('each submits with its own key; neither sees the other’s order, nor may take its orderId', async () => {
    expect((await as(clientNo(0), 'POST', '/orders', order(first))).status).toBe(202);
    expect((await as(clientNo(1), 'POST', '/orders', order(second))).status).toBe(202);
    expect((await as(clientNo(0), 'GET', `/orders/${first}`)).status).toBe(200);
    const hidden = await as(clientNo(1), 'GET', `/orders/${first}`);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: `Order '${first}' not found` });
    const refused = await as(clientNo(1), 'POST', '/orders', order(first));
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      message: `Order id '${first}' is not available; choose another orderId`,
    });
  });

  it('each reads Received then Completed for its own order, once each, and nothing of the other’s', async () => {
    for (const id of [first, second]) {
      expect(
        (await system.waitForState(id, ['Processed', 'Error'], scenarioTimeoutMs.normal)).processState,
      ).toBe('Processed');
    }
    expect(await statusesOf(clientNo(0), first, 'Completed', scenarioTimeoutMs.normal)).toEqual([
      'Received',
      'Completed',
    ]);
    expect(await statusesOf(clientNo(1), second, 'Completed', scenarioTimeoutMs.normal)).toEqual([
      'Received',
      'Completed',
    ]);
    expect((taken.get(clientNo(0).replyQueueUrl) ?? []).filter((m) => m.orderId === second)).toEqual([]);
    expect((taken.get(clientNo(1).replyQueueUrl) ?? []).filter((m) => m.orderId === first)).toEqual([]);
    const completed = (taken.get(clientNo(0).replyQueueUrl) ?? []).find((m) => m.status === 'Completed');
    expect(completed).toMatchObject({
      clientId: clientNo(0).clientId,
      processState: 'Processed',
      messageKey: `${first}:Completed:${completed?.at}`,
    });
  });

  it('a STALL-ONCE order retried by the supervisor still tells Received and Completed exactly once', async () => {
    const id = orderId('stall');
    expect((await as(clientNo(1), 'POST', '/orders', order(id, 'STALL-ONCE'))).status).toBe(202);
    const state = await system.waitForState(id, ['Processed', 'Error'], scenarioTimeoutMs.recovery);
    expect(state).toMatchObject({ processState: 'Processed', failureCount: 1, attempt: 2 });
    expect(await statusesOf(clientNo(1), id, 'Completed', scenarioTimeoutMs.normal)).toEqual([
      'Received',
      'Completed',
    ]);
  });
});

describe('a reply queue read by the wrong client', () => {
  it('refuses client B’s credentials on client A’s queue (AccessDenied), and A’s messages stay for A', async () => {
    const [a, b] = [clientNo(0), clientNo(1)];
    if (!credentialsOf(a) || !credentialsOf(b)) {
      throw new Error(
        `This scenario signs as each client's principal: the target description must list identities for ${a.principal} and ${b.principal}`,
      );
    }
    const id = orderId('wrong-reader');
    expect((await as(a, 'POST', '/orders', order(id))).status).toBe(202);
    expect(
      (await system.waitForState(id, ['Processed', 'Error'], scenarioTimeoutMs.normal)).processState,
    ).toBe('Processed');
    // Something is on A's queue before B tries (counting is not denied to anyone).
    const deadline = Date.now() + scenarioTimeoutMs.normal;
    for (;;) {
      const { Attributes } = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: a.replyQueueUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      );
      const count =
        Number(Attributes?.ApproximateNumberOfMessages ?? 0) +
        Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
      if (count > 0) break;
      if (Date.now() > deadline) throw new Error(`${a.clientId}'s reply queue stayed empty`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const refused = await readerOf(b)
      .send(
        new ReceiveMessageCommand({ QueueUrl: a.replyQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      )
      .then(
        (output) =>
          new Error(`${b.clientId} received ${output.Messages?.length ?? 0} messages of ${a.clientId}`),
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(SQSServiceException);
    expect((refused as SQSServiceException).name).toBe('AccessDenied');
    expect((refused as SQSServiceException).$metadata.httpStatusCode).toBe(403);
    expect(await statusesOf(a, id, 'Completed', scenarioTimeoutMs.normal)).toEqual(['Received', 'Completed']);
  });
});

/**
 * A client identity carries no identity policy (README, "IAM"): only its reply queues' policies grant
 * it anything. Locally the runtime enforces IAM as AWS does, so each call below gets the service's
 * own access-denied error; on AWS the client's principal is whatever role the target lists.
 */
describe('a client identity reaches nothing but its own reply queue', () => {
  /** The error a call ends with: its name and HTTP status. */
  async function refusalOf(call: Promise<unknown>): Promise<{ name: string; status?: number }> {
    return call.then(
      () => ({ name: 'allowed' }),
      (error: { name: string; $metadata?: { httpStatusCode?: number } }) => ({
        name: error.name,
        status: error.$metadata?.httpStatusCode,
      }),
    );
  }

  it('is refused DynamoDB, Step Functions, SNS and the other client’s queue, with each service’s AccessDenied', async () => {
    const [a, b] = [clientNo(0), clientNo(1)];
    const credentials = credentialsOf(a);
    if (!credentials) throw new Error(`The target description must list the identity of ${a.principal}`);
    const as = <T>(
      service: 'dynamodb' | 'sfn' | 'sns' | 'sqs',
      make: (config: ReturnType<typeof awsClientConfig>) => T,
    ): T => make({ ...awsClientConfig(target, service), credentials });
    const dynamodb = as('dynamodb', (config) => new DynamoDBClient({ ...config, maxAttempts: 1 }));
    const sfn = as('sfn', (config) => new SFNClient({ ...config, maxAttempts: 1 }));
    const sns = as('sns', (config) => new SNSClient({ ...config, maxAttempts: 1 }));
    const sqsAsA = as('sqs', (config) => new SQSClient({ ...config, maxAttempts: 1 }));
    try {
      const stateTable = target.outputs.StateTableName ?? 'missing-StateTableName-output';
      expect(
        await refusalOf(
          dynamodb.send(new GetItemCommand({ TableName: stateTable, Key: { OrderID: { S: 'x' } } })),
        ),
      ).toEqual({
        name: 'AccessDeniedException',
        status: 400,
      });
      expect(await refusalOf(dynamodb.send(new ScanCommand({ TableName: stateTable, Limit: 1 })))).toEqual({
        name: 'AccessDeniedException',
        status: 400,
      });
      const machine = target.outputs.StateMachineArn ?? 'missing-StateMachineArn-output';
      expect(await refusalOf(sfn.send(new ListExecutionsCommand({ stateMachineArn: machine })))).toEqual({
        name: 'AccessDeniedException',
        status: 400,
      });
      // SNS answers the Query code AuthorizationError; the SDK names its exception so.
      expect(await refusalOf(sns.send(new ListTopicsCommand({})))).toEqual({
        name: 'AuthorizationErrorException',
        status: 403,
      });
      expect(
        await refusalOf(
          sqsAsA.send(new ReceiveMessageCommand({ QueueUrl: b.replyQueueUrl, WaitTimeSeconds: 0 })),
        ),
      ).toEqual({ name: 'AccessDenied', status: 403 });
      // Nor may it forge a status into the other client's queue.
      expect(
        await refusalOf(
          sqsAsA.send(
            new SendMessageCommand({
              QueueUrl: b.replyQueueUrl,
              MessageBody: '{}',
              MessageGroupId: 'forged',
              MessageDeduplicationId: 'forged',
            }),
          ),
        ),
      ).toEqual({ name: 'AccessDenied', status: 403 });
      // Its own queue it may read.
      await sqsAsA.send(
        new ReceiveMessageCommand({ QueueUrl: a.replyQueueUrl, WaitTimeSeconds: 0, VisibilityTimeout: 0 }),
      );
    } finally {
      for (const client of [dynamodb, sfn, sns, sqsAsA]) client.destroy();
    }
  });
});

/**
 * The suite's own credentials (the local account's root; on AWS whoever runs the suite, usually an
 * administrator): an identity that may do anything on SQS, yet no status notifier and no deploying
 * role, so each reply queue's explicit Denies refuse it, while the notifier keeps telling statuses
 * (every scenario above).
 */
describe('a reply queue refuses forging, purging and reconfiguring to every other identity', () => {
  it('refuses SendMessage, PurgeQueue and SetQueueAttributes to an identity its policies allow (AccessDenied), and keeps what is queued', async () => {
    const a = clientNo(0);
    const id = orderId('untouched');
    expect((await as(a, 'POST', '/orders', order(id))).status).toBe(202);
    expect(
      (await system.waitForState(id, ['Processed', 'Error'], scenarioTimeoutMs.normal)).processState,
    ).toBe('Processed');
    const refusalOf = (call: Promise<unknown>) =>
      call.then(
        () => 'allowed',
        (error: SQSServiceException) => `${error.name} ${error.$metadata.httpStatusCode}`,
      );
    for (const queueUrl of [a.replyQueueUrl, a.replyDeadLetterQueueUrl]) {
      expect(
        await refusalOf(
          sqs.send(
            new SendMessageCommand({
              QueueUrl: queueUrl,
              MessageBody: JSON.stringify({ orderId: id, status: 'Completed' }),
              MessageGroupId: id,
              MessageDeduplicationId: `forged-${runId}`,
            }),
          ),
        ),
      ).toBe('AccessDenied 403');
      expect(await refusalOf(sqs.send(new PurgeQueueCommand({ QueueUrl: queueUrl })))).toBe(
        'AccessDenied 403',
      );
      expect(
        await refusalOf(
          sqs.send(new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { Policy: '' } })),
        ),
      ).toBe('AccessDenied 403');
    }
    // Nothing was purged or forged: the client reads exactly what the notifier told.
    expect(await statusesOf(a, id, 'Completed', scenarioTimeoutMs.normal)).toEqual(['Received', 'Completed']);
  });
});
