/**
 * The app's alarms end to end, through public interfaces only (so the file also runs against
 * LocalStack and AWS, ACCEPTANCE_TARGET): CloudWatch's DescribeAlarms finds each alarm and gives
 * its Period, EvaluationPeriods and DatapointsToAlarm, from which every wait is derived; SQS and
 * EventBridge cause the condition; the notification CloudWatch sends the operator topic is read
 * from the alert inbox (the inbox subscribes to the topic for alarm notifications).
 *
 *   - a message in a dead-letter queue fires that queue's alarm (ALARM reaches the inbox); taking
 *     it out clears it (OK reaches the inbox), and the queue is left empty;
 *   - the supervisor's schedule rule disabled fires SupervisorNotRunning; enabled again (always,
 *     in `finally`), the supervisor sweeps and the alarm clears;
 *   - `npm run orders -- metrics` prints every alarm of the metric contract with its state.
 *
 * Other files: the file leaves the system as it found it (the schedule enabled and seen sweeping
 * again, the queue empty), so run in band (npm test on two cores, test:acceptance, test:localstack
 * and test:aws) its place in the order does not matter. Run beside other files, the supervisor's
 * pause would slow their recoveries, so the sequencer (test/support/run-last-sequencer.js) starts
 * it after every other file.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { CloudWatchClient, DescribeAlarmsCommand, type MetricAlarm } from '@aws-sdk/client-cloudwatch';
import {
  DisableRuleCommand,
  EnableRuleCommand,
  EventBridgeClient,
  ListRulesCommand,
  ListTargetsByRuleCommand,
  type Rule,
} from '@aws-sdk/client-eventbridge';
import {
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import {
  DEAD_LETTER_QUEUE_ALARM,
  ORDER_ALARMS,
  OrderMetric,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import {
  AlarmNotificationField,
  AlarmState,
  SQS_METRICS_NAMESPACE,
  SQS_QUEUE_DIMENSION,
} from '../../../lambdas/shared/alarm-spec';
import { awsClientConfig, takeMatching } from '../client-support';
import { acceptanceTarget, scenarioTimeoutMs, TARGET_ENV } from '../setup';
import { ORDERS_APP } from '../target';

const target = acceptanceTarget();
const cloudwatch = new CloudWatchClient(awsClientConfig(target, 'cloudwatch'));
const eventBridge = new EventBridgeClient(awsClientConfig(target, 'events'));
const sqs = new SQSClient(awsClientConfig(target, 'sqs'));
/** The app's alarms are named `<stack>-<name>` (lib/platform/alarms.ts). */
const alarmName = (name: string) => `${ORDERS_APP.stackName}-${name}`;
const STATES: readonly string[] = Object.values(AlarmState);

/**
 * Slack on top of what an alarm's own settings take: metrics reach CloudWatch late (AWS's SQS
 * metrics by minutes), then the alarm's action publishes and SNS delivers. The profile's bound,
 * not a number of this runtime.
 */
const SLACK_MS = scenarioTimeoutMs.normal;
/** Per scenario: the waits below are the bounds; this only stops a hung scenario. */
const SCENARIO_TIMEOUT_MS = 3 * scenarioTimeoutMs.recovery;

afterAll(() => {
  cloudwatch.destroy();
  eventBridge.destroy();
  sqs.destroy();
});

/**
 * How long the alarm may take to change state once its metric has: ALARM needs DatapointsToAlarm
 * (M) breaching periods, OK needs enough good ones that fewer than M of EvaluationPeriods (N) breach
 * (N - M + 1); one period more for the clock alignment of periods and the evaluation after each,
 * and the slack.
 */
function stateChangeBoundMs(alarm: MetricAlarm, to: typeof AlarmState.Alarm | typeof AlarmState.Ok): number {
  const period = alarm.Period ?? 0;
  const n = alarm.EvaluationPeriods ?? 0;
  const m = alarm.DatapointsToAlarm ?? n;
  if (period <= 0 || n <= 0 || m <= 0 || m > n) {
    throw new Error(`${alarm.AlarmName}: Period ${period}, EvaluationPeriods ${n}, DatapointsToAlarm ${m}`);
  }
  const periods = to === AlarmState.Alarm ? m : n - m + 1;
  return (periods + 1) * period * 1000 + SLACK_MS;
}

