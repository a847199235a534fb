/**
 * API Gateway REST APIs served on a local port: `/<stage>/<resource path>` routed like API Gateway
 * (literal segments before {param} before {proxy+}), Lambda proxy integrations invoked with the v1
 * proxy event, API keys enforced where methods require them, AWS_IAM methods authorized by IAM
 * (the spec's authorizeIam: the caller's SigV4 signature, then execute-api:Invoke on the method's
 * ARN), a Lambda integration only where the function's policy lets API Gateway invoke it (the
 * server's mayInvoke), MOCK integrations (CORS preflight) answered from their integration response,
 * and requests over a usage plan's or a stage's throttle answered 429 before the integration runs
 * (api-throttle.ts).
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RuntimeClock } from '../clock';
import type { ReceivedRequest } from '../iam/identities';
import type { InvocationResult } from '../lambda/host';
import { mintUuid } from '../minted-ids';
import {
  BodyTooLargeError,
  lowerCaseHeaders,
  type RunningServer,
  readBody,
  startLoopbackServer,
} from '../protocol/http-server';
import { ApiThrottle, type ApiThrottleSpec } from './api-throttle';
import type { TokenBucket } from './token-bucket';

export interface RestApiMethod {
  readonly logicalId: string;
  /** Resource path template, e.g. /orders/{orderId}. */
  readonly resourcePath: string;
  readonly resourceId: string;
  /** GET, POST..., or ANY. */
  readonly httpMethod: string;
  readonly apiKeyRequired: boolean;
  /**
   * NONE, AWS_IAM (authorized by the spec's authorizeIam), or an authorizer that is not emulated.
   * @default 'NONE'
   */
  readonly authorizationType?: string;
  readonly integration:
    | { readonly type: 'lambda-proxy'; readonly functionArn: string }
    | {
        readonly type: 'mock';
        readonly statusCode: number;
        readonly headers: Readonly<Record<string, string>>;
      };
}

export interface RestApiSpec {
  readonly logicalId: string;
  readonly apiId: string;
  /** The API's Name (CloudWatch's ApiName dimension). @default - the API's id */
  readonly apiName?: string;
  readonly stageNames: readonly string[];
  readonly methods: readonly RestApiMethod[];
  /** Values accepted in x-api-key where a method requires a key. */
  readonly apiKeys: readonly string[];
  /**
   * The id of each key by its value (what `Ref` of the ApiKey resolves to locally): the proxy event
   * carries it as requestContext.identity.apiKeyId, as API Gateway does for a key it checked.
   * @default - no apiKeyId in events
   */
  readonly apiKeyIds?: Readonly<Record<string, string>>;
  /**
   * Authorizes a request to an AWS_IAM method: its signature, then execute-api:Invoke on the
   * method's ARN (`arn:aws:execute-api:<region>:<account>:<api>/<stage>/<METHOD>/<path>`).
   * @default - none: every AWS_IAM method answers 403
   */
  readonly authorizeIam?: (request: ReceivedRequest, methodArn: string) => Promise<IamMethodVerdict>;
  readonly region: string;
  readonly accountId: string;
  /**
   * Its stages' method throttles and its keys' usage plans: a request over one is answered 429
   * `{"message":"Too Many Requests"}` and its integration is not run. @default - nothing throttled
   */
  readonly throttle?: ApiThrottleSpec;
}

export type Invoke = (functionArn: string, event: unknown) => Promise<InvocationResult>;

/** An AWS_IAM method's verdict on a request: its caller, or API Gateway's 403 message. */
export type IamMethodVerdict =
  | { readonly ok: true; readonly accessKeyId: string; readonly userArn: string }
  | { readonly ok: false; readonly message: string; readonly messageKey: 'message' | 'Message' };

/** API Gateway's hard integration timeout. */
const INTEGRATION_TIMEOUT_MILLIS = 29_000;
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

interface RouteMatch {
  readonly method: RestApiMethod;
  readonly pathParameters: Record<string, string>;
}

