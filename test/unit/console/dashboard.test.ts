/**
 * The dashboard of the last hour (console/contract/dashboard.ts): the GetMetricData query (every
 * state and status, per minute, the exact dimension sets the functions emit) and the reading of its
 * answer. Then the whole path through the local runtime's CloudWatch: the counts are emitted by
 * the shared observability module's dimensioned counter (what the status notifier and ingestion
 * call) as Powertools writes them, read by the runtime's EMF parser into its metric store, and read
 * back by the deployed console's `dashboard()` through the real SDK, as a role holding the grant
 * the console's role gets (cloudwatch:GetMetricData on `*`), checked by the local IAM; a role
 * without it is refused.
 */
import { CloudWatchClient, type MetricDataResult } from '@aws-sdk/client-cloudwatch';
import {
  DASHBOARD_MINUTES,
  DASHBOARD_STATES,
  DASHBOARD_STATUSES,
  dashboardOf,
  dashboardQuery,
  dashboardWindow,
} from '../../../console/contract/dashboard';
import { deployedConsoleApi } from '../../../console/src/deployed-api';
import { DeliveryMetric, STATUS_DIMENSION } from '../../../lambdas/choreography/contracts/metrics';
import { CHOREOGRAPHY_METRICS_NAMESPACE, ServiceName } from '../../../lambdas/choreography/contracts/names';
import { statusEntered } from '../../../lambdas/choreography/domain/ingestion';
import { RoleServiceName } from '../../../lambdas/scheduler-agent-supervisor/contracts/env';
import {
  METRICS_NAMESPACE,
  OrderMetric,
  STATE_DIMENSION,
} from '../../../lambdas/scheduler-agent-supervisor/contracts/metrics';
import { ProcessState } from '../../../lambdas/scheduler-agent-supervisor/contracts/states';
import { flowMeasurements } from '../../../lambdas/scheduler-agent-supervisor/domain/flow-metrics';
import { createObservability, publishMetrics } from '../../../lambdas/shared/observability';
import { LocalAlarms } from '../../../lib/local-runtime/cloudwatch/alarms';
import { cloudWatchOperations } from '../../../lib/local-runtime/cloudwatch/api';
import { parseEmfLine } from '../../../lib/local-runtime/cloudwatch/emf';
import { cloudWatchChecks } from '../../../lib/local-runtime/cloudwatch/iam-requests';
import { MetricStore } from '../../../lib/local-runtime/cloudwatch/metrics';
import { CloudWatchError, startCloudWatchServer } from '../../../lib/local-runtime/cloudwatch/server';
import { verifySigV4 } from '../../../lib/local-runtime/iam/identities';
import type { LoopbackServer } from '../../../lib/local-runtime/protocol/http-server';
import { TEST_ACCOUNT, TEST_REGION, type TestAccount, testAccount } from '../../support/local-iam';

const NOW = Date.parse('2030-01-01T08:41:30.000Z');
const MINUTE = 60_000;

describe('the dashboard query', () => {
  const query = dashboardQuery(NOW);

  it('asks the 60 whole minutes up to the one holding now, by minute', () => {
    expect(query.StartTime).toEqual(new Date('2030-01-01T07:42:00.000Z'));
    expect(query.EndTime).toEqual(new Date('2030-01-01T08:42:00.000Z'));
    expect(dashboardWindow(Date.parse('2030-01-01T08:42:00.000Z')).end).toBe(
      Date.parse('2030-01-01T08:43:00.000Z'),
    );
    for (const { MetricStat } of query.MetricDataQueries ?? []) {
      expect(MetricStat).toMatchObject({ Period: 60, Stat: 'Sum' });
    }
  });

  it('asks every state with the dimensions the status notifier writes, and every status the read model holds', () => {
    const metrics = (query.MetricDataQueries ?? []).map(({ MetricStat }) => MetricStat?.Metric);
    expect(metrics.slice(0, DASHBOARD_STATES.length)).toEqual(
      Object.values(ProcessState).map((state) => ({
        Namespace: METRICS_NAMESPACE,
        MetricName: OrderMetric.OrdersEnteredState,
        Dimensions: [
          { Name: 'service', Value: RoleServiceName.StatusNotifier },
          { Name: STATE_DIMENSION, Value: state },
        ],
      })),
    );
    expect(DASHBOARD_STATUSES).toEqual([
      'Requested',
      'Scheduled',
      'PickedUp',
      'Delivered',
      'Failed',
      'Cancelled',
    ]);
    expect(metrics.slice(DASHBOARD_STATES.length)).toEqual(
      DASHBOARD_STATUSES.map((status) => ({
        Namespace: CHOREOGRAPHY_METRICS_NAMESPACE,
        MetricName: DeliveryMetric.DeliveriesEnteredStatus,
        Dimensions: [
          { Name: 'service', Value: ServiceName.Ingestion },
          { Name: STATUS_DIMENSION, Value: status },
        ],
      })),
    );
    const ids = (query.MetricDataQueries ?? []).map(({ Id }) => Id ?? '');
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-zA-Z0-9_]*$/);
  });
});