/** `rate(1 minute)` -> 60000: the longest a scheduled run may keep going after its rule is disabled, and the longest to its next run. */
function rateMillis(expression: string | undefined): number {
  const match = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression ?? '');
  if (!match) throw new Error(`not a rate expression: ${expression}`);
  const unit = { minute: 60_000, hour: 3_600_000, day: 86_400_000 }[match[2]?.replace(/s$/, '') ?? ''];
  return Number(match[1]) * (unit ?? Number.NaN);
}

async function appAlarms(): Promise<MetricAlarm[]> {
  const alarms: MetricAlarm[] = [];
  let token: string | undefined;
  do {
    const page = await cloudwatch.send(
      new DescribeAlarmsCommand({ AlarmNamePrefix: alarmName(''), NextToken: token }),
    );
    alarms.push(...(page.MetricAlarms ?? []));
    token = page.NextToken;
  } while (token);
  return alarms;
}

async function describeAlarm(name: string): Promise<MetricAlarm> {
  const { MetricAlarms = [] } = await cloudwatch.send(new DescribeAlarmsCommand({ AlarmNames: [name] }));
  const [alarm] = MetricAlarms;
  if (!alarm) throw new Error(`No alarm ${name} on the target`);
  return alarm;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
/** How often to look again: a fifth of the alarm's period (a change shows once a period). */
const pollMs = (alarm: MetricAlarm) => ((alarm.Period ?? 10) * 1000) / 5;

/** Polls DescribeAlarms until the alarm is in `state`; fails naming the state it stayed in. */
/**
 * Waits until the alarm is in `state`; resolves with when it entered it, on CloudWatch's clock (not
 * the test's: the system's clock may be another, the local runtime's virtual clock for one).
 */
async function untilState(alarm: MetricAlarm, state: AlarmState, withinMs: number): Promise<number> {
  const deadline = Date.now() + withinMs;
  let seen = alarm.StateValue;
  while (Date.now() < deadline) {
    const described = await describeAlarm(alarm.AlarmName ?? '');
    seen = described.StateValue;
    if (seen === state) return described.StateUpdatedTimestamp?.getTime() ?? 0;
    await sleep(pollMs(alarm));
  }
  throw new Error(`${alarm.AlarmName} stayed ${seen}, not ${state}, for ${withinMs} ms`);
}

interface AlarmNotification {
  readonly AlarmName: string;
  readonly NewStateValue: string;
  readonly OldStateValue: string;
  readonly StateChangeTime: string;
  readonly Trigger?: {
    readonly MetricName?: string;
    readonly Namespace?: string;
    readonly Dimensions?: readonly { readonly name: string; readonly value: string }[];
  };
}

/**
 * Takes this alarm's notifications from the inbox (a queue shared with the other files and with
 * operators: only the alarm's own are taken, older ones included) until one announces `state`
 * after `since`; fails naming what came.
 */
async function notification(
  alarm: MetricAlarm,
  state: AlarmState,
  since: number,
  withinMs: number,
): Promise<AlarmNotification> {
  const deadline = Date.now() + withinMs;
  const seen: AlarmNotification[] = [];
  while (Date.now() < deadline) {
    const bodies = await takeMatching(
      sqs,
      target,
      target.outputs.AlertInboxQueueUrl,
      (body) =>
        (JSON.parse(body) as Record<string, unknown>)[AlarmNotificationField.AlarmName] === alarm.AlarmName,
    );
    seen.push(...bodies.map((body) => JSON.parse(body) as AlarmNotification));
    // The notification's clock is CloudWatch's: a second of skew is allowed.
    const match = seen.find(
      (message) => message.NewStateValue === state && Date.parse(message.StateChangeTime) >= since - 1_000,
    );
    if (match) return match;
    await sleep(pollMs(alarm));
  }
  throw new Error(
    `No ${state} notification of ${alarm.AlarmName} reached the inbox within ${withinMs} ms; it got ${JSON.stringify(
      seen.map(({ NewStateValue, StateChangeTime }) => ({ NewStateValue, StateChangeTime })),
    )}`,
  );
}

describe('npm run orders -- metrics', () => {
  it('prints every alarm of the metric contract, and every dead-letter queue alarm, with its state', async () => {
    const where =
      target.kind === 'local'
        ? ['--target', String(process.env[TARGET_ENV])]
        : // LocalStack's endpoint comes with the environment (AWS_ENDPOINT_URL), as for any SDK client.
          ['--aws'];
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [require.resolve('tsx/cli'), 'bin/orders.ts', 'metrics', ...where],
      { cwd: resolve(__dirname, '../../..'), env: process.env },
    );
    const printed = new Map(
      stdout
        .split('\n')
        .map((line) => line.trim().split(/\s+/))
        .map(([name, state]) => [name, state] as const),
    );
    const deadLetterAlarms = (await appAlarms())
      .map((alarm) => alarm.AlarmName ?? '')
      .filter((name) => name.startsWith(alarmName(DEAD_LETTER_QUEUE_ALARM.name)));
    expect(deadLetterAlarms.length).toBeGreaterThan(0);
    for (const name of [...ORDER_ALARMS.map((alarm) => alarmName(alarm.name)), ...deadLetterAlarms]) {
      expect([name, STATES.includes(printed.get(name) ?? '')]).toEqual([name, true]);
    }
  });
});

