/**
 * The dashboard of the last hour, read from CloudWatch: one builder of the GetMetricData query and
 * one reader of its answer into the dashboard's body, shared by the local backend
 * (bin/console-server.ts, which asks the local runtime's CloudWatch) and the deployed page
 * (console/src/deployed-api.ts, which asks CloudWatch with the operator's credentials), so both
 * read the same metrics with the same dimensions and bin them the same way.
 *
 * The metrics are the wings' own (their metric contracts are their home): OrdersEnteredState by
 * `state`, counted by the status notifier, and DeliveriesEnteredStatus by `status`, counted by
 * ingestion (its submission and its projection). CloudWatch matches a metric by its full dimension
 * set, so each query names the `service` dimension Powertools writes besides the metric's own.
 */
import type {
  GetMetricDataInput,
  GetMetricDataOutput,
  MetricDataQuery,
  MetricDataResult,
} from '@aws-sdk/client-cloudwatch';
import { DeliveryMetric, STATUS_DIMENSION } from '../../lambdas/choreography/contracts/metrics';
import { CHOREOGRAPHY_METRICS_NAMESPACE, ServiceName } from '../../lambdas/choreography/contracts/names';
import {
  DELIVERY_STATUSES,
  type DeliveryStatus,
  STATUS_AFTER,
} from '../../lambdas/choreography/contracts/statuses';
import { RoleServiceName } from '../../lambdas/scheduler-agent-supervisor/contracts/env';
import {
  METRICS_NAMESPACE,
  OrderMetric,
  STATE_DIMENSION,
} from '../../lambdas/scheduler-agent-supervisor/contracts/metrics';
import { ProcessState } from '../../lambdas/scheduler-agent-supervisor/contracts/states';
import { SERVICE_DIMENSION } from '../../lambdas/shared/alarm-spec';

/** The dashboard's window, in minutes, and its bins: the count entered per minute. */
export const DASHBOARD_MINUTES = 60;
const DASHBOARD_PERIOD_SECONDS = 60;
const MINUTE_MILLIS = DASHBOARD_PERIOD_SECONDS * 1000;

/** Every state an order can enter, in the contract's order. */
export const DASHBOARD_STATES: readonly ProcessState[] = Object.values(ProcessState);

/**
 * The statuses the ingestion read model can hold: Requested, then each a lifecycle event leaves.
 * Correlating is the Delivery service's own and never reaches the read model (no event says it),
 * so it has no chart rather than one that is always empty.
 */
export const DASHBOARD_STATUSES: readonly DeliveryStatus[] = DELIVERY_STATUSES.filter(
  (status) => status === 'Requested' || Object.values(STATUS_AFTER).includes(status),
);

/** One state's or status's hour: the count that entered it in each minute, oldest first, and their sum. */
export interface DashboardSeries<Name extends string = string> {
  readonly name: Name;
  /** DASHBOARD_MINUTES counts; index 0 is the minute starting at `from`. */
  readonly perMinute: readonly number[];
  readonly total: number;
}

/** The body of ConsoleRoute.dashboard. */
export interface DashboardBody {
  /** The window's start and end (ISO; end excluded): the last DASHBOARD_MINUTES whole minutes, the current one last. */
  readonly from: string;
  readonly to: string;
  readonly orders: readonly DashboardSeries<ProcessState>[];
  readonly deliveries: readonly DashboardSeries<DeliveryStatus>[];
}

/** The window ending with the minute that holds `nowMillis`, on minute boundaries (CloudWatch's bins). */
export function dashboardWindow(nowMillis: number): { readonly start: number; readonly end: number } {
  const end = (Math.floor(nowMillis / MINUTE_MILLIS) + 1) * MINUTE_MILLIS;
  return { start: end - DASHBOARD_MINUTES * MINUTE_MILLIS, end };
}

const orderQueryId = (index: number) => `orders${index}`;
const deliveryQueryId = (index: number) => `deliveries${index}`;

