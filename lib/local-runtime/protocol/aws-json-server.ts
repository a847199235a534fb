/**
 * The one loopback server speaking the AWS JSON protocol (POST, X-Amz-Target `<Prefix>.<Operation>`,
 * JSON body in and out, errors as HTTP 400 `{ __type, message }`), for the services the runtime
 * implements itself (EventBridge PutEvents, the Step Functions API). Handlers reach it through the
 * standard AWS_ENDPOINT_URL_<SERVICE> variables with the real SDK, which raises its typed exceptions.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RuntimeClock } from '../clock';
import type { ReceivedRequest } from '../iam/identities';
import { AwsApiError } from './aws-api-error';
import { BodyTooLargeError, type RunningServer, readBody, startLoopbackServer } from './http-server';

export type AwsJsonBody = Record<string, unknown>;
/**
 * `signal` aborts when the client goes away before the answer (a long poll given up, say);
 * `received` is the request as it arrived, for a service that checks its signature.
 */
export interface AwsJsonRequest {
  readonly signal: AbortSignal;
  readonly received: ReceivedRequest;
}
export type AwsJsonOperation = (
  body: AwsJsonBody,
  request: AwsJsonRequest,
) => Promise<AwsJsonBody> | AwsJsonBody;

/**
 * A request body as it arrives, named as the SDK names the request's fields: each may be missing or
 * of any type until the operation validates it, and a field the SDK does not have does not compile.
 */
export type WireRequest<T> = { readonly [K in keyof T]?: unknown };

/**
 * An operation typed with the SDK's own request and response types (type-only imports of
 * `@aws-sdk/client-*`): it reads the request by the SDK's field names and answers the SDK's output.
 */
export function typedOperation<Input, Output extends object>(
  run: (body: WireRequest<Input>, request: AwsJsonRequest) => Output | Promise<Output>,
): AwsJsonOperation {
  return async (body, request) => (await run(body as WireRequest<Input>, request)) as AwsJsonBody;
}

/**
 * An operation whose request is read by the SDK's field names, for a service whose answer on the
 * wire is not the SDK's output type (timestamps in epoch seconds, which the SDK turns into Dates).
 */
export function typedRequest<Input>(
  run: (body: WireRequest<Input>, request: AwsJsonRequest) => Promise<AwsJsonBody> | AwsJsonBody,
): AwsJsonOperation {
  return (body, request) => run(body as WireRequest<Input>, request);
}

/**
 * Above the largest request any of the runtime's JSON services accepts (AWS's own limits top out at
 * 1 MiB of payload), with room for JSON escaping.
 */
const DEFAULT_MAX_REQUEST_BYTES = 2 * 1024 * 1024;

export interface AwsJsonServerOptions {
  /** The runtime's clock: a request holds it while it is served. @default - none (as on the wall clock) */
  readonly clock?: RuntimeClock;
  /** Larger requests are refused before parsing. @default 2 MiB */
  readonly maxRequestBytes?: number;
  /** The X-Amz-Target prefix the service answers to, e.g. 'AWSStepFunctions.'. @default - any */
  readonly targetPrefix?: string;
  /**
   * Answers operations that are not in the table (a scripted test double records every call).
   * @default - UnknownOperationException naming the supported operations
   */
  readonly otherOperation?: (operationName: string, body: AwsJsonBody) => Promise<AwsJsonBody> | AwsJsonBody;
  /** Receives unexpected errors (answered 500 InternalFailure). @default - none */
  readonly onInternalError?: (error: unknown) => void;
  /**
   * Decides whether a parsed request may run (the runtime's IAM): throws the AwsApiError its caller
   * is answered with. @default - every request runs
   */
  readonly authorize?: (
    operationName: string,
    body: AwsJsonBody,
    received: ReceivedRequest,
  ) => Promise<void> | void;
}