describe('a dead-letter queue fills', () => {
  let cleanUp: (() => Promise<unknown>) | undefined;
  afterAll(async () => {
    await cleanUp?.();
  });

  // Concurrent with the supervisor's scenario: they watch different alarms, and side by side they
  // wait out their alarms' periods together.
  it.concurrent(
    "fires the queue's alarm (ALARM in the inbox), and clears it when the message is taken out (OK)",
    async () => {
      // The app's dead-letter queues are the ones its depth alarms name (one each); the first one
      // that is empty now, so the message sent is the only one there.
      const candidates = (await appAlarms())
        .filter(
          (alarm) =>
            alarm.Namespace === SQS_METRICS_NAMESPACE &&
            alarm.MetricName === DEAD_LETTER_QUEUE_ALARM.metric &&
            alarm.AlarmName?.startsWith(alarmName(DEAD_LETTER_QUEUE_ALARM.name)),
        )
        .sort((left, right) => (left.AlarmName ?? '').localeCompare(right.AlarmName ?? ''));
      let chosen: { alarm: MetricAlarm; queueName: string; queueUrl: string } | undefined;
      for (const alarm of candidates) {
        const queueName = alarm.Dimensions?.find(({ Name }) => Name === SQS_QUEUE_DIMENSION)?.Value ?? '';
        const { QueueUrl: queueUrl = '' } = await sqs.send(new GetQueueUrlCommand({ QueueName: queueName }));
        const { Attributes = {} } = await sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: queueUrl,
            AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
          }),
        );
        if (
          Attributes.ApproximateNumberOfMessages === '0' &&
          Attributes.ApproximateNumberOfMessagesNotVisible === '0'
        ) {
          chosen = { alarm, queueName, queueUrl };
          break;
        }
      }
      if (!chosen) throw new Error(`No empty dead-letter queue among ${candidates.length} alarmed ones`);
      const { alarm, queueName, queueUrl } = chosen;
      // An empty queue's alarm is OK once a period has been evaluated (a new deployment starts
      // INSUFFICIENT_DATA).
      const since = await untilState(alarm, AlarmState.Ok, stateChangeBoundMs(alarm, AlarmState.Ok));

      const marker = `alarms-acceptance-${Date.now()}`;
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: JSON.stringify({ test: marker }),
          ...(queueName.endsWith('.fifo') ? { MessageGroupId: marker, MessageDeduplicationId: marker } : {}),
        }),
      );
      const takeOurs = () =>
        takeMatching(sqs, target, queueUrl, (body) => body.includes(marker), 1).then((taken) => taken.length);
      cleanUp = takeOurs;

      const fired = await notification(
        alarm,
        AlarmState.Alarm,
        since,
        stateChangeBoundMs(alarm, AlarmState.Alarm),
      );
      expect(fired).toMatchObject({
        AlarmName: alarm.AlarmName,
        NewStateValue: AlarmState.Alarm,
        OldStateValue: AlarmState.Ok,
        Trigger: {
          Namespace: SQS_METRICS_NAMESPACE,
          MetricName: DEAD_LETTER_QUEUE_ALARM.metric,
          Dimensions: [{ name: SQS_QUEUE_DIMENSION, value: queueName }],
        },
      });

      const takenAt = Date.parse(fired.StateChangeTime);
      expect(await takeOurs()).toBe(1);
      cleanUp = undefined;
      const cleared = await notification(
        alarm,
        AlarmState.Ok,
        takenAt,
        stateChangeBoundMs(alarm, AlarmState.Ok),
      );
      expect(cleared).toMatchObject({ NewStateValue: AlarmState.Ok, OldStateValue: AlarmState.Alarm });
    },
    SCENARIO_TIMEOUT_MS,
  );
});