function sumPerMinute(
  id: string,
  namespace: string,
  metricName: string,
  dimensions: Record<string, string>,
): MetricDataQuery {
  return {
    Id: id,
    MetricStat: {
      Metric: {
        Namespace: namespace,
        MetricName: metricName,
        Dimensions: Object.entries(dimensions).map(([Name, Value]) => ({ Name, Value })),
      },
      Period: DASHBOARD_PERIOD_SECONDS,
      Stat: 'Sum',
    },
    ReturnData: true,
  };
}

/** The GetMetricData request of the hour that holds `nowMillis`: one query per state and per status. */
export function dashboardQuery(nowMillis: number): GetMetricDataInput {
  const { start, end } = dashboardWindow(nowMillis);
  return {
    StartTime: new Date(start),
    EndTime: new Date(end),
    ScanBy: 'TimestampAscending',
    MetricDataQueries: [
      ...DASHBOARD_STATES.map((state, index) =>
        sumPerMinute(orderQueryId(index), METRICS_NAMESPACE, OrderMetric.OrdersEnteredState, {
          [SERVICE_DIMENSION]: RoleServiceName.StatusNotifier,
          [STATE_DIMENSION]: state,
        }),
      ),
      ...DASHBOARD_STATUSES.map((status, index) =>
        sumPerMinute(
          deliveryQueryId(index),
          CHOREOGRAPHY_METRICS_NAMESPACE,
          DeliveryMetric.DeliveriesEnteredStatus,
          { [SERVICE_DIMENSION]: ServiceName.Ingestion, [STATUS_DIMENSION]: status },
        ),
      ),
    ],
  };
}

/**
 * The dashboard of the window that holds `nowMillis` from GetMetricData's results (every page's):
 * each value put in the minute its timestamp starts; minutes without data are 0 (CloudWatch leaves
 * them out); a result that is not Complete throws, naming it, rather than showing a partial hour.
 */
export function dashboardOf(nowMillis: number, results: readonly MetricDataResult[]): DashboardBody {
  const { start, end } = dashboardWindow(nowMillis);
  const byId = new Map<string, number[]>();
  for (const result of results) {
    if (
      result.StatusCode !== undefined &&
      result.StatusCode !== 'Complete' &&
      result.StatusCode !== 'PartialData'
    )
      throw new Error(
        `CloudWatch answered ${result.StatusCode} for ${result.Label ?? result.Id}: ${(result.Messages ?? []).map((message) => message.Value).join('; ')}`,
      );
    const minutes = byId.get(result.Id ?? '') ?? new Array<number>(DASHBOARD_MINUTES).fill(0);
    (result.Timestamps ?? []).forEach((timestamp, index) => {
      const minute = Math.floor((new Date(timestamp).getTime() - start) / MINUTE_MILLIS);
      if (minute >= 0 && minute < DASHBOARD_MINUTES)
        minutes[minute] = (minutes[minute] ?? 0) + (result.Values?.[index] ?? 0);
    });
    byId.set(result.Id ?? '', minutes);
  }
  const series = <Name extends string>(name: Name, id: string): DashboardSeries<Name> => {
    const perMinute = byId.get(id) ?? new Array<number>(DASHBOARD_MINUTES).fill(0);
    return { name, perMinute, total: perMinute.reduce((sum, count) => sum + count, 0) };
  };
  return {
    from: new Date(start).toISOString(),
    to: new Date(end).toISOString(),
    orders: DASHBOARD_STATES.map((state, index) => series(state, orderQueryId(index))),
    deliveries: DASHBOARD_STATUSES.map((status, index) => series(status, deliveryQueryId(index))),
  };
}

/** What reading the dashboard needs of a CloudWatch client: its send of a GetMetricData command. */
export type SendGetMetricData = (input: GetMetricDataInput) => Promise<GetMetricDataOutput>;

/** Reads the hour that holds `nowMillis`, every page of the answer. */
export async function readDashboard(send: SendGetMetricData, nowMillis: number): Promise<DashboardBody> {
  const input = dashboardQuery(nowMillis);
  const results: MetricDataResult[] = [];
  let nextToken: string | undefined;
  do {
    const page = await send({ ...input, ...(nextToken !== undefined && { NextToken: nextToken }) });
    results.push(...(page.MetricDataResults ?? []));
    nextToken = page.NextToken;
  } while (nextToken !== undefined);
  return dashboardOf(nowMillis, results);
}