/** Finds the method for a path: the most specific resource wins, as in API Gateway. */
export function matchRoute(
  methods: readonly RestApiMethod[],
  httpMethod: string,
  path: string,
): RouteMatch | 'no-resource' | 'no-method' {
  const segments = path.split('/').filter((segment) => segment !== '');
  let best: { score: number[]; parameters: Record<string, string>; resourcePath: string } | undefined;
  const resourcePaths = [...new Set(methods.map((method) => method.resourcePath))];
  for (const resourcePath of resourcePaths) {
    const template = resourcePath.split('/').filter((segment) => segment !== '');
    const parameters: Record<string, string> = {};
    const score: number[] = [];
    let matched = true;
    for (let index = 0; index < template.length; index += 1) {
      const part = template[index] ?? '';
      const greedy = /^\{(.+)\+\}$/.exec(part);
      if (greedy?.[1]) {
        if (index !== template.length - 1 || segments.length <= index) matched = false;
        else parameters[greedy[1]] = segments.slice(index).map(decodeURIComponent).join('/');
        score.push(0);
        break;
      }
      const segment = segments[index];
      if (segment === undefined) {
        matched = false;
        break;
      }
      const parameter = /^\{(.+)\}$/.exec(part);
      if (parameter?.[1]) {
        parameters[parameter[1]] = decodeURIComponent(segment);
        score.push(1);
      } else if (part === segment) {
        score.push(2);
      } else {
        matched = false;
        break;
      }
    }
    const greedyTail = /\+\}$/.test(template.at(-1) ?? '');
    if (!matched || (!greedyTail && template.length !== segments.length)) continue;
    if (!best || compareScores(score, best.score) > 0) best = { score, parameters, resourcePath };
  }
  if (!best) return 'no-resource';
  const candidates = methods.filter((method) => method.resourcePath === best.resourcePath);
  const method =
    candidates.find((candidate) => candidate.httpMethod === httpMethod) ??
    candidates.find((candidate) => candidate.httpMethod === 'ANY');
  return method ? { method, pathParameters: best.parameters } : 'no-method';
}

function compareScores(left: number[], right: number[]): number {
  for (let index = 0; index < Math.max(left.length, right.length); index += 1) {
    const difference = (left[index] ?? -1) - (right[index] ?? -1);
    if (difference !== 0) return difference;
  }
  return 0;
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** Splits Node's raw headers into API Gateway's single- and multi-value maps. */
function headerMaps(request: IncomingMessage) {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let index = 0; index < request.rawHeaders.length; index += 2) {
    const name = request.rawHeaders[index] ?? '';
    const value = request.rawHeaders[index + 1] ?? '';
    headers[name] = value;
    multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), value];
  }
  return { headers, multiValueHeaders };
}

/** Headers by lower-case name, repeated ones joined as Node joins them. */
function queryMaps(url: URL) {
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const [key, value] of url.searchParams) {
    single[key] = value;
    multi[key] = [...(multi[key] ?? []), value];
  }
  return Object.keys(single).length > 0 ? { single, multi } : { single: null, multi: null };
}

export interface RestApiServerOptions {
  /** The runtime's clock: a request holds it while it is served. @default - none (as on the wall clock) */
  readonly clock?: RuntimeClock;
  /** 0 picks a free port. */
  readonly port: number;
  readonly invoke: Invoke;
  /**
   * May API Gateway invoke the function for the method whose ARN is `sourceArn`? (The function's
   * resource policy must allow apigateway.amazonaws.com.) A refusal answers 500, as on AWS.
   * @default - always
   */
  readonly mayInvoke?: (functionArn: string, sourceArn: string) => boolean;
  readonly onProblem: (message: string) => void;
  /**
   * Told of each request that reached a method: routed, its API key and signature accepted (what
   * API Gateway bills; the runtime's metering). @default - not told
   */
  readonly onMethodRequest?: (api: RestApiSpec) => void;
  /**
   * Told of each answer to a request for one of the API's stages, whatever it was (a method's, a
   * 403 for a key or a route, a 5xx of the integration): API Gateway's CloudWatch metrics
   * (Count, 4XXError, 5XXError, Latency, IntegrationLatency). @default - not told
   */
  readonly onResponse?: (api: RestApiSpec, response: ApiResponseFigures) => void;
  /**
   * The token buckets of the runtime's APIs, shared so a usage plan's bucket of a key counts its
   * requests to every API stage of the plan. @default - this server's own
   */
  readonly throttleBuckets?: Map<string, TokenBucket>;
}