export async function startAwsJsonServer(
  serviceName: string,
  operations: Readonly<Record<string, AwsJsonOperation>>,
  options: AwsJsonServerOptions = {},
): Promise<RunningServer> {
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    // The request's own content type (x-amz-json-1.0 or 1.1) is the one its SDK expects back.
    const contentType = String(request.headers['content-type'] ?? 'application/x-amz-json-1.1');
    const reply = (status: number, body: unknown, headers: Readonly<Record<string, string>> = {}) => {
      response.writeHead(status, { ...headers, 'content-type': contentType });
      response.end(JSON.stringify(body));
    };
    const clientGone = new AbortController();
    response.on('close', () => {
      if (!response.writableFinished) clientGone.abort();
    });
    answer(serviceName, operations, options, request, clientGone.signal).then(
      (result) => reply(200, result),
      (error: unknown) => {
        if (error instanceof AwsApiError) {
          reply(
            error.reply.statusCode ?? 400,
            { __type: error.errorType, [error.reply.messageKey ?? 'message']: error.message },
            error.reply.headers,
          );
        } else if (error instanceof BodyTooLargeError) {
          reply(413, { __type: 'RequestEntityTooLarge', message: error.message }, { connection: 'close' });
        } else {
          options.onInternalError?.(error);
          reply(500, { __type: 'InternalFailure', message: (error as Error).message ?? String(error) });
        }
      },
    );
  };
  return startLoopbackServer(handler, { ...(options.clock && { clock: options.clock }) });
}

async function answer(
  serviceName: string,
  operations: Readonly<Record<string, AwsJsonOperation>>,
  options: AwsJsonServerOptions,
  request: IncomingMessage,
  signal: AbortSignal,
): Promise<AwsJsonBody> {
  const target = String(request.headers['x-amz-target'] ?? '');
  const prefix = options.targetPrefix;
  if (request.method !== 'POST' || (prefix !== undefined && !target.startsWith(prefix))) {
    request.resume();
    throw new AwsApiError(
      'UnknownOperationException',
      `${serviceName} expects POST with X-Amz-Target ${prefix ?? '<Service>.'}<Operation>`,
    );
  }
  const operationName = target.slice(target.lastIndexOf('.') + 1);
  // Own properties only: a target naming `constructor` or `toString` is not an operation.
  const operation = Object.hasOwn(operations, operationName) ? operations[operationName] : undefined;
  if (!operation && !options.otherOperation) {
    request.resume();
    throw new AwsApiError(
      'UnknownOperationException',
      `${serviceName} operation '${operationName || '(none)'}' is not supported by the local runtime ` +
        `(supported: ${Object.keys(operations).join(', ')})`,
    );
  }
  const raw = await readBody(request, options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES);
  const text = raw.toString('utf8');
  let body: unknown;
  try {
    body = text === '' ? {} : JSON.parse(text);
  } catch {
    throw new AwsApiError('SerializationException', 'Request body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AwsApiError('SerializationException', 'Request body must be a JSON object');
  }
  const url = new URL(request.url ?? '/', 'http://localhost');
  const received: ReceivedRequest = {
    method: request.method,
    rawPath: url.pathname,
    query: url.searchParams,
    headers: Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => [
        name,
        Array.isArray(value) ? value.join(',') : String(value ?? ''),
      ]),
    ),
    body: raw,
  };
  await options.authorize?.(operationName, body as AwsJsonBody, received);
  return operation
    ? operation(body as AwsJsonBody, { signal, received })
    : (options.otherOperation as NonNullable<AwsJsonServerOptions['otherOperation']>)(
        operationName,
        body as AwsJsonBody,
      );
}

/**
 * Endpoint for every AWS service the runtime does not emulate (AWS_ENDPOINT_URL): a handler calling
 * one gets a clear error naming the service, and nothing ever reaches a real account.
 */
export async function startUnsupportedServiceServer(clock?: RuntimeClock): Promise<RunningServer> {
  return startLoopbackServer(
    (request, response) => {
      request.resume();
      request.on('end', () => {
        const target = String(request.headers['x-amz-target'] ?? '');
        const authorization = String(request.headers.authorization ?? '');
        const service = /Credential=[^/]+\/[^/]+\/[^/]+\/([^/]+)\//.exec(authorization)?.[1] ?? 'unknown';
        const message = `The local runtime does not emulate the AWS service '${service}'${target ? ` (${target})` : ''}`;
        response.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' });
        response.end(JSON.stringify({ __type: 'UnsupportedOperation', message, Message: message }));
      });
    },
    { ...(clock && { clock }) },
  );
}
