/**
 * The shape of an alarm as a wing's metric contract declares it: a single metric, a statistic, a
 * threshold and what missing data means, plus the words an operator reads when it fires. The
 * platform's alarm construct (lib/platform/alarms.ts) turns one into an `AWS::CloudWatch::Alarm`;
 * nothing else is expressible on purpose (no metric math, composite or anomaly alarms), so every
 * alarm can also be evaluated by the local runtime.
 */

/**
 * What every alarm name of a stack starts with (`<stack name>-`): the alarms are named so by the
 * platform's alarm construct, an operator console is granted `cloudwatch:DescribeAlarms` on it and
 * lists by it, and each CLI's `metrics` lists its own stack's alarms by it.
 */
export function alarmNamePrefix(stackName: string): string {
  return `${stackName}-`;
}

/** CloudWatch statistics an alarm may use. */
export type AlarmStatistic = 'Sum' | 'Average' | 'Minimum' | 'Maximum' | 'SampleCount';

/** CloudWatch comparison operators an alarm may use (no anomaly-band operators). */
export type AlarmComparison =
  | 'GreaterThanOrEqualToThreshold'
  | 'GreaterThanThreshold'
  | 'LessThanThreshold'
  | 'LessThanOrEqualToThreshold';

/** CloudWatch's TreatMissingData values. */
export type AlarmMissingData = 'breaching' | 'notBreaching' | 'ignore' | 'missing';

/** The dimension Powertools Metrics adds to every metric: the function's service name. */
export const SERVICE_DIMENSION = 'service';

/** SQS's own metrics (namespace AWS/SQS, dimension QueueName) an alarm may read. */
export const SQS_METRICS_NAMESPACE = 'AWS/SQS';
export const SQS_QUEUE_DIMENSION = 'QueueName';
export const SqsMetric = {
  ApproximateNumberOfMessagesVisible: 'ApproximateNumberOfMessagesVisible',
  ApproximateAgeOfOldestMessage: 'ApproximateAgeOfOldestMessage',
} as const;
export type SqsMetric = (typeof SqsMetric)[keyof typeof SqsMetric];

/**
 * Fields of the JSON body CloudWatch sends an alarm action's SNS topic (and, raw, the alert inbox
 * subscribed to it) that readers rely on. `AlarmName` is what tells a notification from an
 * operator alert (an EventBridge event, which has no such field).
 */
export const AlarmNotificationField = {
  AlarmName: 'AlarmName',
  NewStateValue: 'NewStateValue',
  OldStateValue: 'OldStateValue',
} as const;

/** The state an alarm notification announces (NewStateValue). */
export const AlarmState = { Alarm: 'ALARM', Ok: 'OK', InsufficientData: 'INSUFFICIENT_DATA' } as const;
export type AlarmState = (typeof AlarmState)[keyof typeof AlarmState];

/**
 * One alarm. `Metric` is the metric name type: a wing's custom metric names (its namespace, no
 * dimension but the service) or SqsMetric (per queue).
 */
export interface AlarmSpec<Metric extends string = string> {
  /** The alarm's name after `<stack>-` (letters and digits). */
  readonly name: string;
  readonly metric: Metric;
  readonly statistic: AlarmStatistic;
  readonly comparison: AlarmComparison;
  readonly threshold: number;
  /**
   * The metric's dimensions: Powertools writes each metric with its function's `service`, and an
   * alarm sees only the exact dimension set it names.
   * @default - none
   */
  readonly dimensions?: Readonly<Record<string, string>>;
  /** Periods evaluated, and how many of them must breach. @default 1 of 1 */
  readonly evaluationPeriods?: number;
  readonly datapointsToAlarm?: number;
  readonly treatMissingData: AlarmMissingData;
  /** What happened, in the operator's words: the alarm description their notification carries. */
  readonly description: string;
  /** What the operator does about it (the alarm table of docs/operations.md, and the end of the description). */
  readonly action: string;
}

/** Alarm name suffixes: CloudWatch allows more, but these also name construct ids and widgets. */
export const ALARM_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9]{0,99}$/;
