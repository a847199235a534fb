/**
 * Alarms, dashboard and the topic's policies as synthesized: each alarm of the metric contract
 * with its metric, threshold and actions; one alarm per dead-letter queue (and the synth fails
 * when one is missing); the dashboard shows every alarm; CloudWatch may publish to the encrypted
 * topic, only for this account's alarms, and the alarm notifications reach the alert inbox.
 */
import { type App, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import {
  DEAD_LETTER_QUEUE_ALARM,
  METRICS_NAMESPACE,
  ORDER_ALARMS,
  resolveOrderAlarms,
  stepsOfVersions,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { AlarmNotificationField } from '../../../lambdas/shared/alarm-spec';
import { DeadLetterAlarmsGuardrail, deadLetterQueuesOf, OperatorAlarms } from '../../../lib/platform/alarms';
import { PLATFORM_PROFILES } from '../../../lib/platform/config';
import { STACK_NAME } from '../../../lib/scheduler-agent-supervisor/stack';
import { DEMO_CONTEXT, resourcesOf, type SynthesizedStack, synthesizeStack, testApp } from '../support/synth';

type Resource = { Type: string; Properties: Record<string, unknown> };

function resourcesOfType(synth: SynthesizedStack, type: string): [string, Resource][] {
  return Object.entries(resourcesOf(synth.template) as Record<string, Resource>).filter(
    ([, resource]) => resource.Type === type,
  );
}

function alarmsByName(synth: SynthesizedStack): Map<string, [string, Resource]> {
  return new Map(
    resourcesOfType(synth, 'AWS::CloudWatch::Alarm').map(([id, alarm]) => [
      String(alarm.Properties.AlarmName),
      [id, alarm],
    ]),
  );
}

const topicRef = (synth: SynthesizedStack) => ({
  Ref: Stack.of(synth.stack).resolve(synth.stack.alerts.topic.topicArn).Ref as string,
});

describe.each([
  ['local', {}],
  ['default', DEMO_CONTEXT],
])('alarms of the %s profile', (profile, context) => {
  const synth = synthesizeStack(profile, { context });
  const alarms = alarmsByName(synth);
  const period = PLATFORM_PROFILES[profile as 'local' | 'default'].alarmPeriodSeconds;

  it.each(
    resolveOrderAlarms({
      timings: synth.config.timings,
      stepCount: liveSteps(synth.config).length,
      periodSeconds: period,
    }),
  )(
    '$name: its metric, statistic, threshold, missing data, and the operator topic on alarm and OK',
    (spec) => {
      const alarm = alarms.get(`${STACK_NAME}-${spec.name}`)?.[1];
      expect(alarm?.Properties).toMatchObject({
        Namespace: METRICS_NAMESPACE,
        MetricName: spec.metric,
        Dimensions: Object.entries(spec.dimensions ?? {}).map(([Name, Value]) => ({ Name, Value })),
        Statistic: spec.statistic,
        ComparisonOperator: spec.comparison,
        Threshold: spec.threshold,
        TreatMissingData: spec.treatMissingData,
        Period: period,
        EvaluationPeriods: spec.evaluationPeriods ?? 1,
        DatapointsToAlarm: spec.datapointsToAlarm ?? spec.evaluationPeriods ?? 1,
        ActionsEnabled: true,
        AlarmActions: [topicRef(synth)],
        OKActions: [topicRef(synth)],
      });
      expect(String(alarm?.Properties.AlarmDescription)).toContain(spec.description);
      expect(String(alarm?.Properties.AlarmDescription)).toContain(spec.action);
    },
  );

  it('has one depth alarm per dead-letter queue, on the operator topic, and no other alarm', () => {
    const queues = deadLetterQueuesOf(synth.stack).map((queue) => Stack.of(queue).resolve(queue.logicalId));
    // The agents' and starter's redrive targets, the client reply DLQs, and the stream consumers'
    // on-failure queues: found in the template, not listed by hand.
    expect(queues.length).toBe(liveSteps(synth.config).length + 1 + synth.config.clients.length + 2);
    const queueAlarms = [...alarms.values()].filter(
      ([, alarm]) => alarm.Properties.MetricName === DEAD_LETTER_QUEUE_ALARM.metric,
    );
    expect(
      queueAlarms.map(([, alarm]) => (alarm.Properties.Dimensions as { Value: unknown }[])[0]?.Value),
    ).toEqual(expect.arrayContaining(queues.map((id) => ({ 'Fn::GetAtt': [id, 'QueueName'] }))));
    expect(queueAlarms).toHaveLength(queues.length);
    for (const [, alarm] of queueAlarms) {
      expect(alarm.Properties).toMatchObject({
        Namespace: 'AWS/SQS',
        Statistic: 'Maximum',
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Threshold: 1,
        TreatMissingData: 'ignore',
        AlarmActions: [topicRef(synth)],
        OKActions: [topicRef(synth)],
      });
    }
    expect(alarms.size).toBe(ORDER_ALARMS.length + queues.length);
  });

  it('has one dashboard that shows every alarm and the order-flow metrics', () => {
    const dashboards = resourcesOfType(synth, 'AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(Stack.of(synth.stack).resolve(dashboards[0]?.[1].Properties.DashboardBody));
    for (const [id] of alarms.values()) {
      expect(body).toContain(id);
    }
    for (const metric of [
      'OrdersAccepted',
      'OrdersProcessed',
      'OrdersFailed',
      'OrdersCompensated',
      'OrdersInFlight',
      'RecoveryTimeSeconds',
    ]) {
      expect(body).toMatch(new RegExp(`${METRICS_NAMESPACE}[^,]*,[^A-Za-z]*${metric}[^A-Za-z]`));
    }
    // Unregistered API keys, from submit-order and get-order alike, searched across the service dimension.
    expect(body).toMatch(/unregistered key \(403\)[^\]]*MetricName=[^A-Za-z]*UnknownClientRequests[^A-Za-z]/);
  });

  it('lets CloudWatch alarms of this account, and nothing else of CloudWatch, publish to the encrypted topic', () => {
    const cloudwatchStatements = (document: unknown) =>
      ((document as { Statement: Record<string, unknown>[] }).Statement ?? []).filter((statement) =>
        JSON.stringify(statement.Principal).includes('cloudwatch.amazonaws.com'),
      );
    const condition = {
      ArnLike: { 'aws:SourceArn': expect.objectContaining({ 'Fn::Join': expect.any(Array) }) },
      StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
    };
    const [topicPolicy] = resourcesOfType(synth, 'AWS::SNS::TopicPolicy');
    expect(cloudwatchStatements(topicPolicy?.[1].Properties.PolicyDocument)).toEqual([
      expect.objectContaining({ Effect: 'Allow', Action: 'sns:Publish', Condition: condition }),
    ]);
    const arn = JSON.stringify(cloudwatchStatements(topicPolicy?.[1].Properties.PolicyDocument)[0]);
    expect(arn).toContain(':alarm:*');
    const topicKeyId = Stack.of(synth.stack).resolve(synth.stack.alerts.topic.masterKey?.keyArn)[
      'Fn::GetAtt'
    ][0];
    const key = resourcesOf(synth.template)[topicKeyId] as Resource;
    expect(cloudwatchStatements(key.Properties.KeyPolicy)).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        Condition: condition,
      }),
    ]);
  });

  it('delivers alarm notifications, and only those, from the topic to the alert inbox (raw, filtered on AlarmName)', () => {
    const resolve = (value: unknown) => Stack.of(synth.stack).resolve(value);
    const subscriptions = resourcesOfType(synth, 'AWS::SNS::Subscription').map(
      ([, subscription]) => subscription.Properties,
    );
    expect(subscriptions).toEqual([
      {
        Protocol: 'sqs',
        TopicArn: topicRef(synth),
        Endpoint: resolve(synth.stack.alerts.inbox.queueArn),
        RawMessageDelivery: true,
        FilterPolicyScope: 'MessageBody',
        FilterPolicy: { [AlarmNotificationField.AlarmName]: [{ exists: true }] },
      },
    ]);
    // SNS may send to the inbox only from this topic.
    const inboxPolicy = resourcesOfType(synth, 'AWS::SQS::QueuePolicy').find(([, policy]) =>
      JSON.stringify(policy.Properties.Queues).includes(resolve(synth.stack.alerts.inbox.queueUrl).Ref),
    );
    const document = inboxPolicy?.[1].Properties.PolicyDocument as
      | { Statement: Record<string, unknown>[] }
      | undefined;
    const fromSns = (document?.Statement ?? []).filter((statement) =>
      JSON.stringify(statement.Principal).includes('sns.amazonaws.com'),
    );
    expect(fromSns).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Condition: { ArnEquals: { 'aws:SourceArn': topicRef(synth) } },
      }),
    ]);
  });
});

