import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DataSettings } from '../platform/data-settings';

/**
 * The SNS FIFO topic of delivery requests and remediation decisions. Publishers set the
 * deduplication id (the event id) and the group (the delivery id), so content-based
 * deduplication is off. Encrypted with a customer-managed key (publishers are granted its use).
 */
export class RequestsTopic extends Construct {
  readonly topic: sns.Topic;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const key = new kms.Key(this, 'Key', {
      description: 'Encrypts the delivery requests topic',
      enableKeyRotation: true,
      removalPolicy: DataSettings.of(this).removalPolicy,
    });
    this.topic = new sns.Topic(this, 'Topic', {
      fifo: true,
      contentBasedDeduplication: false,
      masterKey: key,
      enforceSSL: true,
    });
  }

  /**
   * Subscribes a FIFO queue with raw message delivery and a filter policy on the message
   * attributes; messages SNS cannot deliver go to `deadLetterQueue` (FIFO, like the queue).
   */
  subscribeQueue(
    queue: sqs.IQueue,
    filterPolicy: Readonly<Record<string, unknown>>,
    deadLetterQueue: sqs.IQueue,
  ): void {
    if (queue.fifo !== true || deadLetterQueue.fifo !== true) {
      throw new Error(
        `RequestsTopic ${this.node.path}: a FIFO topic delivers only to FIFO queues, and its subscription dead-letter queue must be FIFO too`,
      );
    }
    const subscription = this.topic.addSubscription(
      new subscriptions.SqsSubscription(queue, { rawMessageDelivery: true, deadLetterQueue }),
    );
    // The contracts' policies use $or, which the typed SubscriptionFilter cannot express: set it raw.
    const cfn = subscription.node.defaultChild as sns.CfnSubscription;
    cfn.filterPolicy = filterPolicy;
    cfn.filterPolicyScope = 'MessageAttributes';
  }
}