describe('reading the answer', () => {
  const { start } = dashboardWindow(NOW);
  const result = (id: string, points: [number, number][], extra: Partial<MetricDataResult> = {}) => ({
    Id: id,
    Timestamps: points.map(([minute]) => new Date(start + minute * MINUTE)),
    Values: points.map(([, value]) => value),
    StatusCode: 'Complete' as const,
    ...extra,
  });

  it('puts each value in its minute, 0 where CloudWatch left a minute out, and sums the hour', () => {
    const body = dashboardOf(NOW, [
      result('orders1', [
        [0, 2],
        [59, 4],
      ]),
      result('deliveries0', [[30, 1]]),
    ]);
    expect(body.from).toBe('2030-01-01T07:42:00.000Z');
    expect(body.to).toBe('2030-01-01T08:42:00.000Z');
    expect(body.orders.map(({ name }) => name)).toEqual(Object.values(ProcessState));
    const processing = body.orders[1];
    expect(processing?.name).toBe(ProcessState.Processing);
    expect(processing?.perMinute).toHaveLength(DASHBOARD_MINUTES);
    expect([processing?.perMinute[0], processing?.perMinute[59], processing?.total]).toEqual([2, 4, 6]);
    expect(body.orders[0]).toEqual({ name: 'Pending', perMinute: new Array(60).fill(0), total: 0 });
    expect(body.deliveries[0]).toMatchObject({ name: 'Requested', total: 1 });
    expect(body.deliveries[0]?.perMinute[30]).toBe(1);
  });

  it('adds up the pages of one query and leaves out values outside the window', () => {
    const body = dashboardOf(NOW, [
      result('orders2', [[3, 1]], { StatusCode: 'PartialData' }),
      result('orders2', [
        [3, 2],
        [60, 9],
        [-1, 9],
      ]),
    ]);
    expect(body.orders[2]).toMatchObject({ name: 'Processed', total: 3 });
    expect(body.orders[2]?.perMinute[3]).toBe(3);
  });

  it('throws, in words, on a result CloudWatch could not complete', () => {
    expect(() =>
      dashboardOf(NOW, [
        result('orders0', [], {
          StatusCode: 'InternalError',
          Label: 'OrdersEnteredState',
          Messages: [{ Code: 'x', Value: 'no luck' }],
        }),
      ]),
    ).toThrow('CloudWatch answered InternalError for OrdersEnteredState: no luck');
  });
});

