/**
 * Running alarms over the metric store with an injected clock: the evaluation range is the complete
 * periods before now, aligned to the clock; every alarm starts INSUFFICIENT_DATA; actions run on a
 * state change only (alarm actions on ALARM, OK actions on OK), SetAlarmState included, with the
 * message and subject CloudWatch publishes to SNS; disabled actions do not run.
 */
import {
  type AlarmDefinition,
  type AlarmNotification,
  LocalAlarms,
} from '../../../../lib/local-runtime/cloudwatch/alarms';
import { MetricStore } from '../../../../lib/local-runtime/cloudwatch/metrics';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const TOPIC = 'arn:aws:sns:us-east-1:000000000000:operator';

const definition = (overrides: Partial<AlarmDefinition> = {}): AlarmDefinition => ({
  alarmName: 'errors',
  alarmArn: 'arn:aws:cloudwatch:us-east-1:000000000000:alarm:errors',
  alarmDescription: 'Orders fail',
  metric: { namespace: 'App', metricName: 'Errors', dimensions: { service: 'orders' } },
  statistic: 'Sum',
  periodSeconds: 10,
  evaluationPeriods: 3,
  datapointsToAlarm: 2,
  threshold: 1,
  comparisonOperator: 'GreaterThanOrEqualToThreshold',
  treatMissingData: 'notBreaching',
  actionsEnabled: true,
  alarmActions: [TOPIC],
  okActions: [TOPIC],
  insufficientDataActions: [],
  ...overrides,
});

function world(overrides: Partial<AlarmDefinition> = {}) {
  let now = T0;
  const store = new MetricStore({ clock: () => now });
  const sent: AlarmNotification[] = [];
  const alarms = new LocalAlarms({
    store,
    region: 'us-east-1',
    accountId: '000000000000',
    clock: () => now,
    act: async (notification) => {
      sent.push(notification);
    },
    onProblem: (message) => {
      throw new Error(message);
    },
  });
  alarms.add(definition(overrides));
  const errors = (atMillis: number, value: number) =>
    store.put({
      ...definition().metric,
      unit: 'Count',
      storageResolution: 60,
      values: [value],
      timestamp: atMillis,
    });
  return {
    alarms,
    sent,
    errors,
    at: (millis: number) => {
      now = millis;
    },
    state: () => alarms.list()[0]?.status.state,
  };
}

describe('local alarms', () => {
  it('start INSUFFICIENT_DATA, and evaluate the complete periods before now, aligned to the clock', () => {
    const { alarms, errors, at, state } = world();
    expect(state()).toBe('INSUFFICIENT_DATA');
    errors(T0 + 1_000, 1);
    errors(T0 + 25_000, 3);
    at(T0 + 35_500);
    expect(
      alarms.rangeAt(definition(), T0 + 35_500).map((point) => [point.timestamp - T0, point.value]),
    ).toEqual([
      [-20_000, undefined],
      [-10_000, undefined],
      [0, 1],
      [10_000, undefined],
      [20_000, 3],
    ]);
    // The period now running (30 s..40 s) is not in the range yet.
    errors(T0 + 31_000, 9);
    expect(alarms.evaluate('errors')?.state).toBe('ALARM');
  });

  it('runs the alarm actions on ALARM and the OK actions on OK, once per change, with CloudWatch’s message', () => {
    const { alarms, sent, errors, at } = world();
    errors(T0 + 5_000, 2);
    errors(T0 + 15_000, 2);
    at(T0 + 30_000);
    alarms.evaluate('errors');
    at(T0 + 40_000);
    alarms.evaluate('errors');
    expect(sent).toHaveLength(1);
    expect(sent[0]?.actionArn).toBe(TOPIC);
    expect(sent[0]?.subject).toBe('ALARM: "errors" in US East (N. Virginia)');
    expect(JSON.parse(sent[0]?.message ?? '')).toEqual({
      AlarmName: 'errors',
      AlarmDescription: 'Orders fail',
      AWSAccountId: '000000000000',
      AlarmConfigurationUpdatedTimestamp: '2026-01-01T12:00:00.000+0000',
      NewStateValue: 'ALARM',
      NewStateReason:
        'Threshold Crossed: 2 out of the last 2 datapoints [2.0 (01/01/26 12:00:10), 2.0 (01/01/26 12:00:00)] were ' +
        'greater than or equal to the threshold (1.0) and 1 missing datapoint was treated as [NonBreaching] ' +
        '(minimum 2 datapoints for OK -> ALARM transition).',
      StateChangeTime: '2026-01-01T12:00:30.000+0000',
      Region: 'US East (N. Virginia)',
      AlarmArn: 'arn:aws:cloudwatch:us-east-1:000000000000:alarm:errors',
      OldStateValue: 'INSUFFICIENT_DATA',
      OKActions: [TOPIC],
      AlarmActions: [TOPIC],
      InsufficientDataActions: [],
      Trigger: {
        MetricName: 'Errors',
        Namespace: 'App',
        StatisticType: 'Statistic',
        Statistic: 'SUM',
        Unit: null,
        Dimensions: [{ value: 'orders', name: 'service' }],
        Period: 10,
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Threshold: 1,
        TreatMissingData: '- TreatMissingData:                    notBreaching',
        EvaluateLowSampleCountPercentile: '',
      },
    });
    at(T0 + 60_000);
    expect(alarms.evaluate('errors')?.state).toBe('OK');
    expect(sent.map(({ subject }) => subject)).toEqual([
      'ALARM: "errors" in US East (N. Virginia)',
      'OK: "errors" in US East (N. Virginia)',
    ]);
  });

  it('SetAlarmState changes the state until the next evaluation, running the actions of the change', () => {
    const { alarms, sent, at, state } = world();
    at(T0 + 10_000);
    expect(alarms.setState('errors', 'ALARM', 'drill')).toBe(true);
    expect(alarms.list()[0]?.status).toMatchObject({ state: 'ALARM', reason: 'drill' });
    expect(sent).toHaveLength(1);
    alarms.evaluate('errors');
    expect(state()).toBe('OK');
    expect(sent).toHaveLength(2);
    expect(alarms.setState('nope', 'OK', 'x')).toBe(false);
  });

  it('runs no action when actions are disabled', () => {
    const { alarms, sent, errors, at, state } = world({
      actionsEnabled: false,
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
    });
    errors(T0 + 1_000, 5);
    at(T0 + 10_000);
    alarms.evaluate('errors');
    expect(state()).toBe('ALARM');
    expect(sent).toEqual([]);
  });
});
