/**
 * A loopback HTTP server that plays a Lambda function URL: each request becomes a payload-format
 * 2.0 event for the handler, and the handler's result becomes the HTTP response, so tests call a
 * handler over real HTTP the way an agent calls a remote service on AWS.
 *
 * With `requireSigV4` it also plays AuthType AWS_IAM: a request whose SigV4 signature (service
 * 'lambda') does not verify is refused with 403 before the handler runs.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import type { Context, LambdaFunctionURLEvent, LambdaFunctionURLResult } from 'aws-lambda';
import { readBody, startLoopbackServer } from '../../lib/local-runtime/protocol/http-server';

/** Lambda's invocation payload limit, which a function URL request body counts against. */
const MAX_REQUEST_BYTES = 6 * 1024 * 1024;

export type FunctionUrlHandler = (
  event: LambdaFunctionURLEvent,
  context: Context,
) => Promise<LambdaFunctionURLResult | string | undefined>;

export interface ServedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Epoch millis when the request arrived. */
  readonly receivedAt: number;
  /** Status sent back, once answered (undefined while the handler runs). */
  status?: number;
  /** What the handler threw, if it threw (the client only sees a bare 502, as on AWS). */
  handlerError?: string;
}

export interface FunctionUrlServer {
  readonly url: string;
  readonly requests: ServedRequest[];
  /** Resolves once every handler invocation started so far has returned. */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

export interface FunctionUrlServerOptions {
  readonly functionName?: string;
  /** Reject requests whose SigV4 signature does not verify against these credentials. */
  readonly requireSigV4?: {
    readonly region: string;
    readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  };
}

/** A Lambda context good enough for handlers and Powertools (remaining time counts down). */
export function fakeLambdaContext(functionName: string, timeoutMillis = 60_000): Context {
  const deadline = Date.now() + timeoutMillis;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '128',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'test',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function singleHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  return headers;
}

function toEvent(
  req: IncomingMessage,
  headers: Record<string, string>,
  body: Buffer,
): LambdaFunctionURLEvent {
  const url = new URL(req.url ?? '/', 'http://function-url.local');
  const isText = /json|text|xml|x-www-form-urlencoded/.test(headers['content-type'] ?? 'application/json');
  const now = new Date();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    headers,
    queryStringParameters: url.search ? Object.fromEntries(url.searchParams) : undefined,
    requestContext: {
      accountId: 'anonymous',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    body: body.length === 0 ? undefined : isText ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: body.length > 0 && !isText,
  };
}

/** Verifies a SigV4 Authorization header by re-signing the request as received. */
async function verifySigV4(
  req: IncomingMessage,
  headers: Record<string, string>,
  body: Buffer,
  options: NonNullable<FunctionUrlServerOptions['requireSigV4']>,
): Promise<string | undefined> {
  const authorization = headers.authorization;
  const amzDate = headers['x-amz-date'];
  if (!authorization || !amzDate) return 'missing SigV4 Authorization or X-Amz-Date header';
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';') ?? [];
  if (!/Credential=[^/]+\/\d{8}\/[^/]+\/lambda\/aws4_request/.test(authorization)) {
    return 'signature is not scoped to service lambda';
  }
  const url = new URL(req.url ?? '/', 'http://function-url.local');
  const signer = new SignatureV4({
    service: 'lambda',
    region: options.region,
    credentials: options.credentials,
    sha256: Sha256,
  });
  const signingDate = new Date(
    amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
  );
  const resigned = await signer.sign(
    {
      method: req.method ?? 'GET',
      protocol: 'http:',
      hostname: (headers.host ?? '').split(':')[0] ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: Object.fromEntries(signedHeaders.map((name) => [name, headers[name] ?? ''])),
      body: body.toString('utf8'),
    },
    { signingDate },
  );
  return resigned.headers.authorization === authorization ? undefined : 'signature does not match';
}

export async function startFunctionUrlServer(
  handler: FunctionUrlHandler,
  options: FunctionUrlServerOptions = {},
): Promise<FunctionUrlServer> {
  const requests: ServedRequest[] = [];
  const inFlight = new Set<Promise<void>>();
  const functionName = options.functionName ?? 'function-url-handler';

  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const receivedAt = Date.now();
    const headers = singleHeaders(req);
    const body = await readBody(req, MAX_REQUEST_BYTES);
    const served: ServedRequest = {
      method: req.method ?? 'GET',
      path: new URL(req.url ?? '/', 'http://function-url.local').pathname,
      headers,
      body: body.toString('utf8'),
      receivedAt,
    };
    requests.push(served);
    const answer = (
      status: number,
      responseHeaders: Record<string, string>,
      responseBody: string | Buffer,
    ): void => {
      served.status = status;
      if (res.destroyed || res.writableEnded) return;
      res.writeHead(status, responseHeaders);
      res.end(responseBody);
    };
    if (options.requireSigV4) {
      const problem = await verifySigV4(req, headers, body, options.requireSigV4);
      if (problem) {
        answer(
          403,
          { 'content-type': 'application/json' },
          JSON.stringify({ Message: `Forbidden: ${problem}` }),
        );
        return;
      }
    }
    let result: LambdaFunctionURLResult | string | undefined;
    try {
      result = await handler(toEvent(req, headers, body), fakeLambdaContext(functionName));
    } catch (error) {
      // What a function URL answers when the function throws: a bare 502, no details.
      served.handlerError = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      answer(
        502,
        { 'content-type': 'application/json' },
        JSON.stringify({ Message: 'Internal Server Error' }),
      );
      return;
    }
    if (typeof result === 'string' || result === undefined || result.statusCode === undefined) {
      // Function URL rule: a result without statusCode is a 200 JSON body.
      answer(
        200,
        { 'content-type': 'application/json' },
        typeof result === 'string' ? result : JSON.stringify(result ?? null),
      );
      return;
    }
    const responseHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(result.headers ?? {})) responseHeaders[name] = String(value);
    const responseBody = result.body ?? '';
    answer(
      result.statusCode,
      responseHeaders,
      result.isBase64Encoded ? Buffer.from(responseBody, 'base64') : responseBody,
    );
  };

  const server = await startLoopbackServer((req, res) => {
    const done = serve(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
  });
  return {
    url: server.endpoint,
    requests,
    settled: async () => {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    stop: () => server.stop(),
  };
}
