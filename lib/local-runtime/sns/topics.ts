/**
 * SNS topics (standard and FIFO) with their SQS and Lambda subscriptions: fan-out on publish,
 * subscription filter policies, raw message delivery, message attributes, and dead-letter queues
 * for deliveries that fail. Other protocols (email, https, sms...) cannot be delivered locally; the
 * runtime names them at start.
 *
 * FIFO topics as AWS documents them: Publish needs a MessageGroupId, and a MessageDeduplicationId
 * unless the topic has content-based deduplication (SHA-256 of the body); a message whose
 * deduplication id was seen in the last 5 minutes is accepted and not delivered again; deliveries
 * to FIFO queues carry the group and deduplication ids, and go out in publish order per topic.
 */
import { createHash } from 'node:crypto';
import { deliveredVia, PUBLISHED_BY_API } from '../metering';
import { mintUuid } from '../minted-ids';
import type { DeliveryOptions } from '../provisioning';
import { invalidParameter, notFound } from './errors';
import { type FilterPolicy, matchesFilterPolicy } from './filter-policy';
import { FIFO_ID, MAX_MESSAGE_BYTES } from './limits';
import {
  checkSnsMessageAttributes,
  notificationAttributes,
  publishSizeBytes,
  type SnsMessageAttributes,
} from './message-attributes';

export interface TopicOptions {
  readonly fifo: boolean;
  readonly contentBasedDeduplication: boolean;
}

export interface TopicSubscription {
  readonly subscriptionArn: string;
  readonly protocol: string;
  /** Queue ARN or function ARN. */
  readonly endpoint: string;
  readonly rawMessageDelivery: boolean;
  readonly filterPolicy?: FilterPolicy;
  /** RedrivePolicy's deadLetterTargetArn: where a failed delivery goes. */
  readonly deadLetterTargetArn?: string;
}

export interface PublishRequest {
  readonly topicArn: string;
  readonly message: string;
  readonly subject?: string;
  readonly messageAttributes?: unknown;
  readonly messageGroupId?: string;
  readonly messageDeduplicationId?: string;
  /** Who published, for metering: a service delivering to the topic. @default PUBLISHED_BY_API */
  readonly publishedBy?: string;
}

export interface PublishResult {
  readonly messageId: string;
  /** FIFO topics only. */
  readonly sequenceNumber?: string;
}

export interface SnsDelivery {
  sendToQueue(queueArn: string, body: string, options: DeliveryOptions): Promise<void>;
  /**
   * Hands an event to Lambda's asynchronous invocation, as the given principal (SNS for the topic,
   * which the function's resource policy must allow); rejects when Lambda refuses or cannot take it.
   */
  invokeAsync(functionArn: string, event: unknown, options: DeliveryOptions): Promise<void>;
  /** A delivery that failed with nowhere to go (no dead-letter queue, or that failed too). */
  onProblem(message: string): void;
  /**
   * Told of each publish the topic accepted (a FIFO duplicate too: SNS bills it), with its message
   * and attributes' size (the runtime's metering). @default - not told
   */
  onPublished?(topicArn: string, payloadBytes: number, publishedBy: string): void;
  /**
   * Runs `wait` (a publish waiting on its deliveries, and on a FIFO topic on the previous publish's
   * first) with the publish's caller parked on the runtime's clock, as a caller waiting on a function
   * is. On a seeded clock a delivery's SQS call waits its turn, which never came while the publish
   * held the clock. @default - runs it as it is
   */
  whileWaiting?(wait: () => Promise<void>): Promise<void>;
}

export const DELIVERABLE_PROTOCOLS: readonly string[] = ['sqs', 'lambda'];

/** SNS FIFO's deduplication interval. */
const DEDUPLICATION_MILLIS = 5 * 60_000;

interface Topic {
  readonly arn: string;
  readonly options: TopicOptions;
  readonly subscriptions: TopicSubscription[];
  /** Deduplication id -> the first publish's result and when it was accepted. */
  readonly deduplication: Map<string, { result: PublishResult; at: number }>;
  sequence: bigint;
  /** FIFO: the deliveries of the previous publish, so the next one goes out after them. */
  lastDelivery: Promise<void>;
}

export class LocalSns {
  private readonly topics = new Map<string, Topic>();

  constructor(
    private readonly delivery: SnsDelivery,
    private readonly region: string,
    private readonly now: () => number = Date.now,
  ) {}

  addTopic(
    topicArn: string,
    options: TopicOptions = { fifo: false, contentBasedDeduplication: false },
  ): void {
    if (this.topics.has(topicArn)) return;
    this.topics.set(topicArn, {
      arn: topicArn,
      options,
      subscriptions: [],
      deduplication: new Map(),
      sequence: 0n,
      lastDelivery: Promise.resolve(),
    });
  }

  has(topicArn: string): boolean {
    return this.topics.has(topicArn);
  }

  topicArns(): string[] {
    return [...this.topics.keys()];
  }

