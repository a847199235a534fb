/**
 * The runtime's metric alarms: each evaluated once per period, just after the period ends (periods
 * aligned to the clock), over the metric store; a state change runs the alarm's actions for the new
 * state with the notification body CloudWatch sends to SNS. Every alarm starts INSUFFICIENT_DATA.
 */
import { type ClockTimer, type RuntimeClock, WallClock } from '../clock';
import {
  type AlarmCriteria,
  type AlarmState,
  type Datapoint,
  type Evaluation,
  EXTRA_RANGE_PERIODS,
  evaluateAlarm,
} from './alarm-evaluation';
import { type MetricIdentity, type MetricStore, type Statistic, statisticOf } from './metrics';

export interface AlarmDefinition extends AlarmCriteria {
  readonly alarmName: string;
  readonly alarmArn: string;
  readonly alarmDescription?: string;
  readonly metric: MetricIdentity;
  readonly statistic: Statistic;
  readonly unit?: string;
  readonly periodSeconds: number;
  readonly actionsEnabled: boolean;
  readonly alarmActions: readonly string[];
  readonly okActions: readonly string[];
  readonly insufficientDataActions: readonly string[];
}

export interface AlarmStatus {
  readonly state: AlarmState;
  readonly reason: string;
  readonly reasonData?: string;
  /** When the state or its reason was last set (epoch millis). */
  readonly updatedAt: number;
  /** When the state last changed. */
  readonly transitionedAt: number;
}

export interface AlarmNotification {
  readonly actionArn: string;
  /** The alarm's ARN: CloudWatch publishes on its behalf (aws:SourceArn). */
  readonly alarmArn: string;
  readonly subject: string;
  readonly message: string;
}

/** How long after a period ends it is evaluated, by default. */
export const ALARM_SETTLE_MILLIS = 1000;

export interface LocalAlarmsOptions {
  readonly store: MetricStore;
  readonly region: string;
  readonly accountId: string;
  /** Runs one action (an SNS publish); a rejection is reported, never retried. */
  readonly act: (notification: AlarmNotification) => Promise<void>;
  readonly onProblem: (message: string) => void;
  /**
   * The runtime's clock (evaluation timers and now), or only a source of now (tests; timers then on
   * the wall clock). @default - the wall clock
   */
  readonly clock?: RuntimeClock | (() => number);
  /**
   * How long after a period ends it is evaluated, so values written at its very end are in.
   * @default ALARM_SETTLE_MILLIS
   */
  readonly settleMillis?: number;
}

interface RunningAlarm {
  readonly definition: AlarmDefinition;
  readonly createdAt: number;
  status: AlarmStatus;
  timer?: ClockTimer;
}

export class LocalAlarms {
  private readonly alarms = new Map<string, RunningAlarm>();
  private readonly clock: () => number;
  private readonly timers: RuntimeClock;
  private started = false;
  private readonly pendingActions = new Set<Promise<void>>();

  constructor(private readonly options: LocalAlarmsOptions) {
    const given = options.clock;
    this.timers = given && typeof given !== 'function' ? given : new WallClock();
    this.clock = typeof given === 'function' ? given : () => this.timers.now();
  }

  add(definition: AlarmDefinition): void {
    if (this.alarms.has(definition.alarmName)) {
      throw new Error(`Alarm ${definition.alarmName} is defined twice`);
    }
    const now = this.clock();
    const rangeMillis =
      (definition.evaluationPeriods + EXTRA_RANGE_PERIODS) * definition.periodSeconds * 1000;
    this.options.store.retainAtLeast(rangeMillis);
    const alarm: RunningAlarm = {
      definition,
      createdAt: now,
      status: {
        state: 'INSUFFICIENT_DATA',
        reason: 'Unchecked: Initial alarm creation',
        updatedAt: now,
        transitionedAt: now,
      },
    };
    this.alarms.set(definition.alarmName, alarm);
    if (this.started) this.schedule(alarm);
  }