/** One answer of a stage, as API Gateway counts it in its metrics. */
export interface ApiResponseFigures {
  readonly stage: string;
  readonly status: number;
  /** From the request's arrival to the answer, on the runtime's clock. */
  readonly latencyMillis: number;
  /** Spent waiting for the Lambda integration, when one was called. */
  readonly integrationLatencyMillis?: number;
}

export interface RestApiServer extends RunningServer {
  /** http://localhost:<port> (stages are paths below it, as on AWS). */
  readonly baseUrl: string;
  /** Attach the API once the template is resolved (the port must be known before). */
  serve(api: RestApiSpec): void;
}

export async function startRestApiServer(options: RestApiServerOptions): Promise<RestApiServer> {
  let api: { readonly spec: RestApiSpec; readonly throttle: ApiThrottle } | undefined;
  const onRequest = (request: IncomingMessage, response: ServerResponse) => {
    if (!api) {
      sendJson(response, 503, { message: 'Service Unavailable' });
      return;
    }
    const { spec: served, throttle } = api;
    if (options.onResponse) tellResponse(served, options.onResponse, options.clock, request, response);
    handle(served, throttle, options, request, response).catch((error: Error) => {
      options.onProblem(`API ${served.logicalId}: ${error.message}`);
      if (!response.headersSent) sendJson(response, 500, { message: 'Internal server error' });
    });
  };
  // `localhost` may resolve to ::1 first: serve the IPv6 loopback too where the host has one.
  const server = await startLoopbackServer(onRequest, {
    port: options.port,
    dualStack: true,
    ...(options.clock && { clock: options.clock }),
  });
  return {
    endpoint: server.endpoint,
    baseUrl: `http://localhost:${server.port}`,
    serve: (spec) => {
      const buckets = options.throttleBuckets ?? new Map<string, TokenBucket>();
      api = { spec, throttle: new ApiThrottle(spec.apiId, spec.throttle ?? NO_THROTTLE, buckets) };
    },
    stop: () => server.stop(),
  };
}

const NO_THROTTLE: ApiThrottleSpec = { stages: {}, keyPlans: {} };

/**
 * Answers 429 as API Gateway does when the request is over a throttle of its usage plan or its
 * stage (its default THROTTLED gateway response; https://repost.aws/knowledge-center/api-gateway-429-limit),
 * and says whether it did.
 */
function throttled(
  throttle: ApiThrottle,
  clock: RuntimeClock | undefined,
  request: { readonly stage: string; readonly method: RestApiMethod; readonly apiKey: unknown },
  response: ServerResponse,
): boolean {
  const verdict = throttle.admit(
    {
      stage: request.stage,
      resourcePath: request.method.resourcePath,
      httpMethod: request.method.httpMethod,
      ...(request.method.apiKeyRequired && typeof request.apiKey === 'string' && { apiKey: request.apiKey }),
    },
    serverTime(clock),
  );
  if (verdict.throttled) sendJson(response, 429, { message: 'Too Many Requests' });
  return verdict.throttled;
}

/** The runtime's time, else the wall clock: a server started without the runtime's. */
function serverTime(clock: RuntimeClock | undefined): number {
  return clock?.now() ?? Date.now(); // wall clock: a server started without the runtime's
}

/** Integration time of a response being served, set by handle() around the Lambda call. */
const integrationMillis = new WeakMap<ServerResponse, number>();

/** Tells `onResponse` of the answer once it is sent, if the request named one of the API's stages. */
function tellResponse(
  api: RestApiSpec,
  onResponse: (api: RestApiSpec, response: ApiResponseFigures) => void,
  clock: RuntimeClock | undefined,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  const now = () => serverTime(clock);
  const receivedAt = now();
  const stage = new URL(request.url ?? '/', 'http://localhost').pathname.split('/')[1] ?? '';
  if (!api.stageNames.includes(stage)) return;
  response.once('finish', () => {
    const integrationLatencyMillis = integrationMillis.get(response);
    onResponse(api, {
      stage,
      status: response.statusCode,
      latencyMillis: now() - receivedAt,
      ...(integrationLatencyMillis !== undefined && { integrationLatencyMillis }),
    });
  });
}

