/**
 * SQS: the queue backend (startSqsEmulator: the runtime's own SQS service, journaled under
 * `<dataDir>/sqs` when the runtime has a data directory) and one queue per AWS::SQS::Queue, with its
 * attributes and redrive policy; deliveries to queue ARNs (EventBridge targets, SNS subscriptions).
 */
import { join } from 'node:path';
import {
  CreateQueueCommand,
  type MessageAttributeValue,
  QueueNameExists,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { startSqsEmulator } from '../emulators';
import type { DeliveryOptions, ListenContext, Provisioner, StackContext } from '../provisioning';

const QUEUE = 'AWS::SQS::Queue';

const QUEUE_ATTRIBUTES = [
  'DelaySeconds',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'VisibilityTimeout',
  'FifoQueue',
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'FifoThroughputLimit',
] as const;

export class SqsProvisioner implements Provisioner {
  readonly name = 'SQS';
  readonly resourceTypes = {
    runs: [QUEUE],
    inert: { 'AWS::SQS::QueuePolicy': 'queue policies are not enforced locally' },
  };
  private sqs: SQSClient | undefined;
  private readonly queueUrlsByArn = new Map<string, string>();

  /** A client for the backend (once it listens). */
  get client(): SQSClient {
    if (!this.sqs) throw new Error('SQS is not listening yet');
    return this.sqs;
  }

  hasQueue(queueArn: string): boolean {
    return this.queueUrlsByArn.has(queueArn);
  }

  queueUrl(queueArn: string): string {
    const url = this.queueUrlsByArn.get(queueArn);
    if (!url) throw new Error(`No local queue with ARN ${queueArn}`);
    return url;
  }

  /**
   * Where a delivery to a queue ARN goes: the app's queue, or any other queue of the service by the
   * URL the service gives it (a consumer may create its own queue at run time and subscribe it to a
   * topic or bus); the service answers QueueDoesNotExist for a queue that is not there.
   */
  private queueUrlForDelivery(queueArn: string, endpoint: string): string {
    const known = this.queueUrlsByArn.get(queueArn);
    if (known) return known;
    const [, , service, , accountId, queueName] = queueArn.split(':');
    if (service !== 'sqs' || !accountId || !queueName) throw new Error(`${queueArn} is not an SQS queue ARN`);
    return `${endpoint}/${accountId}/${queueName}`;
  }

  async listen(context: ListenContext): Promise<void> {
    const { dataDir } = context.options;
    const server = await startSqsEmulator({
      region: context.region,
      accountId: context.accountId,
      ...(dataDir ? { dataDirectory: join(dataDir, 'sqs') } : {}),
    });
    context.stopWith(server, 'backend');
    context.endpoints.announce('SQS', server.endpoint);
    const client = new SQSClient({ ...context.clientConfig(), endpoint: server.endpoint });
    this.sqs = client;
    context.onStop(() => client.destroy());
    context.deliveries.register('sqs', async (queueArn, message, options) => {
      await client.send(
        new SendMessageCommand({
          QueueUrl: this.queueUrlForDelivery(queueArn, server.endpoint),
          MessageBody: message,
          ...(options.messageGroupId ? { MessageGroupId: options.messageGroupId } : {}),
          ...(options.messageDeduplicationId
            ? { MessageDeduplicationId: options.messageDeduplicationId }
            : {}),
          ...(options.messageAttributes
            ? { MessageAttributes: sqsMessageAttributes(options.messageAttributes) }
            : {}),
        }),
      );
    });
    if (dataDir) context.log(`data: SQS queues and messages persist in ${join(dataDir, 'sqs')}`);
  }

  async provision(context: StackContext): Promise<void> {
    // Dead-letter queues first: a redrive policy must name an existing queue.
    const queues = [...context.ofType(QUEUE)].sort(
      ([, left], [, right]) =>
        Number(left.Properties?.RedrivePolicy !== undefined) -
        Number(right.Properties?.RedrivePolicy !== undefined),
    );
    for (const [logicalId] of queues) {
      this.queueUrlsByArn.set(
        String(context.resolver.context.getAtt(logicalId, 'Arn')),
        await this.createQueue(context, logicalId),
      );
    }
  }

  private async createQueue(context: StackContext, logicalId: string): Promise<string> {
    const { resolver } = context;
    const properties = resolver.properties(logicalId);
    const attributes: Record<string, string> = {};
    for (const name of QUEUE_ATTRIBUTES) {
      if (properties[name] !== undefined) attributes[name] = String(properties[name]);
    }
    if (properties.RedrivePolicy !== undefined) {
      attributes.RedrivePolicy =
        typeof properties.RedrivePolicy === 'string'
          ? properties.RedrivePolicy
          : JSON.stringify(properties.RedrivePolicy);
    }
    const queueName = resolver.physicalName(logicalId);
    const expected = String(resolver.context.ref(logicalId));
    let QueueUrl: string | undefined;
    try {
      ({ QueueUrl } = await this.client.send(
        new CreateQueueCommand({ QueueName: queueName, Attributes: attributes }),
      ));
    } catch (error) {
      // A persisted data directory holds the queue from an earlier run whose template differed:
      // update it in place, as a stack update does (FifoQueue cannot change; the name says which).
      if (!(error instanceof QueueNameExists)) throw error;
      const { FifoQueue: _fixed, ...changeable } = attributes;
      await this.client.send(
        new SetQueueAttributesCommand({
          QueueUrl: expected,
          // An empty RedrivePolicy removes one the earlier template had.
          Attributes: { RedrivePolicy: '', ...changeable },
        }),
      );
      QueueUrl = expected;
    }
    if (QueueUrl !== expected) {
      throw new Error(
        `Queue ${logicalId}: the emulator answered URL ${QueueUrl}, the runtime expected ${expected}`,
      );
    }
    return expected;
  }
}

/** Delivery attributes as the SQS client takes them (binary values as bytes, not base64). */
function sqsMessageAttributes(
  attributes: NonNullable<DeliveryOptions['messageAttributes']>,
): Record<string, MessageAttributeValue> {
  return Object.fromEntries(
    Object.entries(attributes).map(([name, { DataType, StringValue, BinaryValue }]) => [
      name,
      BinaryValue !== undefined
        ? { DataType, BinaryValue: Buffer.from(BinaryValue, 'base64') }
        : { DataType, StringValue },
    ]),
  );
}
