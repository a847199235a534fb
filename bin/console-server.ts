/**
 * The operator console's local backend: serves the page (console/, built with Vite) and a small
 * same-origin API under /console/api that calls the operator routes of the orders and delivery APIs,
 * signed with SigV4 server-side as the local operator (the same clients as the CLIs,
 * lib/harness/operator-client.ts). The browser never holds the operator's secret.
 *
 * It listens on the loopback interface only, through the runtime's loopback listener
 * (lib/local-runtime/protocol/http-server.ts): a request whose Host is not localhost, 127.0.0.1 or
 * [::1] is refused, so a DNS-rebinding page (its own name resolved to 127.0.0.1) can neither read
 * operator data nor act. Whoever can reach it acts as the operator, as whoever can read
 * .local/target.json can. POSTs must be JSON from this server's own origin (a loopback name at its
 * port; the Origin is compared with that, never with the Host the request names), and a cross-site
 * form or fetch cannot send JSON without a CORS preflight, which this server never grants.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import { CloudWatchClient, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import {
  type AlarmsBody,
  alarmViewOf,
  CONSOLE_BASE,
  type ConsoleErrorBody,
  ConsoleRoute,
  type StateCount,
  type StateCountsBody,
} from '../console/contract/console-api';
import { type DashboardBody, dashboardWindow, readDashboard } from '../console/contract/dashboard';
import { countStates } from '../console/contract/state-counts';
import { DELIVERY_STATUSES, type DeliveryStatus, isDeliveryStatus } from '../lambdas/choreography/contracts';
import { OperatorAction, OperatorActionRequestSchema } from '../lambdas/scheduler-agent-supervisor/contracts';
import {
  CONSOLE_CONFIG_FILE,
  type ConsoleConfig,
} from '../lambdas/scheduler-agent-supervisor/contracts/console';
import type { DRONE_DELIVERY_STACK_NAME } from '../lib/choreography/stack';
import { everyAlarm } from '../lib/harness/metrics-report';
import { DeliveryOperatorClient, OperatorClient } from '../lib/harness/operator-client';
import { CLOCK_NOW_HEADER, crossSiteReason, type LocalTarget, listenOnLoopback } from '../lib/local-runtime';
import type { STACK_NAME } from '../lib/scheduler-agent-supervisor/stack';
import { CONSOLE_ASSETS_DIR } from './console-build';

/** The stacks the console reads, checked against their names at compile time (type-only imports keep aws-cdk-lib out). */
const ORDER_STACK: typeof STACK_NAME = 'SchedulerAgentSupervisor';
const DELIVERY_STACK: typeof DRONE_DELIVERY_STACK_NAME = 'DroneDelivery';

/** The console's port unless told: clear of the local APIs, which take PORT (3000), PORT+1, ... */
export const DEFAULT_CONSOLE_PORT = 3100;

/** What the backend calls: the operator API, CloudWatch's alarms, and the delivery API and tables. */
export interface ConsoleBackend {
  readonly operator: OperatorClient;
  readonly cloudWatch: CloudWatchClient;
  /** The delivery API's operator routes, signed as the same operator. @default - no drone delivery app */
  readonly deliveries?: DeliveryOperatorClient;
  /** Releases the SDK clients. */
  close(): void;
}

/**
 * The backend of a running local runtime: its operator identity, its CloudWatch, its delivery API.
 * Undefined when the app has no operator API (an assembly without the orders stack).
 */
export function localConsoleBackend(target: LocalTarget): ConsoleBackend | undefined {
  const operator = target.identities?.operator;
  const apiUrl = target.stackOutputs?.[ORDER_STACK]?.ApiUrl;
  if (!operator || !apiUrl) return undefined;
  const local = { region: target.region, credentials: { ...target.credentials } };
  const cloudWatch = new CloudWatchClient({ ...local, endpoint: target.endpoints.cloudwatch });
  const signedAs = {
    region: target.region,
    credentials: { accessKeyId: operator.accessKeyId, secretAccessKey: operator.secretAccessKey },
  };
  const deliveryApiUrl = target.stackOutputs?.[DELIVERY_STACK]?.ApiUrl;
  return {
    operator: new OperatorClient({ apiUrl, ...signedAs }),
    cloudWatch,
    ...(deliveryApiUrl && {
      deliveries: new DeliveryOperatorClient({ apiUrl: deliveryApiUrl, ...signedAs }),
    }),
    close: () => cloudWatch.destroy(),
  };
}

export interface ConsoleServerOptions {
  /** The backend to call; a function so a redeploy (new endpoints) can swap it. */
  readonly backend: () => ConsoleBackend | undefined;
  /** @default DEFAULT_CONSOLE_PORT (0 picks a free port) */
  readonly port?: number;
  /** When `port` is taken by another process, listen on a free port instead of failing. @default false */
  readonly orFreePort?: boolean;
  /** The built page. @default CONSOLE_ASSETS_DIR */
  readonly assetsDir?: string;
}

