/**
 * The CloudWatch operations the runtime serves: DescribeAlarms, SetAlarmState (tests drive alarms
 * with it), GetMetricData, GetMetricStatistics, ListMetrics and PutMetricData, over the metric
 * store and the alarms. Metric math, percentiles and alarm management (PutMetricAlarm...) are not
 * served: alarms come from the template.
 */
import type {
  DescribeAlarmsInput,
  GetMetricDataInput,
  GetMetricStatisticsInput,
  ListMetricsInput,
  PutMetricDataInput,
  SetAlarmStateInput,
} from '@aws-sdk/client-cloudwatch';
import { ALARM_STATES, type AlarmState } from './alarm-evaluation';
import type { AlarmDefinition, AlarmStatus, LocalAlarms } from './alarms';
import {
  type Aggregate,
  isStatistic,
  type MetricIdentity,
  type MetricStore,
  STATISTICS,
  statisticOf,
} from './metrics';
import {
  type CloudWatchBody,
  CloudWatchError,
  type CloudWatchOperation,
  timestampParameter,
  typedCloudWatchOperation,
} from './server';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function requiredString(input: CloudWatchBody, name: string): string {
  const value = input[name];
  if (typeof value !== 'string' || value === '') throw CloudWatchError.missingParameter(name);
  return value;
}

function dimensionsOf(value: unknown): Record<string, string> {
  const dimensions: Record<string, string> = {};
  for (const entry of list(value)) {
    if (!isRecord(entry) || typeof entry.Name !== 'string' || typeof entry.Value !== 'string') {
      throw CloudWatchError.invalidParameter('Each dimension needs a Name and a Value');
    }
    dimensions[entry.Name] = entry.Value;
  }
  return dimensions;
}

function metricOf(value: unknown): MetricIdentity {
  if (!isRecord(value)) throw CloudWatchError.missingParameter('Metric');
  return {
    namespace: requiredString(value, 'Namespace'),
    metricName: requiredString(value, 'MetricName'),
    dimensions: dimensionsOf(value.Dimensions),
  };
}

function dimensionList(dimensions: Readonly<Record<string, string>>): Array<{ Name: string; Value: string }> {
  return Object.entries(dimensions).map(([Name, Value]) => ({ Name, Value }));
}

function periodOf(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw CloudWatchError.invalidParameter('Period must be a positive whole number of seconds');
  }
  if (value >= 60 ? value % 60 !== 0 : ![1, 5, 10, 30].includes(value)) {
    throw CloudWatchError.invalidParameter('Period must be 1, 5, 10, 30 or a multiple of 60 seconds');
  }
  return value;
}

function describeAlarm(
  definition: AlarmDefinition,
  status: AlarmStatus,
  configuredAt: number,
): CloudWatchBody {
  return {
    AlarmName: definition.alarmName,
    AlarmArn: definition.alarmArn,
    AlarmDescription: definition.alarmDescription,
    AlarmConfigurationUpdatedTimestamp: new Date(configuredAt),
    ActionsEnabled: definition.actionsEnabled,
    OKActions: definition.okActions,
    AlarmActions: definition.alarmActions,
    InsufficientDataActions: definition.insufficientDataActions,
    StateValue: status.state,
    StateReason: status.reason,
    StateReasonData: status.reasonData,
    StateUpdatedTimestamp: new Date(status.updatedAt),
    StateTransitionedTimestamp: new Date(status.transitionedAt),
    MetricName: definition.metric.metricName,
    Namespace: definition.metric.namespace,
    Statistic: definition.statistic,
    Dimensions: dimensionList(definition.metric.dimensions),
    Period: definition.periodSeconds,
    Unit: definition.unit,
    EvaluationPeriods: definition.evaluationPeriods,
    DatapointsToAlarm: definition.datapointsToAlarm,
    Threshold: definition.threshold,
    ComparisonOperator: definition.comparisonOperator,
    TreatMissingData: definition.treatMissingData,
  };
}

