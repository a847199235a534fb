import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { AlarmNotificationField } from '../../lambdas/shared/alarm-spec';
import { DataSettings } from './data-settings';
import { createTerminalQueue } from './work-queue';

export interface OperatorAlertsProps {
  /** EventBridge `source` values of the alerts routed to the topic and the inbox (at least one). */
  readonly sources: readonly string[];
  /** What raises the alerts, shown as the bus description (e.g. `Operator alerts of the order scheduler`). */
  readonly description: string;
  /**
   * Operator address subscribed to the alert topic (CDK context `alertEmail`).
   * @default - no email subscription
   */
  readonly alertEmail?: string;
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const EVENT_SOURCE_PATTERN = /^[^\s]{1,256}$/;

/**
 * Where a wing raises its hand: an EventBridge bus for operator events, routed (by the sources the
 * wing names) to an SQS "alert inbox" that operators' tools, the console and the black-box tests
 * read, one message per alert item; and an SNS topic for people, which gets only the wing's
 * CloudWatch alarms (allowCloudWatchAlarms): one mail per alarm state change, per reason and
 * period, however many items raised it. Each wing has its own.
 */
export class OperatorAlerts extends Construct {
  readonly bus: events.EventBus;
  readonly topic: sns.Topic;
  readonly inbox: sqs.Queue;

  constructor(scope: Construct, id: string, props: OperatorAlertsProps) {
    super(scope, id);
    const sources = [...new Set(props.sources)];
    if (sources.length === 0 || sources.some((source) => !EVENT_SOURCE_PATTERN.test(source))) {
      throw new Error(
        `OperatorAlerts ${this.node.path}: sources must be one or more EventBridge sources (1-256 characters, no spaces), got ${JSON.stringify(props.sources)}`,
      );
    }
    if (props.alertEmail !== undefined && !EMAIL_PATTERN.test(props.alertEmail)) {
      throw new Error(
        `OperatorAlerts ${this.node.path}: alertEmail '${props.alertEmail}' is not an email address`,
      );
    }
    this.bus = new events.EventBus(this, 'Bus', { description: props.description });

    // A customer-managed key: CloudWatch alarms publish to the topic, and the AWS managed SNS key
    // cannot be granted to CloudWatch (allowCloudWatchAlarms).
    const topicKey = new kms.Key(this, 'TopicKey', {
      description: 'Encrypts the operator alert topic',
      enableKeyRotation: true,
      removalPolicy: DataSettings.of(this).removalPolicy,
    });
    this.topic = new sns.Topic(this, 'Topic', { masterKey: topicKey, enforceSSL: true });
    if (props.alertEmail) {
      this.topic.addSubscription(new subscriptions.EmailSubscription(props.alertEmail));
    }

    this.inbox = createTerminalQueue(
      this,
      'Inbox',
      'The alert inbox is read by operators and tests; an alert that cannot be read stays here for 14 days.',
    );

    // Not to the topic: one mail per alert would let any API-key holder mail the operators once
    // per request. People are told by the wing's alarms (per reason, per period) on the topic.
    new events.Rule(this, 'AlertRule', {
      eventBus: this.bus,
      description: 'Every operator alert goes to the inbox (the topic gets the alarms on them)',
      eventPattern: { source: sources },
      targets: [new targets.SqsQueue(this.inbox)],
    });
  }

  /**
   * Lets CloudWatch alarms of this account and region notify the topic: a topic policy statement
   * and, since the topic is encrypted, use of its key, each only for alarms (aws:SourceArn) of
   * this account (aws:SourceAccount). Without both, an alarm's action fails silently on AWS: the
   * alarm shows "Failed to execute action" in its history and nobody is told.
   *
   * Alarm notifications reach the inbox too, so operators' tools and the black-box tests read
   * alarms where they read alerts: the inbox subscribes to the topic, raw (the body is CloudWatch's
   * JSON), filtered on the body's `AlarmName`, so nothing else published to the topic (alert items
   * reach the inbox from the alert rule only) is delivered twice.
   */
  allowCloudWatchAlarms(): void {
    const stack = Stack.of(this);
    const principal = new iam.ServicePrincipal('cloudwatch.amazonaws.com');
    const conditions = {
      ArnLike: {
        'aws:SourceArn': stack.formatArn({
          service: 'cloudwatch',
          resource: 'alarm',
          resourceName: '*',
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      },
      StringEquals: { 'aws:SourceAccount': stack.account },
    };
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [principal],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions,
      }),
    );
    this.topic.masterKey?.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsUseTopicKey',
        principals: [principal],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions,
      }),
    );
    this.topic.addSubscription(
      new subscriptions.SqsSubscription(this.inbox, {
        rawMessageDelivery: true,
        filterPolicyWithMessageBody: {
          [AlarmNotificationField.AlarmName]: sns.FilterOrPolicy.filter(
            sns.SubscriptionFilter.existsFilter(),
          ),
        },
      }),
    );
  }
}
