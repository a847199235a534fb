/**
 * The `metrics` commands of the CLIs: the current figures of a namespace's metrics and the state of every
 * alarm, read with the CloudWatch API, so it reads the local runtime (its CloudWatch endpoint in
 * target.json) and AWS (the standard credential chain) alike.
 */
import {
  type CloudWatchClient,
  DescribeAlarmsCommand,
  GetMetricDataCommand,
  ListMetricsCommand,
  type Metric,
  type MetricAlarm,
} from '@aws-sdk/client-cloudwatch';
import { formatTable } from './text-table';

export interface MetricsReportOptions {
  readonly namespace: string;
  /** The metric names to show (the metric contract's), each listed even when it has no data. */
  readonly metricNames: readonly string[];
  /** How far back the figures reach. @default 60 */
  readonly minutes?: number;
  /** Only alarms whose name starts with this. @default - every alarm */
  readonly alarmNamePrefix?: string;
  /** @default Date.now */
  readonly now?: () => number;
}

/** GetMetricData takes at most 500 queries a call. */
const QUERIES_PER_CALL = 500;

async function everyMetric(client: CloudWatchClient, namespace: string): Promise<Metric[]> {
  const metrics: Metric[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListMetricsCommand({ Namespace: namespace, NextToken: token }));
    metrics.push(...(page.Metrics ?? []));
    token = page.NextToken;
  } while (token);
  return metrics;
}

/** Every metric alarm (optionally those whose name starts with `prefix`), all pages. */
export async function everyAlarm(
  client: CloudWatchClient,
  prefix: string | undefined,
): Promise<MetricAlarm[]> {
  const alarms: MetricAlarm[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new DescribeAlarmsCommand({ AlarmNamePrefix: prefix, AlarmTypes: ['MetricAlarm'], NextToken: token }),
    );
    alarms.push(...(page.MetricAlarms ?? []));
    token = page.NextToken;
  } while (token);
  return alarms;
}

const dimensionText = (metric: Metric) =>
  (metric.Dimensions ?? [])
    .map(({ Name, Value }) => `${Name}=${Value}`)
    .sort()
    .join(',') || '-';

/** The report as text: one table of metrics (sum and samples over the window), one of alarms. */
export async function metricsReport(
  client: CloudWatchClient,
  options: MetricsReportOptions,
): Promise<string> {
  const minutes = options.minutes ?? 60;
  const end = options.now?.() ?? Date.now();
  const start = end - minutes * 60_000;
  const metrics = (await everyMetric(client, options.namespace))
    .filter((metric) => options.metricNames.includes(metric.MetricName ?? ''))
    .sort(
      (left, right) =>
        options.metricNames.indexOf(left.MetricName ?? '') -
          options.metricNames.indexOf(right.MetricName ?? '') ||
        dimensionText(left).localeCompare(dimensionText(right)),
    );
  // One period over the whole window: its Sum and SampleCount are the figures.
  const queries = metrics.flatMap((metric, index) =>
    (['Sum', 'SampleCount'] as const).map((stat) => ({
      Id: `${stat === 'Sum' ? 's' : 'n'}${index}`,
      MetricStat: { Metric: metric, Period: minutes * 60, Stat: stat },
    })),
  );
  const values = new Map<string, number>();
  for (let first = 0; first < queries.length; first += QUERIES_PER_CALL) {
    const { MetricDataResults = [] } = await client.send(
      new GetMetricDataCommand({
        MetricDataQueries: queries.slice(first, first + QUERIES_PER_CALL),
        StartTime: new Date(start),
        EndTime: new Date(end),
      }),
    );
    for (const result of MetricDataResults) {
      values.set(
        result.Id ?? '',
        (result.Values ?? []).reduce((sum, value) => sum + value, 0),
      );
    }
  }
  const shown = new Set(metrics.map((metric) => metric.MetricName));
  const metricRows = [
    ...metrics.map((metric, index) => [
      metric.MetricName ?? '',
      dimensionText(metric),
      String(values.get(`s${index}`) ?? 0),
      String(values.get(`n${index}`) ?? 0),
    ]),
    ...options.metricNames.filter((name) => !shown.has(name)).map((name) => [name, '-', '-', '-']),
  ];
  const alarms = await everyAlarm(client, options.alarmNamePrefix);
  const alarmRows = alarms.map((alarm) => [
    alarm.AlarmName ?? '',
    alarm.StateValue ?? '',
    alarm.StateUpdatedTimestamp?.toISOString() ?? '',
    alarm.StateReason ?? '',
  ]);
  return [
    `Metrics of ${options.namespace}, last ${minutes} min (- = no data)`,
    formatTable([['METRIC', 'DIMENSIONS', 'SUM', 'SAMPLES'], ...metricRows]),
    '',
    alarms.length === 0 ? 'No alarms.' : formatTable([['ALARM', 'STATE', 'SINCE', 'REASON'], ...alarmRows]),
  ].join('\n');
}
