/**
 * SQS: the queue backend (startSqsEmulator: the runtime's own SQS service, journaled under
 * `<dataDir>/sqs` when the runtime has a data directory) and one queue per AWS::SQS::Queue, with its
 * attributes and redrive policy; deliveries to queue ARNs (EventBridge targets, SNS subscriptions).
 */
import { join } from 'node:path';
import {
  CreateQueueCommand,
  QueueNameExists,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { startSqsEmulator } from '../emulators';
import type { ListenContext, Provisioner, StackContext } from '../provisioning';

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
          QueueUrl: this.queueUrl(queueArn),
          MessageBody: message,
          ...(options.messageGroupId ? { MessageGroupId: options.messageGroupId } : {}),
          ...(options.messageDeduplicationId
            ? { MessageDeduplicationId: options.messageDeduplicationId }
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
