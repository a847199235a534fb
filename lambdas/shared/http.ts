import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { describeError } from './errors';
import { annotateTrace, type Observability } from './observability';
import { type ErrorResponseBody, type FieldError } from './validation';

/** Header a client may set to trace its request through the system. */
export const CORRELATION_ID_HEADER = 'X-Correlation-Id';
/** What a client-supplied correlation id may be (else the system makes its own). */
export const CORRELATION_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}

export function errorResponse(
  statusCode: number,
  message: string,
  errors?: readonly FieldError[],
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  const body: ErrorResponseBody = errors === undefined ? { message } : { message, errors };
  return jsonResponse(statusCode, body, headers);
}

/** 500 without internals: the correlation id lets an operator find the logged cause. */
export function internalErrorResponse(correlationId: string): APIGatewayProxyResult {
  return jsonResponse(
    500,
    { message: 'Internal error', correlationId },
    { ...browserOriginHeaders(), [CORRELATION_ID_HEADER]: correlationId },
  );
}

/** Case-insensitive header lookup (API Gateway keeps the client's casing). */
export function headerValue(event: Pick<APIGatewayProxyEvent, 'headers'>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted && value !== undefined) {
      return value;
    }
  }
  return undefined;
}

/** The client's correlation id when it sent a well-formed one, else the API Gateway request id. */
export function correlationIdOf(event: APIGatewayProxyEvent, fallback: string): string {
  const supplied = headerValue(event, CORRELATION_ID_HEADER);
  if (supplied !== undefined && CORRELATION_ID_PATTERN.test(supplied)) {
    return supplied;
  }
  return event.requestContext?.requestId || fallback;
}

/**
 * Location of a created resource. API Gateway's requestContext.path includes the stage or base
 * path (e.g. /prod/orders), so the header resolves correctly behind any deployment prefix.
 */
export function locationOf(event: APIGatewayProxyEvent, collectionRoute: string, id: string): string {
  const requestPath = event.requestContext?.path || event.path || collectionRoute;
  const base = requestPath.endsWith('/') ? requestPath.slice(0, -1) : requestPath;
  return `${base}/${encodeURIComponent(id)}`;
}

/**
 * The browser origin an API's answers are readable from (CORS), set by the construct that exposes
 * the routes to a browser page (the operator console); unset, answers carry no CORS header.
 */
export const BROWSER_ORIGIN_ENV = 'BROWSER_ORIGIN';

/** The headers a browser page needs to read answers: its one allowed origin, and what it may see. */
export function browserOriginHeaders(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const origin = env[BROWSER_ORIGIN_ENV];
  if (origin === undefined || origin === '') return {};
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Expose-Headers': `${CORRELATION_ID_HEADER}, Retry-After`,
    Vary: 'Origin',
  };
}

/** What every API handler needs per request: its correlation id, a logger carrying it, and the header echoing it. */
export interface ApiRequestScope {
  readonly correlationId: string;
  readonly log: Logger;
  readonly echoHeaders: Readonly<Record<string, string>>;
}

/** Also annotates the invocation's trace with the correlation id, so a client's id finds the trace. */
export function apiRequestScope(
  event: APIGatewayProxyEvent,
  context: Context,
  observability: Pick<Observability, 'logger' | 'tracer'>,
): ApiRequestScope {
  const correlationId = correlationIdOf(event, context.awsRequestId);
  // A child per invocation keeps keys from leaking between concurrent in-process invocations.
  const log = observability.logger.createChild({ persistentKeys: { correlationId } });
  log.addContext(context);
  annotateTrace(observability.tracer, { correlationId });
  return {
    correlationId,
    log,
    echoHeaders: { ...browserOriginHeaders(), [CORRELATION_ID_HEADER]: correlationId },
  };
}

/** Logs an error nobody planned for, with its stack, and answers 500 naming only the correlation id. */
export function unexpectedErrorResponse(
  scope: Pick<ApiRequestScope, 'correlationId' | 'log'>,
  message: string,
  error: unknown,
): APIGatewayProxyResult {
  scope.log.error(message, { error: describeError(error), stack: (error as Error | undefined)?.stack });
  return internalErrorResponse(scope.correlationId);
}
