/**
 * The console backend's dashboard route (bin/console-server.ts, ConsoleRoute.dashboard) against
 * the local runtime's CloudWatch on a virtual clock hours ahead of the machine's: the hour it
 * answers is the one ending at the clock's time (which the CloudWatch answers with), not the
 * machine's, so a count stamped on the clock a few minutes ago is in it. The metrics are put as
 * the runtime's EMF reader puts them, into the store the CloudWatch serves.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { type ConsoleServer, startConsoleServer } from '../../../bin/console-server';
import { ConsoleRoute } from '../../../console/contract/console-api';
import { type DashboardBody, dashboardWindow } from '../../../console/contract/dashboard';
import { RoleServiceName } from '../../../lambdas/scheduler-agent-supervisor/contracts/env';
import {
  METRICS_NAMESPACE,
  OrderMetric,
  STATE_DIMENSION,
} from '../../../lambdas/scheduler-agent-supervisor/contracts/metrics';
import { OperatorClient } from '../../../lib/harness/operator-client';
import { VirtualClock } from '../../../lib/local-runtime';
import { LocalAlarms } from '../../../lib/local-runtime/cloudwatch/alarms';
import { cloudWatchOperations } from '../../../lib/local-runtime/cloudwatch/api';
import { MetricStore } from '../../../lib/local-runtime/cloudwatch/metrics';
import { startCloudWatchServer } from '../../../lib/local-runtime/cloudwatch/server';
import type { LoopbackServer } from '../../../lib/local-runtime/protocol/http-server';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
/** Three hours ahead of the machine, as an idle virtual clock gets in seconds. */
const clock = new VirtualClock({ startMillis: Date.now() + 3 * 3_600_000 });

let assetsDir: string;
let cloudWatchServer: LoopbackServer;
let cloudWatch: CloudWatchClient;
let server: ConsoleServer;

beforeAll(async () => {
  assetsDir = mkdtempSync(join(tmpdir(), 'console-page-'));
  writeFileSync(join(assetsDir, 'index.html'), '<!doctype html><title>console</title>');
  const store = new MetricStore({ clock: () => clock.now() });
  store.put({
    namespace: METRICS_NAMESPACE,
    metricName: OrderMetric.OrdersEnteredState,
    dimensions: { service: RoleServiceName.StatusNotifier, [STATE_DIMENSION]: 'Processed' },
    unit: 'Count',
    storageResolution: 1,
    values: [1, 1],
    timestamp: clock.now() - 5 * 60_000,
  });
  const alarms = new LocalAlarms({
    store,
    region: 'us-east-1',
    accountId: '000000000000',
    act: async () => undefined,
    onProblem: (message) => {
      throw new Error(message);
    },
  });
  cloudWatchServer = await startCloudWatchServer(cloudWatchOperations(store, alarms), { clock });
  cloudWatch = new CloudWatchClient({
    region: 'us-east-1',
    credentials,
    endpoint: cloudWatchServer.endpoint,
  });
  const operator = new OperatorClient({
    apiUrl: 'http://127.0.0.1:9/unused/',
    region: 'us-east-1',
    credentials,
  });
  server = await startConsoleServer({
    backend: () => ({ operator, cloudWatch, close: () => undefined }),
    port: 0,
    assetsDir,
  });
});
afterAll(async () => {
  await server?.stop();
  cloudWatch?.destroy();
  await cloudWatchServer?.stop();
  rmSync(assetsDir, { recursive: true, force: true });
});

it("answers the hour ending at the runtime clock's time, with what was counted in it", async () => {
  const url = new URL(ConsoleRoute.dashboard, server.url);
  const response = await fetch(url);
  expect(response.status).toBe(200);
  const body = (await response.json()) as DashboardBody;
  const { start, end } = dashboardWindow(clock.now());
  expect({ from: body.from, to: body.to }).toEqual({
    from: new Date(start).toISOString(),
    to: new Date(end).toISOString(),
  });
  expect(body.orders.find(({ name }) => name === 'Processed')?.total).toBe(2);
  expect(body.orders.filter(({ total }) => total > 0)).toHaveLength(1);
});