  /** Every alarm, in name order, with its state. */
  list(): ReadonlyArray<{
    readonly definition: AlarmDefinition;
    readonly status: AlarmStatus;
    /** When the alarm was set up (its configuration's timestamp). */
    readonly createdAt: number;
  }> {
    return [...this.alarms.values()]
      .sort((left, right) => left.definition.alarmName.localeCompare(right.definition.alarmName))
      .map(({ definition, status, createdAt }) => ({ definition, status, createdAt }));
  }

  has(alarmName: string): boolean {
    return this.alarms.has(alarmName);
  }

  /** Evaluation timers start (each alarm at the end of its current period). */
  start(): void {
    this.started = true;
    for (const alarm of this.alarms.values()) this.schedule(alarm);
  }

  async stop(): Promise<void> {
    this.started = false;
    for (const alarm of this.alarms.values()) alarm.timer?.cancel();
    await Promise.allSettled([...this.pendingActions]);
  }

  /**
   * SetAlarmState: the state holds until the next evaluation; a change runs its actions, as
   * CloudWatch does.
   */
  setState(alarmName: string, state: AlarmState, reason: string, reasonData?: string): boolean {
    const alarm = this.alarms.get(alarmName);
    if (!alarm) return false;
    this.transition(alarm, state, reason, reasonData);
    return true;
  }

  /** The evaluation range of the alarm at `now`: the complete periods before now, oldest first. */
  rangeAt(definition: AlarmDefinition, now: number): Datapoint[] {
    const periodMillis = definition.periodSeconds * 1000;
    const end = Math.floor(now / periodMillis) * periodMillis;
    const count = definition.evaluationPeriods + EXTRA_RANGE_PERIODS;
    const start = end - count * periodMillis;
    const byStart = new Map(
      this.options.store
        .aggregates(definition.metric, {
          start,
          end,
          periodSeconds: definition.periodSeconds,
          ...(definition.unit === undefined ? {} : { unit: definition.unit }),
        })
        .map(({ timestamp, aggregate }) => [timestamp, statisticOf(aggregate, definition.statistic)]),
    );
    return Array.from({ length: count }, (_, index) => {
      const timestamp = start + index * periodMillis;
      const value = byStart.get(timestamp);
      return value === undefined ? { timestamp } : { timestamp, value };
    });
  }

  /** One evaluation of one alarm now (the timers call it; tests may too). */
  evaluate(alarmName: string): Evaluation | undefined {
    const alarm = this.alarms.get(alarmName);
    if (!alarm) return undefined;
    const now = this.clock();
    const evaluation = evaluateAlarm(
      alarm.definition,
      this.rangeAt(alarm.definition, now),
      alarm.status.state,
    );
    this.transition(
      alarm,
      evaluation.state,
      evaluation.reason,
      reasonData(alarm.definition, evaluation, now),
    );
    return evaluation;
  }

  private schedule(alarm: RunningAlarm): void {
    const periodMillis = alarm.definition.periodSeconds * 1000;
    const now = this.clock();
    const nextEnd = (Math.floor(now / periodMillis) + 1) * periodMillis;
    alarm.timer = this.timers.setTimer(
      () => {
        if (!this.started) return;
        try {
          this.evaluate(alarm.definition.alarmName);
        } catch (error) {
          this.options.onProblem(`alarm ${alarm.definition.alarmName}: ${(error as Error).message}`);
        }
        this.schedule(alarm);
      },
      nextEnd - now + (this.options.settleMillis ?? ALARM_SETTLE_MILLIS),
    );
  }

  private transition(alarm: RunningAlarm, state: AlarmState, reason: string, data?: string): void {
    const now = this.clock();
    const old = alarm.status;
    alarm.status = {
      state,
      reason,
      ...(data === undefined ? {} : { reasonData: data }),
      updatedAt: now,
      transitionedAt: state === old.state ? old.transitionedAt : now,
    };
    if (state === old.state) return;
    const { definition } = alarm;
    if (!definition.actionsEnabled) return;
    const actions =
      state === 'ALARM'
        ? definition.alarmActions
        : state === 'OK'
          ? definition.okActions
          : definition.insufficientDataActions;
    if (actions.length === 0) return;
    const body = notificationBody(definition, alarm.createdAt, old.state, alarm.status, this.options);
    const subject = notificationSubject(definition.alarmName, state, this.options.region);
    for (const actionArn of actions) {
      const pending = this.options
        .act({ actionArn, alarmArn: definition.alarmArn, subject, message: body })
        .catch((error: Error) =>
          this.options.onProblem(
            `alarm ${definition.alarmName}: action ${actionArn} failed: ${error.message}`,
          ),
        )
        .finally(() => this.pendingActions.delete(pending));
      this.pendingActions.add(pending);
    }
  }
}

