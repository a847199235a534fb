/**
 * Drone delivery's alarms end to end, through public interfaces only: a poison message on a
 * consumer queue is dead-lettered (POISON), remediation gives up on it (ALERT, an item of the alert
 * inbox), and the give-up alarm of that reason code fires: DescribeAlarms shows ALARM, and the
 * notification CloudWatch sends the mail topic reaches the alert inbox (subscribed to the topic for
 * alarm notifications). The mail topic gets that one alarm state change, not the alert item.
 */
import { randomUUID } from 'node:crypto';
import { CloudWatchClient, DescribeAlarmsCommand, type MetricAlarm } from '@aws-sdk/client-cloudwatch';
import { SQSClient } from '@aws-sdk/client-sqs';
import { ReasonCode, reasonCodeAlarmSuffix } from '../../../lambdas/choreography/contracts';
import { AlarmNotificationField, AlarmState } from '../../../lambdas/shared/alarm-spec';
import { awsClientConfig, takeMatching } from '../client-support';
import { acceptanceTarget, scenarioTimeoutMs } from '../setup';
import { DELIVERIES_APP } from '../target';
import { DeliverySystemClient } from './system-client';

const target = acceptanceTarget(DELIVERIES_APP);
const system = new DeliverySystemClient(target);
const cloudwatch = new CloudWatchClient(awsClientConfig(target, 'cloudwatch'));
const sqs = new SQSClient(awsClientConfig(target, 'sqs'));
const runId = randomUUID().slice(0, 8);
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

afterAll(() => {
  cloudwatch.destroy();
  sqs.destroy();
});

async function describeAlarm(name: string): Promise<MetricAlarm> {
  const { MetricAlarms = [] } = await cloudwatch.send(new DescribeAlarmsCommand({ AlarmNames: [name] }));
  const [alarm] = MetricAlarms;
  if (!alarm) throw new Error(`No alarm ${name} on the target`);
  return alarm;
}

describe('remediation give-up alarm', () => {
  it(
    'a poison message given up on fires RemediationGiveUpsPoison, and its ALARM notification reaches the inbox',
    async () => {
      const name = `${DELIVERIES_APP.stackName}-RemediationGiveUps${reasonCodeAlarmSuffix(ReasonCode.Poison)}`;
      const alarm = await describeAlarm(name);
      const period = (alarm.Period ?? 0) * 1000;
      expect(period).toBeGreaterThan(0);
      await system.sendToQueue('PackageQueueUrl', `not json at all ${runId}`, { groupId: `alarm-${runId}` });

      // Remediation's decision, then the period's evaluation (one period, one more for alignment).
      const deadline = Date.now() + scenarioTimeoutMs.normal + 2 * period;
      const notifications: Record<string, unknown>[] = [];
      let state = alarm.StateValue;
      while (Date.now() < deadline) {
        state = (await describeAlarm(name)).StateValue;
        const bodies = await takeMatching(
          sqs,
          target,
          system.output('AlertInboxQueueUrl'),
          (body) => (JSON.parse(body) as Record<string, unknown>)[AlarmNotificationField.AlarmName] === name,
        );
        notifications.push(...bodies.map((body) => JSON.parse(body) as Record<string, unknown>));
        // Any ALARM of this alarm counts: the system's clock may not be the test's (a virtual one).
        const fired = notifications.find(
          (message) => message[AlarmNotificationField.NewStateValue] === AlarmState.Alarm,
        );
        if (fired) {
          expect(fired).toMatchObject({
            AlarmName: name,
            Trigger: expect.objectContaining({ MetricName: 'RemediationGiveUps' }),
          });
          return;
        }
        await sleep(period / 5);
      }
      throw new Error(
        `${name} stayed ${state}; notifications seen: ${JSON.stringify(notifications.map((n) => n.NewStateValue))}`,
      );
    },
    scenarioTimeoutMs.recovery * 2,
  );
});