/** The step kinds the stack's live workflow versions run (one agent, one DLQ each). */
function liveSteps(config: { readonly workflow: { readonly live: readonly number[] } }) {
  return stepsOfVersions(config.workflow.live);
}

describe('guardrail: every dead-letter queue has a depth alarm', () => {
  function probe(withAlarm: boolean): App {
    const app = testApp();
    const stack = new Stack(app, 'Probe');
    stack.node.addValidation(new DeadLetterAlarmsGuardrail(stack));
    const deadLetters = new sqs.Queue(stack, 'DeadLetters');
    new sqs.Queue(stack, 'Work', { deadLetterQueue: { queue: deadLetters, maxReceiveCount: 3 } });
    if (withAlarm) {
      new OperatorAlarms(stack, 'Alarms', {
        topic: new sns.Topic(stack, 'Topic'),
        namespace: 'Probe',
        periodSeconds: 60,
      }).alarmDeadLetterQueues(DEAD_LETTER_QUEUE_ALARM);
    }
    return app;
  }

  it('fails the synth naming the dead-letter queue that has none', () => {
    expect(() => probe(false).synth()).toThrow(
      /Dead-letter queue Probe\/DeadLetters\/Resource has no alarm on its depth/,
    );
  });

  it('passes once OperatorAlarms alarms the stack dead-letter queues', () => {
    expect(() => probe(true).synth()).not.toThrow();
  });

  it('does not count an alarm without an action', () => {
    const app = testApp();
    const stack = new Stack(app, 'Probe');
    stack.node.addValidation(new DeadLetterAlarmsGuardrail(stack));
    const deadLetters = new sqs.Queue(stack, 'DeadLetters');
    new sqs.Queue(stack, 'Work', { deadLetterQueue: { queue: deadLetters, maxReceiveCount: 3 } });
    new cloudwatch.Alarm(stack, 'Silent', {
      metric: deadLetters.metricApproximateNumberOfMessagesVisible(),
      threshold: 1,
      evaluationPeriods: 1,
    });
    expect(() => app.synth()).toThrow(/Dead-letter queue Probe\/DeadLetters\/Resource has no alarm/);
  });
});

describe('OperatorAlarms validation', () => {
  it.each([0, 15, 45, 90])('refuses a %i s period', (seconds) => {
    const stack = new Stack(testApp(), 'Probe');
    expect(
      () =>
        new OperatorAlarms(stack, 'Alarms', {
          topic: new sns.Topic(stack, 'Topic'),
          namespace: 'Probe',
          periodSeconds: seconds,
        }),
    ).toThrow(/an alarm period must be 10, 20, 30 or a multiple of 60 seconds/);
  });
});