// long-function: a table, one entry per CloudWatch action the runtime serves, each a few lines.
export function cloudWatchOperations(
  store: MetricStore,
  alarms: LocalAlarms,
): Record<string, CloudWatchOperation> {
  return {
    DescribeAlarms: typedCloudWatchOperation<DescribeAlarmsInput>((input) => {
      const names = list(input.AlarmNames).map(String);
      const prefix = typeof input.AlarmNamePrefix === 'string' ? input.AlarmNamePrefix : undefined;
      const state = input.StateValue;
      const actionPrefix = typeof input.ActionPrefix === 'string' ? input.ActionPrefix : undefined;
      const types = list(input.AlarmTypes).map(String);
      const wantsMetricAlarms = types.length === 0 || types.includes('MetricAlarm');
      const matching = alarms
        .list()
        .filter(
          ({ definition, status }) =>
            wantsMetricAlarms &&
            (names.length === 0 || names.includes(definition.alarmName)) &&
            (prefix === undefined || definition.alarmName.startsWith(prefix)) &&
            (state === undefined || state === status.state) &&
            (actionPrefix === undefined ||
              [
                ...definition.alarmActions,
                ...definition.okActions,
                ...definition.insufficientDataActions,
              ].some((action) => action.startsWith(actionPrefix))),
        );
      const first = input.NextToken === undefined ? 0 : Number(input.NextToken);
      if (!Number.isInteger(first) || first < 0 || first > matching.length) {
        throw new CloudWatchError('InvalidNextToken', 'InvalidNextToken', 'The NextToken is not valid');
      }
      const max = typeof input.MaxRecords === 'number' ? input.MaxRecords : 50;
      const page = matching.slice(first, first + max);
      return {
        MetricAlarms: page.map(({ definition, status, createdAt }) =>
          describeAlarm(definition, status, createdAt),
        ),
        CompositeAlarms: [],
        NextToken: first + max < matching.length ? String(first + max) : undefined,
      };
    }),

    SetAlarmState: typedCloudWatchOperation<SetAlarmStateInput>((input) => {
      const name = requiredString(input, 'AlarmName');
      const state = requiredString(input, 'StateValue');
      const reason = requiredString(input, 'StateReason');
      if (!ALARM_STATES.includes(state as AlarmState)) {
        throw CloudWatchError.invalidParameter(`StateValue must be one of ${ALARM_STATES.join(', ')}`);
      }
      const data = typeof input.StateReasonData === 'string' ? input.StateReasonData : undefined;
      if (data !== undefined) {
        try {
          JSON.parse(data);
        } catch {
          throw CloudWatchError.invalidParameter('StateReasonData is not JSON');
        }
      }
      if (!alarms.setState(name, state as AlarmState, reason, data)) {
        throw CloudWatchError.notFound(`Alarm ${name} not found`);
      }
      return {};
    }),

    GetMetricData: typedCloudWatchOperation<GetMetricDataInput>((input) => {
      const start = timestampParameter(input, 'StartTime') as number;
      const end = timestampParameter(input, 'EndTime') as number;
      const ascending = input.ScanBy === 'TimestampAscending';
      const queries = list(input.MetricDataQueries);
      if (queries.length === 0) throw CloudWatchError.missingParameter('MetricDataQueries');
      const results = queries.filter(isRecord).flatMap((query) => {
        const id = requiredString(query, 'Id');
        if (query.ReturnData === false) return [];
        if (!isRecord(query.MetricStat)) {
          return [
            {
              Id: id,
              Label: typeof query.Label === 'string' ? query.Label : id,
              Timestamps: [],
              Values: [],
              StatusCode: 'InternalError',
              Messages: [
                {
                  Code: 'NotSupportedLocally',
                  Value: 'metric math expressions are not evaluated by the local runtime',
                },
              ],
            },
          ];
        }
        const stat = query.MetricStat.Stat;
        if (!isStatistic(stat)) {
          throw CloudWatchError.invalidParameter(
            `Stat ${String(stat)} is not served locally (served: ${STATISTICS.join(', ')})`,
          );
        }
        const metric = metricOf(query.MetricStat.Metric);
        const unit = typeof query.MetricStat.Unit === 'string' ? query.MetricStat.Unit : undefined;
        const periods = store.aggregates(metric, {
          start,
          end,
          origin: queryOrigin(start),
          periodSeconds: periodOf(query.MetricStat.Period),
          ...(unit === undefined ? {} : { unit }),
        });
        if (!ascending) periods.reverse();
        return [
          {
            Id: id,
            Label: typeof query.Label === 'string' ? query.Label : metric.metricName,
            Timestamps: periods.map(({ timestamp }) => new Date(timestamp)),
            Values: periods.map(({ aggregate }) => statisticOf(aggregate, stat)),
            StatusCode: 'Complete',
          },
        ];
      });
      return { MetricDataResults: results, Messages: [] };
    }),

    GetMetricStatistics: typedCloudWatchOperation<GetMetricStatisticsInput>((input) => {
      const metric = metricOf(input);
      const statistics = list(input.Statistics);
      if (list(input.ExtendedStatistics).length > 0) {
        throw CloudWatchError.invalidParameter('ExtendedStatistics (percentiles) are not served locally');
      }
      if (statistics.length === 0) throw CloudWatchError.missingParameter('Statistics');
      for (const statistic of statistics) {
        if (!isStatistic(statistic))
          throw CloudWatchError.invalidParameter(`Unknown statistic ${String(statistic)}`);
      }
      const unit = typeof input.Unit === 'string' ? input.Unit : undefined;
      const start = timestampParameter(input, 'StartTime') as number;
      const periods = store.aggregates(metric, {
        start,
        origin: queryOrigin(start),
        end: timestampParameter(input, 'EndTime') as number,
        periodSeconds: periodOf(input.Period),
        ...(unit === undefined ? {} : { unit }),
      });
      return {
        Label: metric.metricName,
        Datapoints: periods.map(({ timestamp, aggregate, unit: periodUnit }) => ({
          Timestamp: new Date(timestamp),
          ...Object.fromEntries(
            statistics.map((statistic) => [
              statistic,
              statisticOf(aggregate, statistic as (typeof STATISTICS)[number]),
            ]),
          ),
          Unit: periodUnit,
        })),
      };
    }),

    ListMetrics: typedCloudWatchOperation<ListMetricsInput>((input) => {
      const filters = list(input.Dimensions).filter(isRecord);
      const metrics = store
        .list({
          ...(typeof input.Namespace === 'string' ? { namespace: input.Namespace } : {}),
          ...(typeof input.MetricName === 'string' ? { metricName: input.MetricName } : {}),
        })
        .filter((metric) =>
          filters.every(
            (filter) =>
              typeof filter.Name === 'string' &&
              filter.Name in metric.dimensions &&
              (filter.Value === undefined || metric.dimensions[filter.Name] === filter.Value),
          ),
        );
      return {
        Metrics: metrics.map((metric) => ({
          Namespace: metric.namespace,
          MetricName: metric.metricName,
          Dimensions: dimensionList(metric.dimensions),
        })),
      };
    }),

    PutMetricData: typedCloudWatchOperation<PutMetricDataInput>((input) => {
      const namespace = requiredString(input, 'Namespace');
      if (namespace.startsWith('AWS/')) {
        throw CloudWatchError.invalidParameter(`The value ${namespace} for parameter Namespace is invalid.`);
      }
      const data = list(input.MetricData);
      if (data.length === 0) throw CloudWatchError.missingParameter('MetricData');
      const now = store.now();
      for (const datum of data) {
        if (!isRecord(datum)) continue;
        const identity = {
          namespace,
          metricName: requiredString(datum, 'MetricName'),
          dimensions: dimensionsOf(datum.Dimensions),
        };
        const unit = typeof datum.Unit === 'string' ? datum.Unit : 'None';
        const timestamp = timestampParameter(datum, 'Timestamp', false) ?? now;
        for (const aggregate of aggregatesOf(datum)) store.record(identity, unit, timestamp, aggregate);
      }
      return {};
    }),
  };
}

