/**
 * Lambda function URLs on local ports: payload format 2.0 events, the response inferred like
 * Lambda does (a result with statusCode is a full response; anything else is a 200 JSON body).
 * Who may call is IAM's question (the spec's authorize): AuthType AWS_IAM needs a SigV4 signature
 * of a credential the local account knows, and the caller's policies or the function's resource
 * policy must allow lambda:InvokeFunctionUrl and lambda:InvokeFunction; AuthType NONE's caller is
 * anonymous, which only the function's policy can allow. A refusal is Lambda's: 403 Forbidden
 * (https://docs.aws.amazon.com/lambda/latest/dg/urls-auth.html).
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RuntimeClock } from '../clock';
import type { ReceivedRequest } from '../iam/identities';
import { mintUuid } from '../minted-ids';
import {
  BodyTooLargeError,
  lowerCaseHeaders,
  type RunningServer,
  readBody,
  startLoopbackServer,
} from '../protocol/http-server';
import { RequestTooLargeError } from './errors';
import type { InvocationResult } from './host';
import { MAX_SYNC_REQUEST_BYTES } from './limits';

export interface FunctionUrlSpec {
  readonly logicalId: string;
  readonly functionArn: string;
  readonly authType: 'NONE' | 'AWS_IAM';
  readonly accountId: string;
  /** May the request's caller invoke the function through its URL? */
  readonly authorize: (request: ReceivedRequest) => Promise<FunctionUrlCaller | undefined>;
}

/** Who called, as the event's requestContext.authorizer.iam tells it; `anonymous` for AuthType NONE. */
export type FunctionUrlCaller =
  | { readonly kind: 'anonymous' }
  | {
      readonly kind: 'iam';
      readonly accessKey: string;
      readonly accountId: string;
      readonly callerId: string;
      readonly userArn: string;
      readonly userId: string;
    };

const TEXT_TYPES = /^(text\/|application\/(json|xml|x-www-form-urlencoded|javascript)|.*\+json|.*\+xml)/i;

/** A URL server is created (and listening) before the template is resolved, so its URL is known. */
export interface FunctionUrlServer extends RunningServer {
  readonly url: string;
  /** Attach the function once the Lambda host knows it. */
  serve(spec: FunctionUrlSpec, invoke: (arn: string, event: unknown) => Promise<InvocationResult>): void;
}

export async function startFunctionUrlServer(
  onProblem: (message: string) => void,
  clock?: RuntimeClock,
): Promise<FunctionUrlServer> {
  let route:
    | { spec: FunctionUrlSpec; invoke: (arn: string, event: unknown) => Promise<InvocationResult> }
    | undefined;
  const server = await startLoopbackServer(
    (request, response) => {
      if (!route) {
        sendJson(response, 503, { Message: 'Function URL not ready' });
        return;
      }
      const { spec, invoke } = route;
      // wall clock: a server started without the runtime's
      handle(spec, invoke, request, response, clock?.date() ?? new Date()).catch((error: Error) => {
        onProblem(`function URL ${spec.logicalId}: ${error.message}`);
        if (!response.headersSent) sendJson(response, 502, { Message: 'Internal Server Error' });
      });
    },
    { ...(clock && { clock }) },
  );
  return {
    endpoint: server.endpoint,
    url: `${server.endpoint}/`,
    serve: (spec, invoke) => {
      route = { spec, invoke };
    },
    stop: () => server.stop(),
  };
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

async function handle(
  spec: FunctionUrlSpec,
  invoke: (arn: string, event: unknown) => Promise<InvocationResult>,
  request: IncomingMessage,
  response: ServerResponse,
  now: Date,
): Promise<void> {
  let body: Buffer;
  try {
    body = await readBody(request, MAX_SYNC_REQUEST_BYTES);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    sendJson(
      response,
      413,
      { Message: new RequestTooLargeError(MAX_SYNC_REQUEST_BYTES).message },
      { connection: 'close' },
    );
    return;
  }
  const rawUrl = request.url ?? '/';
  const queryIndex = rawUrl.indexOf('?');
  const rawPath = queryIndex >= 0 ? rawUrl.slice(0, queryIndex) : rawUrl;
  const rawQueryString = queryIndex >= 0 ? rawUrl.slice(queryIndex + 1) : '';
  const caller = await spec.authorize({
    method: (request.method ?? 'GET').toUpperCase(),
    rawPath,
    query: new URLSearchParams(rawQueryString),
    headers: lowerCaseHeaders(request),
    body,
  });
  if (caller === undefined) {
    sendJson(response, 403, { Message: 'Forbidden' });
    return;
  }
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    if (name === 'cookie') {
      cookies.push(...String(value).split(/;\s*/));
      continue;
    }
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const queryStringParameters: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(rawQueryString)) {
    queryStringParameters[key] =
      key in queryStringParameters ? `${queryStringParameters[key]},${value}` : value;
  }
  const contentType = String(request.headers['content-type'] ?? '');
  const isText = body.length === 0 || contentType === '' || TEXT_TYPES.test(contentType);
  const requestId = mintUuid();
  const host = String(request.headers.host ?? 'localhost');
  const event = {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(Object.keys(queryStringParameters).length > 0 ? { queryStringParameters } : {}),
    requestContext: {
      accountId: caller.kind === 'iam' ? caller.accountId : 'anonymous',
      apiId: spec.logicalId.toLowerCase(),
      domainName: host,
      domainPrefix: host.split('.')[0],
      http: {
        method: (request.method ?? 'GET').toUpperCase(),
        path: rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: String(request.headers['user-agent'] ?? ''),
      },
      requestId,
      routeKey: '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
      ...(caller.kind === 'iam'
        ? {
            authorizer: {
              iam: {
                accessKey: caller.accessKey,
                accountId: caller.accountId,
                callerId: caller.callerId,
                userArn: caller.userArn,
                userId: caller.userId,
              },
            },
          }
        : {}),
    },
    ...(body.length > 0 ? { body: isText ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: !isText,
  };
  const result = await invoke(spec.functionArn, event);
  if (!result.ok) {
    sendJson(response, 502, { Message: 'Internal Server Error' });
    return;
  }
  const reply = inferResponse(result.payload);
  response.writeHead(reply.statusCode, { 'x-amzn-RequestId': requestId, ...reply.headers });
  response.end(reply.body);
}

/** Lambda's function URL response inference (payload format 2.0). */
export function inferResponse(payload: unknown): {
  statusCode: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
} {
  if (typeof payload === 'object' && payload !== null && 'statusCode' in payload) {
    const { statusCode, headers, body, isBase64Encoded, cookies } = payload as Record<string, unknown>;
    const merged: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries((headers as Record<string, unknown>) ?? {}))
      merged[name] = String(value);
    if (Array.isArray(cookies) && cookies.length > 0) merged['set-cookie'] = cookies.map(String);
    const text =
      typeof body === 'string' ? body : body === undefined || body === null ? '' : JSON.stringify(body);
    return {
      statusCode: Number(statusCode),
      headers: merged,
      body: Buffer.from(text, isBase64Encoded === true ? 'base64' : 'utf8'),
    };
  }
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload)),
  };
}