function reasonData(definition: AlarmDefinition, evaluation: Evaluation, now: number): string {
  return JSON.stringify({
    version: '1.0',
    queryDate: isoWithOffset(now),
    statistic: definition.statistic,
    period: definition.periodSeconds,
    recentDatapoints: evaluation.evaluated.map((point) => point.value),
    threshold: definition.threshold,
    evaluatedDatapoints: evaluation.evaluated.map((point) => ({
      timestamp: isoWithOffset(point.timestamp),
      value: point.value,
    })),
  });
}

/** CloudWatch's timestamp format in alarm notifications: 2021-04-30T06:09:31.429+0000. */
export function isoWithOffset(epochMillis: number): string {
  return new Date(epochMillis).toISOString().replace('Z', '+0000');
}

/** The names the CloudWatch console and notifications give regions. */
const REGION_NAMES: Readonly<Record<string, string>> = {
  'us-east-1': 'US East (N. Virginia)',
  'us-east-2': 'US East (Ohio)',
  'us-west-1': 'US West (N. California)',
  'us-west-2': 'US West (Oregon)',
  'eu-west-1': 'EU (Ireland)',
  'eu-west-2': 'EU (London)',
  'eu-west-3': 'EU (Paris)',
  'eu-central-1': 'EU (Frankfurt)',
  'eu-north-1': 'EU (Stockholm)',
  'ap-southeast-1': 'Asia Pacific (Singapore)',
  'ap-southeast-2': 'Asia Pacific (Sydney)',
  'ap-northeast-1': 'Asia Pacific (Tokyo)',
};

export function regionName(region: string): string {
  return REGION_NAMES[region] ?? region;
}

export function notificationSubject(alarmName: string, state: AlarmState, region: string): string {
  // SNS limits subjects to 100 characters; CloudWatch shortens long alarm names to fit.
  return `${state}: "${alarmName}" in ${regionName(region)}`.slice(0, 100);
}

/** The JSON message CloudWatch publishes to an SNS topic action on a state change. */
export function notificationBody(
  definition: AlarmDefinition,
  configuredAt: number,
  oldState: AlarmState,
  status: AlarmStatus,
  where: { readonly region: string; readonly accountId: string },
): string {
  return JSON.stringify({
    AlarmName: definition.alarmName,
    AlarmDescription: definition.alarmDescription ?? null,
    AWSAccountId: where.accountId,
    AlarmConfigurationUpdatedTimestamp: isoWithOffset(configuredAt),
    NewStateValue: status.state,
    NewStateReason: status.reason,
    StateChangeTime: isoWithOffset(status.transitionedAt),
    Region: regionName(where.region),
    AlarmArn: definition.alarmArn,
    OldStateValue: oldState,
    OKActions: definition.okActions,
    AlarmActions: definition.alarmActions,
    InsufficientDataActions: definition.insufficientDataActions,
    Trigger: {
      MetricName: definition.metric.metricName,
      Namespace: definition.metric.namespace,
      StatisticType: 'Statistic',
      Statistic: definition.statistic.toUpperCase().replace('SAMPLECOUNT', 'SAMPLE_COUNT'),
      Unit: definition.unit ?? null,
      Dimensions: Object.entries(definition.metric.dimensions).map(([name, value]) => ({ value, name })),
      Period: definition.periodSeconds,
      EvaluationPeriods: definition.evaluationPeriods,
      DatapointsToAlarm: definition.datapointsToAlarm,
      ComparisonOperator: definition.comparisonOperator,
      Threshold: definition.threshold,
      // Verbatim as CloudWatch writes it (a label, padding, then the value).
      TreatMissingData: `- TreatMissingData:                    ${definition.treatMissingData}`,
      EvaluateLowSampleCountPercentile: '',
    },
  });
}