  private topic(topicArn: string): Topic {
    const topic = this.topics.get(topicArn);
    if (!topic) throw notFound('Topic does not exist');
    return topic;
  }

  subscriptionsOf(topicArn: string): readonly TopicSubscription[] {
    return this.topic(topicArn).subscriptions;
  }

  /** Adds a subscription, refusing what SNS refuses (a FIFO topic delivers to SQS only). */
  subscribe(topicArn: string, subscription: TopicSubscription): void {
    const topic = this.topic(topicArn);
    if (topic.options.fifo && subscription.protocol !== 'sqs') {
      throw invalidParameter(
        `Invalid protocol type: ${subscription.protocol} (a FIFO topic delivers to SQS queues only)`,
      );
    }
    if (!DELIVERABLE_PROTOCOLS.includes(subscription.protocol)) {
      throw invalidParameter(`protocol ${subscription.protocol} is not delivered by the local runtime`);
    }
    topic.subscriptions.push(subscription);
  }

  /** Removes a subscription; false when there is none by that ARN. */
  unsubscribe(subscriptionArn: string): boolean {
    for (const topic of this.topics.values()) {
      const index = topic.subscriptions.findIndex((entry) => entry.subscriptionArn === subscriptionArn);
      if (index >= 0) {
        topic.subscriptions.splice(index, 1);
        return true;
      }
    }
    return false;
  }

  /**
   * Publishes to every subscription whose filter policy the message passes; resolves once each
   * delivery has reached its endpoint or dead-letter queue. A failed delivery never fails the
   * publish (SNS accepted the message).
   */
  async publish(request: PublishRequest): Promise<PublishResult> {
    const topic = this.topic(request.topicArn);
    const attributes = checkSnsMessageAttributes(request.messageAttributes);
    checkPublishLimits(request, attributes);
    const payloadBytes =
      Buffer.byteLength(request.message) +
      (request.messageAttributes === undefined
        ? 0
        : Buffer.byteLength(JSON.stringify(request.messageAttributes)));
    if (!topic.options.fifo) {
      if (request.messageDeduplicationId !== undefined) {
        throw invalidParameter(
          'MessageDeduplicationId Reason: The request includes MessageDeduplicationId parameter that is not valid for this topic type',
        );
      }
      this.delivery.onPublished?.(topic.arn, payloadBytes, request.publishedBy ?? PUBLISHED_BY_API);
      const result = { messageId: mintUuid() };
      await this.waiting(() => this.fanOut(topic, request, attributes, result));
      return result;
    }
    if (!request.messageGroupId) {
      throw invalidParameter('The MessageGroupId parameter is required for FIFO topics');
    }
    const deduplicationId =
      request.messageDeduplicationId ??
      (topic.options.contentBasedDeduplication
        ? createHash('sha256').update(request.message).digest('hex')
        : undefined);
    if (deduplicationId === undefined) {
      throw invalidParameter(
        'The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
      );
    }
    this.delivery.onPublished?.(topic.arn, payloadBytes, request.publishedBy ?? PUBLISHED_BY_API);
    const now = this.now();
    for (const [id, seen] of topic.deduplication) {
      if (now - seen.at >= DEDUPLICATION_MILLIS) topic.deduplication.delete(id);
    }
    const duplicate = topic.deduplication.get(deduplicationId);
    if (duplicate) return duplicate.result;
    topic.sequence += 1n;
    const result = { messageId: mintUuid(), sequenceNumber: topic.sequence.toString().padStart(20, '0') };
    topic.deduplication.set(deduplicationId, { result, at: now });
    // Chained per topic: a later publish's deliveries never overtake an earlier one's.
    const delivered = topic.lastDelivery.then(() =>
      this.fanOut(topic, { ...request, messageDeduplicationId: deduplicationId }, attributes, result),
    );
    topic.lastDelivery = delivered.catch(() => undefined);
    await this.waiting(() => delivered);
    return result;
  }

  private waiting(wait: () => Promise<void>): Promise<void> {
    return this.delivery.whileWaiting ? this.delivery.whileWaiting(wait) : wait();
  }

