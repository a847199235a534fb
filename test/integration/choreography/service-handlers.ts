/**
 * Loading a service handler the way Lambda does, after useServiceEnvironment (./harness.ts) has set
 * its environment: a fresh copy of the module each time, so settings are parsed and clients built
 * at load as at a cold start, and one test file can run a handler under several settings.
 */
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { EventType, ServiceName } from '../../../lambdas/choreography/contracts';
import { type ChoreographyWorld, envelope, lambdaContext } from './harness';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export async function loadSqsHandler(load: () => Promise<{ handler: SqsHandler }>): Promise<SqsHandler> {
  Object.assign(process.env, {
    // The tests' assertions say what happened; per-record info lines and metric blobs would drown a failure.
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
  let handler: SqsHandler | undefined;
  await jest.isolateModulesAsync(async () => {
    handler = (await load()).handler;
  });
  if (!handler) throw new Error('handler did not load');
  return handler;
}

/** Invokes with records; the ids of the records reported failed. */
export async function invoke(handler: SqsHandler, records: readonly SQSRecord[]): Promise<string[]> {
  const response = await handler({ Records: [...records] }, lambdaContext);
  return response.batchItemFailures.map((failure) => failure.itemIdentifier);
}

/**
 * A queue's visible messages as an event source mapping hands them to Lambda: real receipt handles
 * (ChangeMessageVisibility works on them) and the queue's ARN as eventSourceARN.
 */
export async function receiveRecords(
  world: Pick<ChoreographyWorld, 'sqs'>,
  queueUrl: string,
): Promise<SQSRecord[]> {
  const { Messages = [] } = await world.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      VisibilityTimeout: 30,
      MessageAttributeNames: ['All'],
      MessageSystemAttributeNames: ['All'],
    }),
  );
  const queueName = queueUrl.split('/').at(-1);
  return Messages.map((message) => ({
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: message.Attributes as unknown as SQSRecord['attributes'],
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        { stringValue: value.StringValue, dataType: value.DataType ?? 'String' },
      ]),
    ) as SQSRecord['messageAttributes'],
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:us-east-1:123456789012:${queueName}`,
    awsRegion: 'us-east-1',
  }));
}

/** A DeliveryRequested as ingestion writes it: one small package, a dropoff about 1 km from pickup. */
export function deliveryRequested(
  deliveryId: string,
  dropoff: { lat: number; lon: number } = { lat: 52.53, lon: 13.405 },
): Record<string, unknown> {
  return envelope(
    EventType.DeliveryRequested,
    {
      ownerId: 'owner-1',
      pickup: { lat: 52.52, lon: 13.405 },
      dropoff,
      packages: [{ packageId: 'p1', weightGrams: 1200, size: 'SMALL' }],
    },
    { deliveryId, producer: ServiceName.Ingestion },
  );
}
