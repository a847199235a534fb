/**
 * The alarms of the metric contract cannot drift from the handlers: every alarmed custom metric is
 * counted by the runtime code (through `OrderMetric.<name>`, the only way the metric-names test
 * allows), alarm names are unique and usable, and the timing-derived thresholds are what the
 * profiles' numbers make them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  AlertType,
  compensationStuckAfterSeconds,
  DEAD_LETTER_QUEUE_ALARM,
  inFlightAgeLimitSeconds,
  ORDER_ALARMS,
  ORDER_STEPS,
  OrderMetric,
  RoleServiceName,
  resolveOrderAlarms,
  supervisorSilencePeriods,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { ALARM_NAME_PATTERN } from '../../../lambdas/shared/alarm-spec';
import { SAS_PROFILES } from '../../../lib/scheduler-agent-supervisor/config';

const WING = join(__dirname, '../../../lambdas/scheduler-agent-supervisor');

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The wing's runtime code that can emit metrics: everything but its contracts. */
const runtime = sources(WING)
  .filter((path) => !relative(WING, path).startsWith('contracts/'))
  .map((path) => ({ name: relative(WING, path), text: readFileSync(path, 'utf8') }));

describe('the alarm contract', () => {
  it('reads the handlers, adapters and domain', () => {
    const names = runtime.map((file) => file.name);
    expect(names).toEqual(expect.arrayContaining(['handlers/supervisor.ts', 'domain/flow-metrics.ts']));
  });

  it.each(ORDER_ALARMS.map((alarm) => [alarm.name, alarm.metric] as const))(
    '%s: its metric %s is emitted by the runtime code',
    (_name, metric) => {
      const key = Object.entries(OrderMetric).find(([, value]) => value === metric)?.[0];
      expect(key).toBeDefined();
      const emitters = runtime.filter((file) => new RegExp(`OrderMetric\\.${key}\\b`).test(file.text));
      expect(emitters.map((file) => file.name)).not.toEqual([]);
    },
  );

  it('the dashboard metrics are emitted too', () => {
    for (const key of [
      'OrdersAccepted',
      'OrdersProcessed',
      'OrdersFailed',
      'OrdersCompensated',
      'OrdersInFlight',
      'RecoveryTimeSeconds',
    ]) {
      expect(runtime.some((file) => new RegExp(`OrderMetric\\.${key}\\b`).test(file.text))).toBe(true);
    }
  });

  it('names every alarm once, with a name CloudWatch and the constructs accept', () => {
    const names = [...ORDER_ALARMS.map((alarm) => alarm.name), DEAD_LETTER_QUEUE_ALARM.name];
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(ALARM_NAME_PATTERN);
  });

  it('gives each alarm the words an operator reads, and at most as many breaching points as periods', () => {
    const resolved = [10, 60].flatMap((periodSeconds) =>
      resolveOrderAlarms({ timings: SAS_PROFILES.default.timings, stepCount: 3, periodSeconds }),
    );
    for (const alarm of [...resolved, DEAD_LETTER_QUEUE_ALARM]) {
      expect(alarm.description.length).toBeGreaterThan(20);
      expect(alarm.action.length).toBeGreaterThan(20);
      const periods = 'evaluationPeriods' in alarm ? (alarm.evaluationPeriods ?? 1) : 1;
      const points = 'datapointsToAlarm' in alarm ? (alarm.datapointsToAlarm ?? periods) : periods;
      expect(points).toBeLessThanOrEqual(periods);
    }
  });

  it('treats a silent supervisor as not running', () => {
    const alarm = ORDER_ALARMS.find((a) => a.metric === OrderMetric.SupervisorSweeps);
    expect(alarm).toMatchObject({
      statistic: 'Sum',
      comparison: 'LessThanThreshold',
      threshold: 1,
      treatMissingData: 'breaching',
    });
  });

  it('alarms on the rate of conflicting resubmissions, which raise no alert of their own', () => {
    expect(ORDER_ALARMS.some((a) => a.metric === OrderMetric.SubmissionConflicts)).toBe(true);
    expect(Object.values(AlertType)).not.toContain('SubmissionConflict');
  });

  it('derives the timing thresholds from the profile', () => {
    const local = SAS_PROFILES.local.timings;
    // 3 attempts of (5 s grace + 3 steps x (6 + 2) s) + back-offs 1 + 3 s, then the same for 3 compensations.
    expect(inFlightAgeLimitSeconds(local, 3)).toBe(3 * 29 + 4 + 3 * 29 + 4);
    expect(compensationStuckAfterSeconds(local)).toBe(2 * (3 + 5 + 6 + 2));
    const resolved = resolveOrderAlarms({ timings: local, stepCount: ORDER_STEPS.length, periodSeconds: 10 });
    const oldest = resolved.find((a) => a.metric === OrderMetric.OldestInFlightAgeSeconds);
    expect(oldest?.threshold).toBe(inFlightAgeLimitSeconds(local, ORDER_STEPS.length));
    const byDefault = SAS_PROFILES.default.timings;
    expect(inFlightAgeLimitSeconds(byDefault, 3)).toBeGreaterThan(3600);
  });

  it("derives SupervisorNotRunning's silent periods from the sweep interval: two intervals and one period, never under 3", () => {
    const notRunning = (rateSeconds: number, periodSeconds: number) =>
      resolveOrderAlarms({
        timings: { ...SAS_PROFILES.default.timings, supervisorRateSeconds: rateSeconds },
        stepCount: 3,
        periodSeconds,
      }).find((alarm) => alarm.name === 'SupervisorNotRunning');
    // Deployed: a sweep a minute on 60 s periods, 3 silent minutes.
    expect(notRunning(60, 60)).toMatchObject({ evaluationPeriods: 3, datapointsToAlarm: 3 });
    expect(supervisorSilencePeriods({ supervisorRateSeconds: 60 }, 60)).toBe(3);
    // A minute's sweep on 10 s periods: 13 periods (130 s); 3 (30 s) were empty between healthy sweeps.
    expect(notRunning(60, 10)).toMatchObject({ evaluationPeriods: 13, datapointsToAlarm: 13 });
    expect(notRunning(300, 60)).toMatchObject({ evaluationPeriods: 11, datapointsToAlarm: 11 });
    for (const [rate, period] of [
      [60, 10],
      [60, 60],
      [45, 20],
      [300, 60],
      [1, 10],
    ] as const) {
      const { evaluationPeriods = 1 } = notRunning(rate, period) ?? {};
      // Never fires on a healthy gap: the window is at least two intervals long.
      expect(evaluationPeriods * period).toBeGreaterThanOrEqual(2 * rate);
    }
  });

  it('alarms AlertPublishFailures once per emitter: the outbox relay and its backstop', () => {
    const resolved = resolveOrderAlarms({
      timings: SAS_PROFILES.local.timings,
      stepCount: 3,
      periodSeconds: 10,
    });
    const services = resolved
      .filter((a) => a.metric === OrderMetric.AlertPublishFailures)
      .map((a) => a.dimensions?.service)
      .sort();
    expect(services).toEqual([RoleServiceName.StatusNotifier, RoleServiceName.Supervisor].sort());
    // Each emitter's code counts it: the relay in the status notifier, the backstop in the supervisor.
    const counts = (file: string) =>
      /OrderMetric\.AlertPublishFailures\b/.test(runtime.find((f) => f.name === file)?.text ?? '');
    expect(counts('adapters/status-notifier.ts')).toBe(true);
    expect(counts('handlers/supervisor.ts')).toBe(true);
  });

  it('puts each custom-metric alarm on the service dimension of the function that emits it', () => {
    const resolved = resolveOrderAlarms({
      timings: SAS_PROFILES.local.timings,
      stepCount: 3,
      periodSeconds: 10,
    });
    for (const alarm of resolved) {
      expect(Object.keys(alarm.dimensions ?? {})).toEqual(['service']);
    }
    expect(resolved.find((a) => a.metric === OrderMetric.SupervisorSweeps)?.dimensions).toEqual({
      service: 'supervisor',
    });
  });
});