/** Query periods count from the StartTime, rounded down to the minute as CloudWatch rounds it. */
function queryOrigin(start: number): number {
  return Math.floor(start / 60_000) * 60_000;
}

/** What one PutMetricData datum holds: a Value, Values (with Counts), or StatisticValues. */
function aggregatesOf(datum: Record<string, unknown>): Aggregate[] {
  const number = (value: unknown, name: string) => {
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw CloudWatchError.invalidParameter(`${name} is not a number`);
    return value;
  };
  if (isRecord(datum.StatisticValues)) {
    const values = datum.StatisticValues;
    return [
      {
        sum: number(values.Sum, 'StatisticValues.Sum'),
        count: number(values.SampleCount, 'StatisticValues.SampleCount'),
        min: number(values.Minimum, 'StatisticValues.Minimum'),
        max: number(values.Maximum, 'StatisticValues.Maximum'),
      },
    ];
  }
  if (Array.isArray(datum.Values)) {
    const counts = list(datum.Counts);
    return datum.Values.map((raw, index) => {
      const value = number(raw, 'Values');
      const count = counts[index] === undefined ? 1 : number(counts[index], 'Counts');
      return { sum: value * count, count, min: value, max: value };
    });
  }
  if (datum.Value === undefined) throw CloudWatchError.missingParameter('Value');
  const value = number(datum.Value, 'Value');
  return [{ sum: value, count: 1, min: value, max: value }];
}
