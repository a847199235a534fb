/**
 * Integration harness of the choreography's services: DynamoDB Local (the project's shared JVM, a
 * database of this test file's own) and the runtime's SQS service, reached with the real SDK
 * clients; service tables in the shared layout (contracts/tables.ts); SQS records and envelopes.
 */
import { randomUUID } from 'node:crypto';
import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSRecord } from 'aws-lambda';
import type { DeliveryMetric } from '../../../lambdas/choreography/contracts';
import {
  ChoreographyEnvKey,
  currentVersion,
  type EventType,
  SERVICE_TABLE_INDEXES,
  type ServiceName,
  type ServiceTableIndex,
  TABLE_PARTITION_KEY,
} from '../../../lambdas/choreography/contracts';
import { PowertoolsEnvKey } from '../../../lambdas/shared/env';
import { createObservability } from '../../../lambdas/shared/observability';
import {
  dynamoClient,
  type RunningEmulator,
  sqsClient,
  startDynamoDbLocal,
  startLocalSqs,
  useEmulatorEndpoints,
} from '../../support/emulators';

export interface ChoreographyWorld {
  readonly dynamo: DynamoDBClient;
  readonly documents: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  readonly dynamoEndpoint: string;
  readonly sqsEndpoint: string;
  /** A new service table (pk, stream NEW_AND_OLD_IMAGES, the given indexes) with a unique name. */
  table(indexes?: readonly ServiceTableIndex[]): Promise<string>;
  /** A new FIFO queue with a unique name. */
  fifoQueue(): Promise<string>;
  getItem(tableName: string, key: string): Promise<Record<string, unknown> | undefined>;
  /** Every message now visible on the queue, with all system and message attributes. */
  drain(queueUrl: string): Promise<Message[]>;
  stop(): Promise<void>;
}

let counter = 0;

/**
 * This describe block's world, started before its tests and stopped after them (one beforeAll and
 * one afterAll hook). The object is filled in by that beforeAll: read it inside hooks and tests only,
 * as a `let` the hook had set.
 */
export function useChoreographyWorld(): ChoreographyWorld {
  const world = {} as ChoreographyWorld;
  beforeAll(async () => {
    Object.assign(world, await startChoreographyWorld());
  });
  afterAll(() => world.stop());
  return world;
}

async function startChoreographyWorld(): Promise<ChoreographyWorld> {
  const dynamoServer: RunningEmulator = await startDynamoDbLocal();
  const sqsServer = await startLocalSqs();
  const dynamo = dynamoClient(dynamoServer.endpoint);
  const documents = DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
  const sqs = sqsClient(sqsServer.endpoint);
  return {
    dynamo,
    documents,
    sqs,
    dynamoEndpoint: dynamoServer.endpoint,
    sqsEndpoint: sqsServer.endpoint,
    table: async (indexes = []) => {
      counter += 1;
      const TableName = `service-${counter}-${randomUUID().slice(0, 8)}`;
      const indexKeys = indexes.flatMap((index) => [index.partitionKey, index.sortKey]);
      await dynamo.send(
        new CreateTableCommand({
          TableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [...new Set([TABLE_PARTITION_KEY, ...indexKeys])].map((name) => ({
            AttributeName: name,
            AttributeType: 'S',
          })),
          KeySchema: [{ AttributeName: TABLE_PARTITION_KEY, KeyType: 'HASH' }],
          StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
          ...(indexes.length > 0 && {
            GlobalSecondaryIndexes: indexes.map((index) => ({
              IndexName: index.name,
              KeySchema: [
                { AttributeName: index.partitionKey, KeyType: 'HASH' },
                { AttributeName: index.sortKey, KeyType: 'RANGE' },
              ],
              Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projectedAttributes] },
            })),
          }),
        }),
      );
      return TableName;
    },
    fifoQueue: async () => {
      counter += 1;
      const { QueueUrl } = await sqs.send(
        new CreateQueueCommand({ QueueName: `queue-${counter}.fifo`, Attributes: { FifoQueue: 'true' } }),
      );
      if (!QueueUrl) throw new Error('CreateQueue answered no QueueUrl');
      return QueueUrl;
    },
    getItem: async (TableName, key) =>
      (
        await documents.send(
          new GetCommand({ TableName, Key: { [TABLE_PARTITION_KEY]: key }, ConsistentRead: true }),
        )
      ).Item,
    drain: async (QueueUrl) => {
      const messages: Message[] = [];
      for (;;) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 0,
            VisibilityTimeout: 300,
            MessageAttributeNames: ['All'],
            MessageSystemAttributeNames: ['All'],
          }),
        );
        if (Messages.length === 0) return messages;
        messages.push(...Messages);
      }
    },
    stop: async () => {
      documents.destroy();
      sqs.destroy();
      await sqsServer.stop();
      await dynamoServer.stop();
    },
  };
}

