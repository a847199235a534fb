/**
 * SQS: the queue backend (startSqsEmulator) and one queue per AWS::SQS::Queue, with its attributes
 * and redrive policy; deliveries to queue ARNs (EventBridge targets, SNS subscriptions).
 */
import { CreateQueueCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
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
    const server = await startSqsEmulator({ region: context.region, accountId: context.accountId });
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
        }),
      );
    });
    if (context.options.dataDir) {
      context.log(
        'data: SQS queues are in memory only (local-aws-sqs has no persistence): messages still in a ' +
          'queue when the runtime stops are lost',
      );
    }
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
    const { QueueUrl } = await this.client.send(
      new CreateQueueCommand({ QueueName: resolver.physicalName(logicalId), Attributes: attributes }),
    );
    const expected = String(resolver.context.ref(logicalId));
    if (QueueUrl !== expected) {
      throw new Error(
        `Queue ${logicalId}: the emulator answered URL ${QueueUrl}, the runtime expected ${expected}`,
      );
    }
    return expected;
  }
}
