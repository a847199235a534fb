import { RemovalPolicy } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ALERT_EVENT_SOURCE } from '../../lambdas/scheduler-agent-supervisor/contracts';
import { createTerminalQueue } from '../platform/work-queue';

export interface OperatorAlertsProps {
  /** Whether the alert inbox and the topic key survive stack deletion. */
  readonly retainData: boolean;
  /**
   * Operator address subscribed to the alert topic (CDK context `alertEmail`).
   * @default - no email subscription
   */
  readonly alertEmail?: string;
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Where the system raises its hand: an EventBridge bus for operator events, routed (source
 * `order-processing`) to an SNS topic for people and to an SQS "alert inbox" that operators'
 * tools and the black-box tests read.
 */
export class OperatorAlerts extends Construct {
  readonly bus: events.EventBus;
  readonly topic: sns.Topic;
  readonly inbox: sqs.Queue;

  constructor(scope: Construct, id: string, props: OperatorAlertsProps) {
    super(scope, id);
    if (props.alertEmail !== undefined && !EMAIL_PATTERN.test(props.alertEmail)) {
      throw new Error(
        `OperatorAlerts ${this.node.path}: alertEmail '${props.alertEmail}' is not an email address`,
      );
    }
    this.bus = new events.EventBus(this, 'Bus', { description: 'Operator alerts of the order scheduler' });

    // A customer-managed key: the AWS managed SNS key cannot be granted to EventBridge.
    const topicKey = new kms.Key(this, 'TopicKey', {
      description: 'Encrypts the operator alert topic',
      enableKeyRotation: true,
      removalPolicy: props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    topicKey.grant(new iam.ServicePrincipal('events.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.topic = new sns.Topic(this, 'Topic', { masterKey: topicKey, enforceSSL: true });
    if (props.alertEmail) {
      this.topic.addSubscription(new subscriptions.EmailSubscription(props.alertEmail));
    }

    this.inbox = createTerminalQueue(
      this,
      'Inbox',
      props.retainData,
      'The alert inbox is read by operators and tests; an alert that cannot be read stays here for 14 days.',
    );

    new events.Rule(this, 'AlertRule', {
      eventBus: this.bus,
      description: 'Every operator alert goes to the topic and to the inbox',
      eventPattern: { source: [ALERT_EVENT_SOURCE] },
      targets: [new targets.SnsTopic(this.topic), new targets.SqsQueue(this.inbox)],
    });
  }
}
