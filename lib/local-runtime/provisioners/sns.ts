/**
 * SNS: topics (AWS::SNS::Topic, standard and FIFO, with inline subscriptions) and subscriptions
 * (AWS::SNS::Subscription, with filter policies, raw message delivery and dead-letter queues)
 * fanning out to queues and functions; deliveries to topic ARNs (EventBridge targets, pipes); and
 * the SNS API (Query protocol) for handlers, announced as AWS_ENDPOINT_URL_SNS.
 */
import { AwsApiError } from '../aws-json-server';
import { startAwsQueryServer } from '../aws-query-server';
import type { ListenContext, Provisioner, StackContext } from '../provisioning';
import { LocalSns, readSubscriptionAttributes } from '../sns';
import { snsApiOperations } from '../sns/api';
import type { LambdaProvisioner } from './lambda';
import { arnName, asRecord } from './values';

const TOPIC = 'AWS::SNS::Topic';
const SUBSCRIPTION = 'AWS::SNS::Subscription';

const isTrue = (value: unknown) => value === true || value === 'true';

export class SnsProvisioner implements Provisioner {
  readonly name = 'SNS';
  readonly resourceTypes = {
    runs: [TOPIC, SUBSCRIPTION],
    inert: { 'AWS::SNS::TopicPolicy': 'topic policies are not enforced locally' },
  };
  private sns: LocalSns | undefined;

  constructor(private readonly lambda: LambdaProvisioner) {}

  private get topics(): LocalSns {
    if (!this.sns) throw new Error('SNS is not started yet');
    return this.sns;
  }

  /** Whether the app declares this topic (once provisioned). */
  hasTopic(topicArn: string): boolean {
    return this.topics.has(topicArn);
  }

  async listen(context: ListenContext): Promise<void> {
    const { meter } = context;
    const sns = new LocalSns(
      {
        sendToQueue: (queueArn, body, options) => context.deliveries.deliver(queueArn, body, options),
        invokeAsync: (functionArn, event) => this.lambda.host.invokeAsync(functionArn, event),
        onProblem: (message) => context.problem(`SNS ${message}`),
        ...(meter && {
          onPublished: (topicArn: string, payloadBytes: number, publishedBy: string) =>
            meter.published(arnName(topicArn), payloadBytes, publishedBy),
        }),
      },
      context.region,
    );
    this.sns = sns;
    context.deliveries.register('sns', async (topicArn, message, options) => {
      await sns.publish({
        topicArn,
        message,
        ...(options.deliveredBy ? { publishedBy: options.deliveredBy } : {}),
        ...(options.subject ? { subject: options.subject } : {}),
        ...(options.messageGroupId ? { messageGroupId: options.messageGroupId } : {}),
        ...(options.messageDeduplicationId ? { messageDeduplicationId: options.messageDeduplicationId } : {}),
      });
    });
    const server = await startAwsQueryServer('SNS', snsApiOperations(sns, { accountId: context.accountId }), {
      xmlNamespace: 'http://sns.amazonaws.com/doc/2010-03-31/',
      onInternalError: (error) => context.problem(`SNS API: ${(error as Error).message}`),
    });
    context.stopWith(server, 'backend');
    context.endpoints.announce('SNS', server.endpoint);
  }

  async provision(context: StackContext): Promise<void> {
    for (const [logicalId] of context.ofType(TOPIC)) {
      const properties = context.resolver.properties(logicalId);
      const topicArn = String(context.resolver.context.ref(logicalId));
      context.meter?.describe('topics', arnName(topicArn), { stackName: context.stack.stackName, logicalId });
      this.topics.addTopic(topicArn, {
        fifo: isTrue(properties.FifoTopic),
        contentBasedDeduplication: isTrue(properties.ContentBasedDeduplication),
      });
    }
  }

  async wire(context: StackContext): Promise<void> {
    for (const [logicalId] of context.ofType(TOPIC)) {
      const topicArn = String(context.resolver.context.ref(logicalId));
      const inline = context.resolver.properties(logicalId).Subscription;
      for (const [index, subscription] of (Array.isArray(inline) ? inline : []).entries()) {
        this.subscribe(context, topicArn, `${logicalId}[${index}]`, asRecord(subscription));
      }
    }
    for (const [logicalId] of context.ofType(SUBSCRIPTION)) {
      const properties = context.resolver.properties(logicalId);
      this.subscribe(context, String(properties.TopicArn), logicalId, properties);
    }
  }

  private subscribe(
    context: StackContext,
    topicArn: string,
    logicalId: string,
    properties: Record<string, unknown>,
  ): void {
    try {
      const attributes = readSubscriptionAttributes(properties);
      const deadLetter = attributes.deadLetterTargetArn;
      if (deadLetter !== undefined && !context.deliveries.canDeliver(deadLetter)) {
        context.named(logicalId, SUBSCRIPTION, `dead-letter queue ${deadLetter} is not delivered to locally`);
      }
      this.topics.subscribe(topicArn, {
        subscriptionArn: `${topicArn}:${logicalId}`,
        protocol: String(properties.Protocol),
        endpoint: String(properties.Endpoint),
        ...attributes,
      });
    } catch (error) {
      if (!(error instanceof AwsApiError)) throw error;
      context.named(logicalId, SUBSCRIPTION, `not subscribed: ${error.message}`);
    }
  }
}