export interface ConsoleServer {
  /** The page's URL, e.g. http://127.0.0.1:3100/console/ */
  readonly url: string;
  stop(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

/** The page loads only its own scripts and styles and talks only to this origin. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

const MAX_REQUEST_BYTES = 8 * 1024;

export async function startConsoleServer(options: ConsoleServerOptions): Promise<ConsoleServer> {
  const assetsDir = resolve(options.assetsDir ?? CONSOLE_ASSETS_DIR);
  if (!existsSync(join(assetsDir, 'index.html')))
    throw new Error(`The console page is not built in ${assetsDir}: call buildConsoleAssets first`);
  const server = createServer((request, response) => {
    handle(request, response, options.backend, assetsDir).catch((error: Error) => {
      const status = error instanceof HttpError ? error.status : 502;
      const message =
        error instanceof HttpError
          ? error.message
          : `The console backend could not reach the API: ${error.message}`;
      if (!response.headersSent) sendJson(response, status, { message } satisfies ConsoleErrorBody);
      else response.end();
    });
  });
  try {
    await listenOnLoopback(server, options.port ?? DEFAULT_CONSOLE_PORT);
  } catch (error) {
    if (!options.orFreePort || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    await listenOnLoopback(server, 0);
  }
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${CONSOLE_BASE}/`,
    stop: () =>
      new Promise((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    ...SECURITY_HEADERS,
  });
  response.end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES)
      throw new HttpError(413, `The request is larger than ${MAX_REQUEST_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, 'The action is not JSON');
  }
}

/**
 * A POST must come from this page: JSON, and from this server's own origin when the browser names
 * one (a loopback name at its port: crossSiteReason, never the Host the request names).
 */
function assertSameOriginJson(request: IncomingMessage): void {
  const crossSite = crossSiteReason(request);
  if (crossSite !== undefined)
    throw new HttpError(403, `Requests with ${crossSite} are not accepted: open the console itself`);
  if (!(request.headers['content-type'] ?? '').startsWith('application/json'))
    throw new HttpError(415, 'Send the action as application/json');
}

/** A route of ConsoleRoute as a pattern whose first group is the id (a placeholder URL encoding leaves alone). */
const ID_PLACEHOLDER = '__id__';
const pattern = (path: string) => new RegExp(`^${path.replace(ID_PLACEHOLDER, '([^/]+)')}$`);
const ORDER = pattern(ConsoleRoute.order(ID_PLACEHOLDER));
const ACTION = pattern(ConsoleRoute.action(ID_PLACEHOLDER, 'retry').replace(/retry$/, '(retry|cancel)'));
const DELIVERY = pattern(ConsoleRoute.delivery(ID_PLACEHOLDER));
const WORKFLOW = pattern(ConsoleRoute.workflow(ID_PLACEHOLDER));

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  backendNow: () => ConsoleBackend | undefined,
  assetsDir: string,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://console.invalid');
  const path = url.pathname;
  const method = request.method ?? 'GET';
  if (path === '/' || path === CONSOLE_BASE) {
    response.writeHead(302, { location: `${CONSOLE_BASE}/` });
    response.end();
    return;
  }
  if (path === `${CONSOLE_BASE}/${CONSOLE_CONFIG_FILE}`) {
    // The page asks where it runs: here, behind this backend, which signs its calls.
    sendJson(response, 200, { mode: 'local' } satisfies ConsoleConfig);
    return;
  }
  if (!path.startsWith(`${CONSOLE_BASE}/api/`)) {
    if (method !== 'GET' && method !== 'HEAD') throw new HttpError(405, `${method} is not allowed here`);
    serveAsset(response, assetsDir, path);
    return;
  }
  const backend = backendNow();
  if (!backend) throw new HttpError(503, 'The app running now has no operator API');
  const action = ACTION.exec(path);
  if (action) {
    if (method !== 'POST') throw new HttpError(405, 'Actions are POSTed');
    assertSameOriginJson(request);
    const parsed = OperatorActionRequestSchema.safeParse(parseJson(await readBody(request)));
    if (!parsed.success)
      throw new HttpError(
        400,
        `The action is not valid: ${parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ')}`,
      );
    const orderId = decodeURIComponent(action[1] ?? '');
    const kind = action[2] === 'retry' ? OperatorAction.Retry : OperatorAction.Cancel;
    const answer = await backend.operator.act(kind, orderId, parsed.data);
    sendJson(response, answer.status, answer.body);
    return;
  }
  if (method !== 'GET') throw new HttpError(405, `${method} is not allowed on ${path}`);
  if (path === ConsoleRoute.counts) {
    sendJson(response, 200, { counts: await stateCounts(backend.operator) } satisfies StateCountsBody);
    return;
  }
  if (path === ConsoleRoute.orders) {
    const state = url.searchParams.get('state') ?? '';
    const limit = url.searchParams.get('limit');
    const cursor = url.searchParams.get('cursor');
    const answer = await backend.operator.list({
      state,
      ...(limit !== null && { limit: Number(limit) }),
      ...(cursor !== null && { cursor }),
    });
    sendJson(response, answer.status, answer.body);
    return;
  }
  const workflow = WORKFLOW.exec(path);
  if (workflow) {
    const answer = await backend.operator.workflow(decodeURIComponent(workflow[1] ?? ''));
    sendJson(response, answer.status, answer.body);
    return;
  }
  const order = ORDER.exec(path);
  if (order) {
    const answer = await backend.operator.show(decodeURIComponent(order[1] ?? ''));
    sendJson(response, answer.status, answer.body);
    return;
  }
  if (path === ConsoleRoute.dashboard) {
    sendJson(response, 200, await dashboardOfTheHour(backend.cloudWatch));
    return;
  }
  if (path === ConsoleRoute.alarms) {
    const alarms = await everyAlarm(backend.cloudWatch, undefined);
    const body: AlarmsBody = {
      alarms: alarms.map(alarmViewOf),
    };
    sendJson(response, 200, body);
    return;
  }
  const deliveries = backend.deliveries;
  if (path === ConsoleRoute.deliveries || DELIVERY.test(path)) {
    if (!deliveries) throw new HttpError(404, 'This deployment runs no drone delivery app');
    if (path === ConsoleRoute.deliveries) {
      const answer = await deliveries.list(deliveryStatusOf(url.searchParams.get('status')));
      sendJson(response, answer.status, answer.body);
      return;
    }
    const answer = await deliveries.show(decodeURIComponent(DELIVERY.exec(path)?.[1] ?? ''));
    sendJson(response, answer.status, answer.body);
    return;
  }
  throw new HttpError(404, `No console route ${path}`);
}

function serveAsset(response: ServerResponse, assetsDir: string, path: string): void {
  const relative = decodeURIComponent(path.slice(CONSOLE_BASE.length + 1));
  let file = resolve(assetsDir, relative);
  // The page routes with the URL's hash, so any other path under /console/ is the page itself.
  if (!file.startsWith(assetsDir + sep) || !existsSync(file) || !statSync(file).isFile())
    file = join(assetsDir, 'index.html');
  const type = CONTENT_TYPES[extname(file)] ?? 'application/octet-stream';
  response.writeHead(200, {
    'content-type': type,
    // Vite names assets by content hash; the page itself must be read again after a rebuild.
    'cache-control': file.includes(`${sep}assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
    ...SECURITY_HEADERS,
  });
  response.end(readFileSync(file));
}

/** Each state's orders, counted as the deployed console counts them (countStates). */
function stateCounts(operator: OperatorClient): Promise<StateCount[]> {
  return countStates(async (query) => {
    const answer = await operator.list(query);
    if (answer.status !== 200)
      throw new HttpError(
        answer.status,
        `Listing ${query.state} orders answered ${answer.status}: ${JSON.stringify(answer.body)}`,
      );
    return answer.body;
  });
}

/** The status a list asks for, refused in words before it reaches the API when it is none. */
function deliveryStatusOf(status: string | null): DeliveryStatus | undefined {
  const wanted = status || undefined;
  if (wanted !== undefined && !isDeliveryStatus(wanted)) {
    throw new HttpError(400, `status must be one of ${DELIVERY_STATUSES.join(', ')}`);
  }
  return wanted;
}

/**
 * The last hour of the clock the metrics are stamped on: the local CloudWatch answers with its
 * clock's time (CLOCK_NOW_HEADER), which on the virtual clock runs far ahead of the machine's. The
 * hour is asked of the machine's time first; when the answer's clock is in another minute, it is
 * asked again of that clock's. AWS sends no such header: its metrics are on the wall clock.
 */
async function dashboardOfTheHour(cloudWatch: CloudWatchClient): Promise<DashboardBody> {
  let clockNow: number | undefined;
  const send = (input: ConstructorParameters<typeof GetMetricDataCommand>[0]) => {
    const command = new GetMetricDataCommand(input);
    command.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        const header = (result.response as { headers?: Record<string, string> }).headers?.[CLOCK_NOW_HEADER];
        if (header !== undefined && Number.isFinite(Number(header))) clockNow = Number(header);
        return result;
      },
      { step: 'deserialize', name: 'readLocalRuntimeClock' },
    );
    return cloudWatch.send(command);
  };
  const machineNow = Date.now();
  const body = await readDashboard(send, machineNow);
  if (clockNow === undefined || dashboardWindow(clockNow).end === dashboardWindow(machineNow).end)
    return body;
  return readDashboard(send, clockNow);
}