/**
 * The environment the stack gives a service's functions, pointed at this world's emulators: set
 * before a handler module is imported (it reads its environment and builds its clients at load).
 */
/** The requesters the ingestion handlers know here (REQUESTER_REGISTRY): API key ids as API Gateway would pass them. */
export const TEST_REQUESTERS = {
  a: { requesterId: 'requester-a', apiKeyId: 'key-id-a' },
  b: { requesterId: 'requester-b', apiKeyId: 'key-id-b' },
} as const;

/** The requestContext API Gateway gives a call authenticated with `requester`'s key. */
export const requestContextOf = (requester: { readonly apiKeyId: string }) => ({
  identity: { apiKeyId: requester.apiKeyId },
});

export function useServiceEnvironment(
  world: Pick<ChoreographyWorld, 'dynamoEndpoint' | 'sqsEndpoint'>,
  service: string,
  variables: { tableName: string; deadLetterQueueUrl: string; settings: Record<string, unknown> },
): void {
  useEmulatorEndpoints({ dynamodb: world.dynamoEndpoint, sqs: world.sqsEndpoint });
  Object.assign(process.env, {
    [PowertoolsEnvKey.ServiceName]: service,
    [PowertoolsEnvKey.MetricsNamespace]: 'ChoreographyTest',
    [PowertoolsEnvKey.TraceEnabled]: 'false',
    [ChoreographyEnvKey.TableName]: variables.tableName,
    [ChoreographyEnvKey.DeadLetterQueueUrl]: variables.deadLetterQueueUrl,
    [ChoreographyEnvKey.Settings]: JSON.stringify(variables.settings),
    [ChoreographyEnvKey.RequesterRegistry]: JSON.stringify(Object.values(TEST_REQUESTERS)),
  });
}

/**
 * What the stack gives a service: a table (with its indexes) and a dead-letter queue of its own on
 * this world, and its environment set to them (useServiceEnvironment), for its handler module to be loaded next.
 */
export async function provisionService(
  world: ChoreographyWorld,
  service: ServiceName,
  settings: Record<string, unknown>,
): Promise<{ tableName: string; dlqUrl: string }> {
  const tableName = await world.table(SERVICE_TABLE_INDEXES[service]);
  const dlqUrl = await world.fifoQueue();
  useServiceEnvironment(world, service, { tableName, deadLetterQueueUrl: dlqUrl, settings });
  return { tableName, dlqUrl };
}

/** Observability as a deployed consumer has it, without tracing (no Lambda trace context here). */
export function testObservability(service: string) {
  process.env[PowertoolsEnvKey.TraceEnabled] = 'false';
  return createObservability<DeliveryMetric>(
    {},
    {
      [PowertoolsEnvKey.ServiceName]: service,
      [PowertoolsEnvKey.MetricsNamespace]: 'ChoreographyTest',
    },
  );
}

/** An envelope as a producer writes it (current version of its type). */
export function envelope(
  type: EventType,
  data: Record<string, unknown>,
  fields: {
    readonly deliveryId: string;
    readonly producer: ServiceName;
    readonly sequence?: number;
    readonly eventId?: string;
    readonly correlationId?: string;
    readonly schemaVersion?: number;
  },
): Record<string, unknown> {
  const sequence = fields.sequence ?? 1;
  return {
    type,
    schemaVersion: fields.schemaVersion ?? currentVersion(type),
    eventId: fields.eventId ?? `${fields.producer}:${fields.deliveryId}:${sequence}`,
    deliveryId: fields.deliveryId,
    correlationId: fields.correlationId ?? `corr-${fields.deliveryId}`,
    sequence,
    producer: fields.producer,
    occurredAt: new Date().toISOString(),
    data,
  };
}

/** An SQS FIFO record as Lambda delivers it. */
export function sqsRecord(
  body: string,
  options: { readonly groupId?: string; readonly receiveCount?: number; readonly messageId?: string } = {},
): SQSRecord {
  const messageId = options.messageId ?? randomUUID();
  return {
    messageId,
    receiptHandle: `handle-${messageId}`,
    body,
    attributes: {
      ApproximateReceiveCount: String(options.receiveCount ?? 1),
      SentTimestamp: String(Date.now()),
      SenderId: 'test',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
      MessageGroupId: options.groupId ?? 'group',
      MessageDeduplicationId: messageId,
      SequenceNumber: '1',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:queue.fifo',
    awsRegion: 'us-east-1',
  };
}

export const lambdaContext = {
  awsRequestId: 'test-request',
  functionName: 'test',
  getRemainingTimeInMillis: () => 30_000,
} as unknown as Context;
