/**
 * The CloudWatch API's front door. CloudWatch answers three protocols and clients pick different
 * ones: `@aws-sdk/client-cloudwatch` 3.11xx and the AWS CLI (botocore 1.4x, which ranks JSON
 * first) speak AWS JSON 1.0 (`X-Amz-Target: GraniteServiceVersion20100801.<Op>`) in its
 * Query-compatible mode; other SDKs pick Smithy RPC v2 CBOR (`POST
 * /service/GraniteServiceVersion20100801/operation/<Op>`), the protocol CloudWatch's model lists
 * first. Both are served here on one port, over the same operations: they take and return plain objects,
 * with Date for timestamps (epoch seconds in JSON, CBOR tag 1 in CBOR). The legacy Query protocol
 * (form-encoded) is not served.
 *
 * Errors carry `x-amzn-query-error: <Code>;Sender`, so Query-compatible clients raise the named
 * exception (ResourceNotFound, InvalidParameterValueException...).
 *
 * Every request is first handed to `authorize` (the runtime's IAM: the caller's signature, then the
 * operation's action on its resources), which throws the CloudWatchError the caller gets.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { cbor, dateToTag } from '@smithy/core/cbor';
import { CLOCK_NOW_HEADER, type RuntimeClock } from '../clock';
import type { ReceivedRequest } from '../iam/identities';
import { AwsApiError } from '../protocol/aws-api-error';
import type { WireRequest } from '../protocol/aws-json-server';
import {
  BodyTooLargeError,
  type LoopbackServer,
  lowerCaseHeaders,
  readBody,
  startLoopbackServer,
} from '../protocol/http-server';

export const SERVICE_TARGET = 'GraniteServiceVersion20100801';
const NAMESPACE = 'com.amazonaws.cloudwatch';
const MAX_REQUEST_BYTES = 2 * 1024 * 1024;

export type CloudWatchBody = Record<string, unknown>;
export type CloudWatchOperation = (input: CloudWatchBody) => Promise<CloudWatchBody> | CloudWatchBody;

/**
 * An operation whose input is read by the SDK's field names (WireRequest: a field the SDK does not
 * have does not compile); its answer stays the wire's (timestamps as the protocol carries them).
 */
export function typedCloudWatchOperation<Input>(
  run: (input: WireRequest<Input>) => Promise<CloudWatchBody> | CloudWatchBody,
): CloudWatchOperation {
  return (input) => run(input as WireRequest<Input>);
}
/** Decides whether the request may run: throws the CloudWatchError its caller is answered with. */
export type CloudWatchAuthorizer = (
  operationName: string,
  input: CloudWatchBody,
  request: ReceivedRequest,
) => Promise<void> | void;

/**
 * An error answered with CloudWatch's error shape and its Query error code (the
 * `x-amzn-query-error` header the SDK reads): the runtime's one protocol error, AwsApiError.
 */
export class CloudWatchError extends AwsApiError {
  constructor(
    /** The error shape, e.g. InvalidParameterValueException. */
    readonly shape: string,
    /** The Query error code, e.g. InvalidParameterValue. */
    readonly code: string,
    message: string,
    readonly statusCode = 400,
  ) {
    super(`${NAMESPACE}#${shape}`, message, {
      statusCode,
      headers: { 'x-amzn-query-error': `${code};${statusCode >= 500 ? 'Receiver' : 'Sender'}` },
    });
  }

  static invalidParameter(message: string): CloudWatchError {
    return new CloudWatchError('InvalidParameterValueException', 'InvalidParameterValue', message);
  }

  static missingParameter(name: string): CloudWatchError {
    return new CloudWatchError(
      'MissingRequiredParameterException',
      'MissingParameter',
      `The parameter ${name} is required.`,
    );
  }

  static notFound(message: string): CloudWatchError {
    return new CloudWatchError('ResourceNotFound', 'ResourceNotFound', message, 404);
  }
}

type Protocol = 'json' | 'cbor';