describe('through the local runtime: emitted as the functions emit, read as the deployed page reads', () => {
  let account: TestAccount;
  let server: LoopbackServer;
  const store = new MetricStore({ clock: () => NOW });

  /** What one function's observability writes to its log for `emit`, read by the runtime's EMF parser. */
  function emitAs(
    service: string,
    namespace: string,
    at: number,
    emit: (o: ReturnType<typeof observe>) => void,
  ) {
    const lines: string[] = [];
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      emit(observe(service, namespace));
    } finally {
      stdout.mockRestore();
    }
    const emf = lines.flatMap((line) => line.split('\n')).filter((line) => line.includes('"_aws"'));
    for (const line of emf) {
      const parsed = parseEmfLine(line.replace(/"Timestamp":\d+/, `"Timestamp":${at}`), at);
      if (parsed.kind !== 'metrics') throw new Error(`not EMF: ${line}`);
      for (const datum of parsed.data) store.put(datum);
    }
  }
  const observe = (service: string, namespace: string) =>
    createObservability<string>(
      {},
      { POWERTOOLS_SERVICE_NAME: service, POWERTOOLS_METRICS_NAMESPACE: namespace },
    );

  beforeAll(async () => {
    account = testAccount();
    const alarms = new LocalAlarms({
      store,
      region: TEST_REGION,
      accountId: TEST_ACCOUNT,
      act: async () => undefined,
      onProblem: (message) => {
        throw new Error(message);
      },
    });
    const scope = { region: TEST_REGION, accountId: TEST_ACCOUNT };
    server = await startCloudWatchServer(cloudWatchOperations(store, alarms), {
      authorize: async (operationName, input, request) => {
        const signed = await verifySigV4(request, account.iam.credentials, {
          region: TEST_REGION,
          service: 'monitoring',
        });
        if (!signed.ok)
          throw new CloudWatchError('InvalidClientTokenId', 'InvalidClientTokenId', signed.message, 403);
        const verdict = account.iam.authorizer.authorizeAll(
          cloudWatchChecks(operationName, input, scope).map((check) => ({
            principal: signed.identity.principal,
            ...check,
          })),
        );
        if (!verdict.allowed) throw new CloudWatchError('AccessDenied', 'AccessDenied', verdict.message, 403);
      },
    });
    const { start } = dashboardWindow(NOW);
    // An order created and processed in minute 5, another created in minute 58 (now's minute is 59).
    const order = (eventName: 'INSERT' | 'MODIFY', from: string | undefined, to: string) =>
      flowMeasurements({
        eventName,
        ...(from !== undefined && { oldImage: { processState: from } }),
        newImage: { orderId: 'o-1', processState: to, updatedAt: new Date(start).toISOString() },
      });
    const changes: [number, ReturnType<typeof order>][] = [
      [5, order('INSERT', undefined, 'Pending')],
      [5, order('MODIFY', 'Pending', 'Processing')],
      [5, order('MODIFY', 'Processing', 'Processed')],
      [58, order('INSERT', undefined, 'Pending')],
      // A write within a state: nothing to count.
      [58, order('MODIFY', 'Pending', 'Pending')],
    ];
    for (const [minute, measurements] of changes) {
      emitAs(RoleServiceName.StatusNotifier, METRICS_NAMESPACE, start + minute * MINUTE + 1000, (o) => {
        for (const { metric, value, dimension } of measurements) {
          if (dimension) o.countBy(metric, dimension, value);
          else o.count(metric, value);
        }
        publishMetrics(o.metrics);
      });
    }
    for (const [minute, status] of [
      [10, 'Requested'],
      [12, 'Scheduled'],
    ] as const) {
      emitAs(ServiceName.Ingestion, CHOREOGRAPHY_METRICS_NAMESPACE, start + minute * MINUTE + 1000, (o) => {
        const { metric, dimension } = statusEntered(status);
        o.countBy(metric, dimension);
      });
    }
    // Before the window: not this hour's.
    emitAs(ServiceName.Ingestion, CHOREOGRAPHY_METRICS_NAMESPACE, start - MINUTE, (o) => {
      const { metric, dimension } = statusEntered('Requested');
      o.countBy(metric, dimension);
    });
  });
  afterAll(() => server.stop());

  const consoleReading = (actions: string[]) => {
    const caller = account.role(
      `console-dashboard-${actions.join('-').replace(/[^a-zA-Z]/g, '')}`,
      [{ Effect: 'Allow', Action: actions, Resource: '*' }],
      { service: 'cognito-identity.amazonaws.com' },
    );
    const cloudWatch = new CloudWatchClient({
      region: TEST_REGION,
      endpoint: server.endpoint,
      credentials: account.sdkCredentials(caller),
    });
    return deployedConsoleApi(
      { region: TEST_REGION, apiUrl: 'http://127.0.0.1:9/unused', alarmSources: [] },
      { accessKeyId: 'unused', secretAccessKey: 'unused' },
      cloudWatch,
      () => NOW,
    );
  };

  it('reads each state and status entered, by minute, through GetMetricData', async () => {
    {
      const body = await consoleReading(['cloudwatch:GetMetricData']).dashboard();
      const totals = Object.fromEntries(body.orders.map(({ name, total }) => [name, total]));
      expect(totals).toEqual({
        Pending: 2,
        Processing: 1,
        Processed: 1,
        Error: 0,
        CompensationInProgress: 0,
        Compensated: 0,
        CompensationFailed: 0,
      });
      expect(body.orders.find(({ name }) => name === 'Pending')?.perMinute[5]).toBe(1);
      expect(body.orders.find(({ name }) => name === 'Pending')?.perMinute[58]).toBe(1);
      expect(body.orders.find(({ name }) => name === 'Processed')?.perMinute[5]).toBe(1);
      expect(body.deliveries.map(({ name, total }) => [name, total])).toEqual([
        ['Requested', 1],
        ['Scheduled', 1],
        ['PickedUp', 0],
        ['Delivered', 0],
        ['Failed', 0],
        ['Cancelled', 0],
      ]);
      expect(body.deliveries[1]?.perMinute[12]).toBe(1);
    }
  });

  it("is refused, in CloudWatch's words, to a role without cloudwatch:GetMetricData", async () => {
    await expect(consoleReading(['cloudwatch:DescribeAlarms']).dashboard()).rejects.toThrow(
      /not authorized to perform: cloudwatch:GetMetricData/,
    );
  });
});