/** What the Lambda proxy integration's event is built from: one request, its route and its caller. */
interface ProxyEventSource {
  readonly api: RestApiSpec;
  readonly route: RouteMatch;
  readonly request: IncomingMessage;
  readonly url: URL;
  readonly stage: string;
  /** The path below the stage. */
  readonly path: string;
  readonly httpMethod: string;
  readonly requestId: string;
  /** The signer of an AWS_IAM method. */
  readonly caller: { readonly accessKeyId: string; readonly userArn: string } | undefined;
  readonly body: Buffer;
  /** When the request was received, on the runtime's clock. */
  readonly receivedAt: Date;
}

/** The event a Lambda proxy integration receives (payload format 1.0), as API Gateway builds it. */
function lambdaProxyEvent(source: ProxyEventSource) {
  const { api, route, request, url, stage, path, httpMethod, requestId, caller, body } = source;
  const { headers, multiValueHeaders } = headerMaps(request);
  const apiKey = request.headers['x-api-key'];
  const query = queryMaps(url);
  return {
    resource: route.method.resourcePath,
    path,
    httpMethod,
    headers,
    multiValueHeaders,
    queryStringParameters: query.single,
    multiValueQueryStringParameters: query.multi,
    pathParameters: Object.keys(route.pathParameters).length > 0 ? route.pathParameters : null,
    stageVariables: null,
    requestContext: {
      accountId: api.accountId,
      apiId: api.apiId,
      resourceId: route.method.resourceId,
      resourcePath: route.method.resourcePath,
      httpMethod,
      requestId,
      extendedRequestId: requestId,
      path: `/${stage}${path}`,
      stage,
      protocol: `HTTP/${request.httpVersion}`,
      identity: {
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: request.headers['user-agent'] ?? null,
        apiKey: typeof apiKey === 'string' ? apiKey : null,
        apiKeyId: (typeof apiKey === 'string' && api.apiKeyIds?.[apiKey]) || null,
        ...(caller && {
          accountId: api.accountId,
          accessKey: caller.accessKeyId,
          caller: caller.accessKeyId,
          user: caller.accessKeyId,
          userArn: caller.userArn,
        }),
      },
      requestTime: source.receivedAt.toUTCString(),
      requestTimeEpoch: source.receivedAt.getTime(),
      domainName: request.headers.host ?? 'localhost',
      domainPrefix: (request.headers.host ?? 'localhost').split('.')[0],
    },
    body: body.length > 0 ? body.toString('utf8') : null,
    isBase64Encoded: false,
  };
}

/** An AWS_IAM method's verdict on the request (its signature, then execute-api:Invoke on `methodArn`). */
function iamVerdict(
  api: RestApiSpec,
  request: IncomingMessage,
  url: URL,
  body: Buffer,
  methodArn: string,
): Promise<IamMethodVerdict> {
  if (!api.authorizeIam) {
    return Promise.resolve({ ok: false, message: 'Missing Authentication Token', messageKey: 'message' });
  }
  const received = {
    method: (request.method ?? 'GET').toUpperCase(),
    rawPath: url.pathname,
    query: url.searchParams,
    headers: lowerCaseHeaders(request),
    body,
  };
  return api.authorizeIam(received, methodArn);
}