  private async fanOut(
    topic: Topic,
    request: PublishRequest,
    attributes: SnsMessageAttributes,
    result: PublishResult,
  ): Promise<void> {
    const timestamp = new Date(this.now()).toISOString();
    for (const subscription of [...topic.subscriptions]) {
      let passes = false;
      try {
        passes = matchesFilterPolicy(subscription.filterPolicy, request.message, attributes);
      } catch (error) {
        this.delivery.onProblem(
          `subscription ${subscription.subscriptionArn}: filter policy: ${(error as Error).message}`,
        );
      }
      if (!passes) continue;
      const notification = {
        Type: 'Notification',
        MessageId: result.messageId,
        ...(result.sequenceNumber ? { SequenceNumber: result.sequenceNumber } : {}),
        TopicArn: topic.arn,
        ...(request.subject ? { Subject: request.subject } : {}),
        Message: request.message,
        Timestamp: timestamp,
        SignatureVersion: '1',
        Signature: 'local',
        SigningCertURL: 'https://localhost/local-runtime.pem',
        UnsubscribeURL: `https://localhost/?Action=Unsubscribe&SubscriptionArn=${subscription.subscriptionArn}`,
      };
      const messageAttributes = notificationAttributes(attributes);
      const body = subscription.rawMessageDelivery
        ? request.message
        : JSON.stringify(
            Object.keys(messageAttributes).length > 0
              ? { ...notification, MessageAttributes: messageAttributes }
              : notification,
          );
      const fifoIds = {
        ...(request.messageGroupId ? { messageGroupId: request.messageGroupId } : {}),
        ...(request.messageDeduplicationId ? { messageDeduplicationId: request.messageDeduplicationId } : {}),
      };
      try {
        if (subscription.protocol === 'sqs') {
          await this.delivery.sendToQueue(subscription.endpoint, body, {
            deliveredBy: deliveredVia('SNS', request.publishedBy),
            // As SNS for the topic: the queue's policy must allow it (aws:SourceArn), as on AWS.
            deliveredAs: { kind: 'service', service: 'sns.amazonaws.com', sourceArn: topic.arn },
            ...(subscription.endpoint.endsWith('.fifo') ? fifoIds : {}),
            ...(subscription.rawMessageDelivery ? { messageAttributes: attributes } : {}),
          });
        } else {
          await this.delivery.invokeAsync(
            subscription.endpoint,
            {
              Records: [
                {
                  EventSource: 'aws:sns',
                  EventVersion: '1.0',
                  EventSubscriptionArn: subscription.subscriptionArn,
                  Sns: { ...notification, MessageAttributes: messageAttributes, Region: this.region },
                },
              ],
            },
            {
              deliveredBy: deliveredVia('SNS', request.publishedBy),
              // As SNS for the topic: the function's resource policy must allow it, as on AWS.
              deliveredAs: { kind: 'service', service: 'sns.amazonaws.com', sourceArn: topic.arn },
            },
          );
        }
      } catch (error) {
        await this.deadLetter(subscription, body, fifoIds, error as Error);
      }
    }
  }

  /** A failed delivery goes to the subscription's dead-letter queue, with SNS's error attributes. */
  private async deadLetter(
    subscription: TopicSubscription,
    body: string,
    fifoIds: DeliveryOptions,
    error: Error,
  ): Promise<void> {
    const failure = `delivery to ${subscription.endpoint} failed: ${error.name}: ${error.message}`;
    const target = subscription.deadLetterTargetArn;
    if (!target) {
      this.delivery.onProblem(
        `subscription ${subscription.subscriptionArn}: ${failure} (no dead-letter queue: the message is lost)`,
      );
      return;
    }
    try {
      await this.delivery.sendToQueue(target, body, {
        ...(target.endsWith('.fifo') ? fifoIds : {}),
        // A subscription's dead-letter queue must let SNS send for the topic too
        // (https://docs.aws.amazon.com/sns/latest/dg/sns-configure-dead-letter-queue.html).
        deliveredAs: {
          kind: 'service',
          service: 'sns.amazonaws.com',
          sourceArn: subscription.subscriptionArn.slice(0, subscription.subscriptionArn.lastIndexOf(':')),
        },
        messageAttributes: {
          ErrorCode: { DataType: 'String', StringValue: error.name || 'Error' },
          ErrorMessage: { DataType: 'String', StringValue: error.message || 'delivery failed' },
          RequestID: { DataType: 'String', StringValue: mintUuid() },
        },
      });
    } catch (deadLetterError) {
      this.delivery.onProblem(
        `subscription ${subscription.subscriptionArn}: ${failure}; and to its dead-letter queue ${target}: ${(deadLetterError as Error).message}`,
      );
    }
  }
}

/**
 * AWS's limits on one publish (./limits.ts): its size (the message and its attributes), and the
 * FIFO ids' length and characters. The message "Invalid parameter: Message too long" is the one SNS
 * answers (as observed of AWS and reproduced by LocalStack's validated tests; the API reference names
 * only the InvalidParameter code); the id wording is the runtime's own (AWS's text not found).
 */
function checkPublishLimits(request: PublishRequest, attributes: SnsMessageAttributes): void {
  if (publishSizeBytes(request.message, attributes) > MAX_MESSAGE_BYTES) {
    throw invalidParameter('Message too long');
  }
  for (const [parameter, value] of [
    ['MessageGroupId', request.messageGroupId],
    ['MessageDeduplicationId', request.messageDeduplicationId],
  ] as const) {
    if (value !== undefined && value !== '' && !FIFO_ID.test(value)) {
      throw invalidParameter(
        `${parameter} Reason: ${parameter} can only include alphanumeric and punctuation characters. 1 to 128 in length.`,
      );
    }
  }
}
