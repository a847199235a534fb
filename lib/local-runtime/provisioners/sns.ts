/**
 * SNS topics (AWS::SNS::Topic, with inline subscriptions) and subscriptions (AWS::SNS::Subscription)
 * fanning out to queues and functions; deliveries to topic ARNs (EventBridge targets).
 */
import type { ListenContext, Provisioner, StackContext } from '../provisioning';
import { DELIVERABLE_PROTOCOLS, LocalSns } from '../sns';
import type { LambdaProvisioner } from './lambda';
import { asRecord } from './values';

const TOPIC = 'AWS::SNS::Topic';
const SUBSCRIPTION = 'AWS::SNS::Subscription';

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
    const sns = new LocalSns(
      {
        sendToQueue: (queueArn, body) => context.deliveries.deliver(queueArn, body),
        invokeAsync: (functionArn, event) => this.lambda.host.invokeAsync(functionArn, event),
      },
      context.region,
    );
    this.sns = sns;
    context.deliveries.register('sns', async (topicArn, message) => {
      await sns.publish(topicArn, message);
    });
  }

  async provision(context: StackContext): Promise<void> {
    for (const [logicalId] of context.ofType(TOPIC)) {
      this.topics.addTopic(String(context.resolver.context.ref(logicalId)));
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
    const protocol = String(properties.Protocol);
    if (!DELIVERABLE_PROTOCOLS.includes(protocol)) {
      context.named(logicalId, SUBSCRIPTION, `protocol ${protocol} is not delivered locally`);
      return;
    }
    if (properties.FilterPolicy !== undefined) {
      context.named(
        logicalId,
        SUBSCRIPTION,
        'filter policies are not applied locally (every message is delivered)',
      );
    }
    this.topics.subscribe(topicArn, {
      logicalId,
      protocol,
      endpoint: String(properties.Endpoint),
      rawMessageDelivery: properties.RawMessageDelivery === true || properties.RawMessageDelivery === 'true',
    });
  }
}