export async function startCloudWatchServer(
  operations: Readonly<Record<string, CloudWatchOperation>>,
  options: {
    readonly onInternalError?: (error: unknown) => void;
    /** @default - every request runs */
    readonly authorize?: CloudWatchAuthorizer;
    /** The runtime's clock: a request holds it while it is served. @default - none */
    readonly clock?: RuntimeClock;
  } = {},
): Promise<LoopbackServer> {
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    const cborPath = /^\/service\/([^/]+)\/operation\/([^/?]+)/.exec(request.url ?? '');
    const protocol: Protocol = cborPath ? 'cbor' : 'json';
    const reply = (status: number, body: CloudWatchBody, answered: Record<string, string> = {}) => {
      // The clock's time, for readers of "the last hour" of the metrics stamped on it (CLOCK_NOW_HEADER).
      const headers = options.clock
        ? { ...answered, [CLOCK_NOW_HEADER]: String(options.clock.now()) }
        : answered;
      if (protocol === 'cbor') {
        response.writeHead(status, {
          ...headers,
          'content-type': 'application/cbor',
          'smithy-protocol': 'rpc-v2-cbor',
        });
        response.end(Buffer.from(cbor.serialize(toWire(body, 'cbor'))));
      } else {
        response.writeHead(status, { ...headers, 'content-type': 'application/x-amz-json-1.0' });
        response.end(JSON.stringify(toWire(body, 'json')));
      }
    };
    const operationName = cborPath
      ? decodeURIComponent(cborPath[2] ?? '')
      : String(request.headers['x-amz-target'] ?? '').replace(`${SERVICE_TARGET}.`, '');
    answer(operations, operationName, protocol, request, options.authorize).then(
      (result) => reply(200, result),
      (error: unknown) => {
        const failure =
          error instanceof CloudWatchError
            ? error
            : error instanceof BodyTooLargeError
              ? new CloudWatchError('RequestEntityTooLarge', 'RequestEntityTooLarge', error.message, 413)
              : undefined;
        if (!failure) options.onInternalError?.(error);
        const {
          errorType,
          message,
          statusCode,
          reply: answered,
        } = failure ??
        new CloudWatchError('InternalServiceFault', 'InternalServiceError', String(error), 500);
        reply(statusCode, { __type: errorType, message }, { ...answered.headers });
      },
    );
  };
  // Its CBOR path takes any content type: refuse what another site's page sends (http-server.ts).
  return startLoopbackServer(handler, {
    ...(options.clock && { clock: options.clock }),
    refusesCrossSite: true,
  });
}

async function answer(
  operations: Readonly<Record<string, CloudWatchOperation>>,
  operationName: string,
  protocol: Protocol,
  request: IncomingMessage,
  authorize: CloudWatchAuthorizer | undefined,
): Promise<CloudWatchBody> {
  const operation = Object.hasOwn(operations, operationName) ? operations[operationName] : undefined;
  if (request.method !== 'POST' || !operation) {
    request.resume();
    throw new CloudWatchError(
      'UnknownOperationException',
      'InvalidAction',
      `CloudWatch operation '${operationName || '(none)'}' is not supported by the local runtime ` +
        `(supported: ${Object.keys(operations).join(', ')}; protocols AWS JSON 1.0 and RPC v2 CBOR)`,
    );
  }
  const raw = await readBody(request, MAX_REQUEST_BYTES);
  let input: unknown;
  try {
    if (raw.length === 0) input = {};
    else if (protocol === 'cbor') input = cbor.deserialize(new Uint8Array(raw));
    else input = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new CloudWatchError(
      'SerializationException',
      'SerializationException',
      'The request body cannot be decoded',
    );
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new CloudWatchError(
      'SerializationException',
      'SerializationException',
      'The request body is not an object',
    );
  }
  const body = fromWire(input) as CloudWatchBody;
  const url = new URL(request.url ?? '/', 'http://localhost');
  await authorize?.(operationName, body, {
    method: 'POST',
    rawPath: url.pathname,
    query: url.searchParams,
    headers: lowerCaseHeaders(request),
    body: raw,
  });
  return operation(body);
}

/** Dates as the protocol writes timestamps; undefined members left out. */
function toWire(value: unknown, protocol: Protocol): unknown {
  if (value instanceof Date) return protocol === 'cbor' ? dateToTag(value) : value.getTime() / 1000;
  if (Array.isArray(value)) return value.map((item) => toWire(item, protocol));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, member]) => member !== undefined)
        .map(([name, member]) => [name, toWire(member, protocol)]),
    );
  }
  return value;
}

/** CBOR timestamps (tag 1) become epoch seconds, as JSON sends them. */
function fromWire(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fromWire);
  if (typeof value === 'object' && value !== null) {
    const tagged = value as { tag?: unknown; value?: unknown };
    if (tagged.tag === 1 && typeof tagged.value === 'number') return tagged.value;
    return Object.fromEntries(Object.entries(value).map(([name, member]) => [name, fromWire(member)]));
  }
  return value;
}

/** A timestamp parameter (epoch seconds, or an ISO 8601 string) as epoch millis. */
export function timestampParameter(input: CloudWatchBody, name: string, required = true): number | undefined {
  const value = input[name];
  if (value === undefined || value === null) {
    if (required) throw CloudWatchError.missingParameter(name);
    return undefined;
  }
  const millis =
    typeof value === 'number' ? value * 1000 : typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(millis)) throw CloudWatchError.invalidParameter(`${name} is not a timestamp`);
  return millis;
}
