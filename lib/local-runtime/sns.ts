/**
 * SNS topics with their SQS and Lambda subscriptions (fan-out on publish). Other protocols (email,
 * https, sms...) cannot be delivered locally; the runtime names them at start.
 */
import { randomUUID } from 'node:crypto';

export interface TopicSubscription {
  readonly logicalId: string;
  readonly protocol: string;
  /** Queue ARN or function ARN. */
  readonly endpoint: string;
  readonly rawMessageDelivery: boolean;
}

export interface SnsDelivery {
  sendToQueue(queueArn: string, body: string): Promise<void>;
  invokeAsync(functionArn: string, event: unknown): void;
}

export const DELIVERABLE_PROTOCOLS: readonly string[] = ['sqs', 'lambda'];

export class LocalSns {
  private readonly topics = new Map<string, TopicSubscription[]>();

  constructor(
    private readonly delivery: SnsDelivery,
    private readonly region: string,
  ) {}

  addTopic(topicArn: string): void {
    if (!this.topics.has(topicArn)) this.topics.set(topicArn, []);
  }

  subscribe(topicArn: string, subscription: TopicSubscription): void {
    const subscriptions = this.topics.get(topicArn);
    if (!subscriptions) throw new Error(`Subscription ${subscription.logicalId}: unknown topic ${topicArn}`);
    subscriptions.push(subscription);
  }

  has(topicArn: string): boolean {
    return this.topics.has(topicArn);
  }

  /** Publishes to every deliverable subscription; returns the message id. */
  async publish(topicArn: string, message: string, subject?: string): Promise<string> {
    const subscriptions = this.topics.get(topicArn);
    if (!subscriptions) throw new Error(`Topic ${topicArn} does not exist locally`);
    const messageId = randomUUID();
    const timestamp = new Date().toISOString();
    for (const subscription of subscriptions) {
      const subscriptionArn = `${topicArn}:${subscription.logicalId}`;
      const notification = {
        Type: 'Notification',
        MessageId: messageId,
        TopicArn: topicArn,
        ...(subject ? { Subject: subject } : {}),
        Message: message,
        Timestamp: timestamp,
        SignatureVersion: '1',
        Signature: 'local',
        SigningCertURL: 'https://localhost/local-runtime.pem',
        UnsubscribeURL: `https://localhost/?Action=Unsubscribe&SubscriptionArn=${subscriptionArn}`,
      };
      if (subscription.protocol === 'sqs') {
        await this.delivery.sendToQueue(
          subscription.endpoint,
          subscription.rawMessageDelivery ? message : JSON.stringify(notification),
        );
      } else if (subscription.protocol === 'lambda') {
        this.delivery.invokeAsync(subscription.endpoint, {
          Records: [
            {
              EventSource: 'aws:sns',
              EventVersion: '1.0',
              EventSubscriptionArn: subscriptionArn,
              Sns: { ...notification, MessageAttributes: {}, Region: this.region },
            },
          ],
        });
      }
    }
    return messageId;
  }
}
