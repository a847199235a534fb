/**
 * Drone delivery's alarms and dashboard as synthesized: each named alarm with its metric,
 * dimensions and the operator topic on alarm and OK; one alarm per dead-letter queue, per reason
 * code of remediation's give-ups, per outbox relay (iterator age), per FIFO work queue (oldest
 * message) and on the API's 5xx; the dashboard shows every alarm.
 */
import { Stack } from 'aws-cdk-lib';
import {
  CHOREOGRAPHY_METRICS_NAMESPACE,
  DELIVERY_API_5XX_ALARM,
  DELIVERY_DEAD_LETTER_QUEUE_ALARM,
  OLDEST_MESSAGE_AGE_ALARM_NAME,
  REASON_CODES,
  RELAY_ITERATOR_AGE_ALARM,
  remediationGiveUpAlarms,
} from '../../../lambdas/choreography/contracts';
import { DRONE_DELIVERY_STACK_NAME } from '../../../lib/choreography/stack';
import { deadLetterQueuesOf } from '../../../lib/platform/alarms';
import { PLATFORM_PROFILES } from '../../../lib/platform/config';
import { type Resource, synthesizeDroneDelivery } from './synth';

describe.each(['local', 'default'] as const)('delivery alarms of the %s profile', (profile) => {
  const synth = synthesizeDroneDelivery({ profile });
  const stack = Stack.of(synth.stack);
  const all = Object.entries(synth.template.toJSON().Resources as Record<string, Resource>);
  const alarms = new Map(
    all
      .filter(([, resource]) => resource.Type === 'AWS::CloudWatch::Alarm')
      .map(([id, alarm]) => [String(alarm.Properties.AlarmName), { id, alarm }]),
  );
  const topic = { Ref: stack.resolve(synth.stack.alerts.topic.topicArn).Ref as string };
  const period = PLATFORM_PROFILES[profile].alarmPeriodSeconds;
  const onTopic = { ActionsEnabled: true, AlarmActions: [topic], OKActions: [topic] };
  const named = (prefix: string) =>
    [...alarms.entries()].filter(([name]) => name.startsWith(`${DRONE_DELIVERY_STACK_NAME}-${prefix}`));

  it.each(remediationGiveUpAlarms())('$name: give-ups of its reason code, on the operator topic', (spec) => {
    const found = alarms.get(`${DRONE_DELIVERY_STACK_NAME}-${spec.name}`)?.alarm;
    expect(found?.Properties).toMatchObject({
      Namespace: CHOREOGRAPHY_METRICS_NAMESPACE,
      MetricName: 'RemediationGiveUps',
      Dimensions: expect.arrayContaining(
        Object.entries(spec.dimensions ?? {}).map(([Name, Value]) => ({ Name, Value })),
      ),
      Statistic: 'Sum',
      Threshold: 1,
      Period: period,
      ...onTopic,
    });
    expect(found?.Properties.Dimensions).toHaveLength(2);
  });

  it('has a give-up alarm for every reason code', () => {
    expect(named('RemediationGiveUps')).toHaveLength(REASON_CODES.length);
  });

  it('has one depth alarm per dead-letter queue, on the operator topic', () => {
    const queues = deadLetterQueuesOf(synth.stack).map((queue) => stack.resolve(queue.logicalId));
    // The four consumers' queues' DLQs (consumed by remediation), remediation's and the relays'.
    expect(queues.length).toBeGreaterThanOrEqual(6);
    const depth = named(DELIVERY_DEAD_LETTER_QUEUE_ALARM.name);
    expect(depth.map(([, { alarm }]) => alarm.Properties.Dimensions[0].Value)).toEqual(
      expect.arrayContaining(queues.map((id) => ({ 'Fn::GetAtt': [id, 'QueueName'] }))),
    );
    expect(depth).toHaveLength(queues.length);
    for (const [, { alarm }] of depth) {
      expect(alarm.Properties).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        ...onTopic,
      });
    }
  });

  it('has an oldest-message alarm per FIFO work queue (not on dead-letter queues), the ingestion read model among them', () => {
    const dlqs = new Set(deadLetterQueuesOf(synth.stack).map((queue) => stack.resolve(queue.logicalId)));
    const fifo = all
      .filter(([, resource]) => resource.Type === 'AWS::SQS::Queue' && resource.Properties.FifoQueue === true)
      .map(([id]) => id)
      .filter((id) => !dlqs.has(id));
    expect(fifo.length).toBeGreaterThanOrEqual(4);
    const age = named(OLDEST_MESSAGE_AGE_ALARM_NAME);
    expect(age.map(([, { alarm }]) => alarm.Properties.Dimensions[0].Value['Fn::GetAtt'][0]).sort()).toEqual(
      [...fifo].sort(),
    );
    expect(age.map(([name]) => name)).toEqual(
      expect.arrayContaining([expect.stringContaining('IngestionProjection')]),
    );
    for (const [, { alarm }] of age) {
      // The queue's retry window: a message that keeps failing is dead-lettered before it fires.
      const [, queue] =
        all.find(([id]) => id === alarm.Properties.Dimensions[0].Value['Fn::GetAtt'][0]) ?? [];
      const window = queue?.Properties.VisibilityTimeout * queue?.Properties.RedrivePolicy.maxReceiveCount;
      expect(window).toBeGreaterThan(0);
      expect(alarm.Properties).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateAgeOfOldestMessage',
        Threshold: window,
        ...onTopic,
      });
    }
  });

  it("has an iterator-age (outbox lag) alarm on each relay's function", () => {
    const lag = named(RELAY_ITERATOR_AGE_ALARM.name);
    expect(lag).toHaveLength(Object.keys(synth.stack.relays).length);
    const functions = Object.values(synth.stack.relays).map((relay) =>
      stack.resolve(relay.relay.function.functionName),
    );
    expect(lag.map(([, { alarm }]) => alarm.Properties.Dimensions)).toEqual(
      expect.arrayContaining(functions.map((Value) => [{ Name: 'FunctionName', Value }])),
    );
    for (const [, { alarm }] of lag) {
      expect(alarm.Properties).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'IteratorAge',
        ...onTopic,
      });
    }
  });

  it("has a 5xx alarm on the delivery API's stage", () => {
    const found = alarms.get(`${DRONE_DELIVERY_STACK_NAME}-${DELIVERY_API_5XX_ALARM.name}`)?.alarm;
    expect(found?.Properties).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: '5XXError',
      Statistic: 'Sum',
      ...onTopic,
    });
    expect(found?.Properties.Dimensions.map((d: { Name: string }) => d.Name).sort()).toEqual([
      'ApiName',
      'Stage',
    ]);
  });

  it('has one dashboard that shows every alarm', () => {
    const dashboards = all.filter(([, resource]) => resource.Type === 'AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(stack.resolve(dashboards[0]?.[1].Properties.DashboardBody));
    expect(alarms.size).toBeGreaterThan(REASON_CODES.length);
    for (const { id } of alarms.values()) expect(body).toContain(id);
  });

  it('graphs unregistered API keys (403) apart from the validation refusals (400)', () => {
    const [dashboard] = all.filter(([, resource]) => resource.Type === 'AWS::CloudWatch::Dashboard');
    const body = JSON.stringify(stack.resolve(dashboard?.[1].Properties.DashboardBody));
    expect(body).toMatch(/DeliveriesRejected[^\]]*rejected \(400\)/);
    expect(body).toMatch(/UnknownRequesterRequests[^\]]*unregistered key \(403\)/);
  });
});