describe('the supervisor stops', () => {
  /** Set while the rule is disabled: the `finally` enables it; afterAll too if the test was cut short. */
  let disabled: Rule | undefined;
  const enable = async () => {
    if (!disabled) return;
    await eventBridge.send(
      new EnableRuleCommand({ Name: disabled.Name, EventBusName: disabled.EventBusName }),
    );
    disabled = undefined;
  };
  afterAll(enable);

  /**
   * The supervisor's schedule: among the app's schedule rules (named `<stack>-...`), the one whose
   * target is the supervisor function (named `<stack>-Supervisor...`).
   */
  async function supervisorRule(): Promise<Rule> {
    const rules: Rule[] = [];
    let token: string | undefined;
    do {
      const page = await eventBridge.send(
        new ListRulesCommand({ NamePrefix: `${ORDERS_APP.stackName}-`, NextToken: token }),
      );
      rules.push(...(page.Rules ?? []));
      token = page.NextToken;
    } while (token);
    const found: Rule[] = [];
    for (const rule of rules.filter(({ ScheduleExpression }) => ScheduleExpression)) {
      const { Targets = [] } = await eventBridge.send(
        new ListTargetsByRuleCommand({ Rule: rule.Name, EventBusName: rule.EventBusName }),
      );
      const functionNames = Targets.map(({ Arn = '' }) => Arn.split(':function:')[1] ?? '');
      if (functionNames.some((name) => name.startsWith(`${ORDERS_APP.stackName}-Supervisor`)))
        found.push(rule);
    }
    if (found.length !== 1) {
      throw new Error(
        `Expected one schedule rule targeting the supervisor, found ${found.map(({ Name }) => Name).join(', ') || 'none'} among ${rules.length} rules`,
      );
    }
    return found[0] as Rule;
  }

  it.concurrent(
    'fires SupervisorNotRunning while its schedule is disabled, and clears it once enabled again',
    async () => {
      const spec = ORDER_ALARMS.find((candidate) => candidate.metric === OrderMetric.SupervisorSweeps);
      const alarm = await describeAlarm(alarmName(spec?.name ?? ''));
      const rule = await supervisorRule();
      // A run under way when the rule is disabled goes on sweeping until it ends (at most its rate);
      // enabled again, the next run starts at the rule's next tick (at most its rate).
      const rate = rateMillis(rule.ScheduleExpression);
      const since = await untilState(alarm, AlarmState.Ok, rate + stateChangeBoundMs(alarm, AlarmState.Ok));

      disabled = rule;
      let firedAt = since;
      try {
        await eventBridge.send(new DisableRuleCommand({ Name: rule.Name, EventBusName: rule.EventBusName }));
        const fired = await notification(
          alarm,
          AlarmState.Alarm,
          since,
          rate + stateChangeBoundMs(alarm, AlarmState.Alarm),
        );
        expect(fired).toMatchObject({
          AlarmName: alarm.AlarmName,
          NewStateValue: AlarmState.Alarm,
          OldStateValue: AlarmState.Ok,
          Trigger: { MetricName: OrderMetric.SupervisorSweeps },
        });
        firedAt = Date.parse(fired.StateChangeTime);
      } finally {
        await enable();
      }
      const cleared = await notification(
        alarm,
        AlarmState.Ok,
        firedAt,
        rate + stateChangeBoundMs(alarm, AlarmState.Ok),
      );
      expect(cleared).toMatchObject({ NewStateValue: AlarmState.Ok, OldStateValue: AlarmState.Alarm });
    },
    SCENARIO_TIMEOUT_MS,
  );
});