async function handle(
  api: RestApiSpec,
  throttle: ApiThrottle,
  options: RestApiServerOptions,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const [, stage = '', ...rest] = url.pathname.split('/');
  const path = `/${rest.join('/')}`;
  const httpMethod = (request.method ?? 'GET').toUpperCase();
  if (!api.stageNames.includes(stage)) {
    sendJson(response, 403, { message: 'Missing Authentication Token' });
    return;
  }
  const route = matchRoute(api.methods, httpMethod, path);
  if (route === 'no-resource' || route === 'no-method') {
    // API Gateway answers unknown resources and methods alike.
    sendJson(response, 403, { message: 'Missing Authentication Token' });
    return;
  }
  const apiKey = request.headers['x-api-key'];
  if (route.method.apiKeyRequired && (typeof apiKey !== 'string' || !api.apiKeys.includes(apiKey))) {
    sendJson(response, 403, { message: 'Forbidden' });
    return;
  }
  const integration = route.method.integration;
  const throttledRequest = { stage, method: route.method, apiKey };
  if (integration.type === 'mock') {
    if (throttled(throttle, options.clock, throttledRequest, response)) return;
    options.onMethodRequest?.(api);
    response.writeHead(integration.statusCode, integration.headers);
    response.end();
    return;
  }
  let body: Buffer;
  try {
    body = await readBody(request, MAX_PAYLOAD_BYTES);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    sendJson(response, 413, { message: 'Request Too Long' }, { connection: 'close' });
    return;
  }
  // The ARN API Gateway names the method by: execute-api:Invoke's resource and aws:SourceArn of
  // its Lambda invocation (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-control-access-using-iam-policies-to-invoke-api.html).
  const methodArn = `arn:aws:execute-api:${api.region}:${api.accountId}:${api.apiId}/${stage}/${httpMethod}${path}`;
  let caller: { readonly accessKeyId: string; readonly userArn: string } | undefined;
  if (route.method.authorizationType === 'AWS_IAM') {
    const verdict = await iamVerdict(api, request, url, body, methodArn);
    if (!verdict.ok) {
      sendJson(response, 403, { [verdict.messageKey]: verdict.message });
      return;
    }
    caller = verdict;
  }
  if (throttled(throttle, options.clock, throttledRequest, response)) return;
  options.onMethodRequest?.(api);
  const requestId = mintUuid();
  const event = lambdaProxyEvent({
    api,
    route,
    request,
    url,
    stage,
    path,
    httpMethod,
    requestId,
    caller,
    body,
    receivedAt: options.clock?.date() ?? new Date(), // wall clock: a server started without the runtime's
  });
  if (options.mayInvoke && !options.mayInvoke(integration.functionArn, methodArn)) {
    // API Gateway's answer when the function's policy refuses it ("Invalid permissions on Lambda
    // function" in the execution log): https://repost.aws/knowledge-center/api-gateway-rest-api-lambda-integrations
    options.onProblem(
      `API ${api.logicalId}: ${httpMethod} ${path}: the policy of ${integration.functionArn} does not let apigateway.amazonaws.com invoke it for ${methodArn} (500 Internal server error)`,
    );
    sendJson(
      response,
      500,
      { message: 'Internal server error' },
      { 'x-amzn-ErrorType': 'InternalServerErrorException' },
    );
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    // wall clock: an integration's own running time, as a function's timeout (lambda/host.ts)
    timer = setTimeout(() => resolve('timeout'), INTEGRATION_TIMEOUT_MILLIS);
  });
  const invokedAt = serverTime(options.clock);
  const result = await Promise.race([options.invoke(integration.functionArn, event), timeout]);
  clearTimeout(timer);
  integrationMillis.set(response, serverTime(options.clock) - invokedAt);
  const gatewayHeaders = { 'x-amzn-RequestId': requestId };
  if (result === 'timeout') {
    sendJson(response, 504, { message: 'Endpoint request timed out' }, gatewayHeaders);
    return;
  }
  if (!result.ok) {
    sendJson(response, 502, { message: 'Internal server error' }, gatewayHeaders);
    return;
  }
  const proxy = parseProxyResult(result.payload);
  if (!proxy) {
    options.onProblem(`API ${api.logicalId} ${httpMethod} ${path}: malformed Lambda proxy response`);
    sendJson(response, 502, { message: 'Internal server error' }, gatewayHeaders);
    return;
  }
  response.writeHead(proxy.statusCode, { ...gatewayHeaders, ...proxy.headers });
  response.end(proxy.body);
}

/** Validates a v1 proxy result; undefined when API Gateway would answer 502. */
export function parseProxyResult(
  payload: unknown,
): { statusCode: number; headers: Record<string, string | string[]>; body: Buffer } | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const { statusCode, headers, multiValueHeaders, body, isBase64Encoded } = payload as Record<
    string,
    unknown
  >;
  if (
    typeof statusCode !== 'number' ||
    !Number.isInteger(statusCode) ||
    statusCode < 100 ||
    statusCode > 599
  ) {
    return undefined;
  }
  if (body !== undefined && body !== null && typeof body !== 'string') return undefined;
  const merged: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries((headers as Record<string, unknown>) ?? {}))
    merged[name] = String(value);
  for (const [name, values] of Object.entries((multiValueHeaders as Record<string, unknown>) ?? {})) {
    if (Array.isArray(values)) merged[name] = values.map(String);
  }
  const text = typeof body === 'string' ? body : '';
  return {
    statusCode,
    headers: merged,
    body: Buffer.from(text, isBase64Encoded === true ? 'base64' : 'utf8'),
  };
}
