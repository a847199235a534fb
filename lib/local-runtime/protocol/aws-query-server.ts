/**
 * The loopback server speaking the AWS Query protocol (form-encoded POST with `Action=<Operation>`,
 * XML answers `<OpResponse><OpResult>...</OpResult><ResponseMetadata/></OpResponse>`, errors as
 * `<ErrorResponse><Error><Type/><Code/><Message/></Error>`), for the services whose SDK clients
 * still speak it (SNS). The SDK and the AWS CLI parse its errors into their named exceptions by Code.
 *
 * A form-encoded POST is what a web page's form can send anywhere without a CORS preflight, so a
 * request from another site's page (its Origin or Sec-Fetch-Site, http-server.ts crossSiteReason)
 * is refused (403) before it is read; the SDKs and the CLI send neither header.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RuntimeClock } from '../clock';
import type { ReceivedRequest } from '../iam/identities';
import { mintUuid } from '../minted-ids';
import { AwsApiError } from './aws-api-error';
import {
  BodyTooLargeError,
  type LoopbackServer,
  lowerCaseHeaders,
  readBody,
  startLoopbackServer,
} from './http-server';

/**
 * Request parameters, nested at their dots: `A.entry.1.Name=x` is `{ A: { entry: { 1: { Name: 'x' } } } }`
 * (read lists and maps with queryList and queryMap).
 */
export interface QueryParameters {
  readonly [name: string]: string | QueryParameters;
}

/** An operation: its result's members (rendered as XML), or undefined for an answer without a result. */
export type QueryOperation = (
  parameters: QueryParameters,
) => Promise<object | undefined> | object | undefined;

/**
 * An operation whose answer is the SDK's output type (a type-only import of `@aws-sdk/client-*`):
 * a member the SDK does not have, or one of the wrong type, does not compile. Its parameters stay
 * the protocol's flattened names (`Attributes.entry.1.key`), which the SDK's input types do not name.
 */
export function typedQueryOperation<Output extends object | undefined>(
  run: (parameters: QueryParameters) => Promise<Output> | Output,
): QueryOperation {
  return run;
}

export interface AwsQueryServerOptions {
  /** The runtime's clock: a request holds it while it is served. @default - none (as on the wall clock) */
  readonly clock?: RuntimeClock;
  /** The XML namespace of the service's answers, e.g. http://sns.amazonaws.com/doc/2010-03-31/. */
  readonly xmlNamespace: string;
  /** Receives unexpected errors (answered 500 InternalError). @default - none */
  readonly onInternalError?: (error: unknown) => void;
  /**
   * Decides whether a request may run (the runtime's IAM): throws the AwsApiError its caller gets.
   * @default - every request runs
   */
  readonly authorize?: (
    action: string,
    parameters: QueryParameters,
    received: ReceivedRequest,
  ) => Promise<void>;
}

/** Larger than any Query request SNS accepts (256 KiB messages, 10 to a batch, form-encoded). */
const MAX_REQUEST_BYTES = 8 * 1024 * 1024;

export async function startAwsQueryServer(
  serviceName: string,
  operations: Readonly<Record<string, QueryOperation>>,
  options: AwsQueryServerOptions,
): Promise<LoopbackServer> {
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    const requestId = mintUuid();
    const reply = (status: number, xml: string, headers: Readonly<Record<string, string>> = {}) => {
      response.writeHead(status, { ...headers, 'content-type': 'text/xml', 'x-amzn-requestid': requestId });
      response.end(`<?xml version="1.0"?>\n${xml}`);
    };
    const fail = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
      reply(
        status,
        `<ErrorResponse xmlns="${options.xmlNamespace}"><Error><Type>${status >= 500 ? 'Receiver' : 'Sender'}</Type>` +
          `<Code>${escapeXml(code)}</Code><Message>${escapeXml(message)}</Message></Error>` +
          `<RequestId>${requestId}</RequestId></ErrorResponse>`,
        headers,
      );
    answer(serviceName, operations, request, options.authorize).then(
      ({ action, result }) =>
        reply(
          200,
          `<${action}Response xmlns="${options.xmlNamespace}">` +
            (result === undefined ? '' : `<${action}Result>${toXml(result)}</${action}Result>`) +
            `<ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></${action}Response>`,
        ),
      (error: unknown) => {
        if (error instanceof AwsApiError) {
          fail(error.reply.statusCode ?? 400, error.errorType, error.message, { ...error.reply.headers });
        } else if (error instanceof BodyTooLargeError) {
          fail(413, 'RequestEntityTooLarge', error.message, { connection: 'close' });
        } else {
          options.onInternalError?.(error);
          fail(500, 'InternalError', (error as Error).message ?? String(error));
        }
      },
    );
  };
  // A browser form can POST form-encoded bodies to any site without a preflight: refused.
  return startLoopbackServer(handler, {
    ...(options.clock && { clock: options.clock }),
    refusesCrossSite: true,
  });
}

async function answer(
  serviceName: string,
  operations: Readonly<Record<string, QueryOperation>>,
  request: IncomingMessage,
  authorize: AwsQueryServerOptions['authorize'],
): Promise<{ action: string; result: object | undefined }> {
  const raw = await readBody(request, MAX_REQUEST_BYTES);
  const body = raw.toString('utf8');
  const query = request.url?.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
  // GET with the parameters in the query string is Query protocol too (the CLI and SDKs POST).
  const flat = new URLSearchParams(request.method === 'POST' ? body : query);
  const action = flat.get('Action') ?? '';
  // Own properties only: an Action naming `constructor` or `toString` is not an operation.
  const operation = Object.hasOwn(operations, action) ? operations[action] : undefined;
  if (!operation) {
    throw new AwsApiError(
      'InvalidAction',
      `${serviceName} action '${action || '(none)'}' is not supported by the local runtime ` +
        `(supported: ${Object.keys(operations).join(', ')})`,
    );
  }
  const parameters = nestParameters(flat);
  const url = new URL(request.url ?? '/', 'http://localhost');
  await authorize?.(action, parameters, {
    method: request.method ?? 'POST',
    rawPath: url.pathname,
    query: url.searchParams,
    headers: lowerCaseHeaders(request),
    body: raw,
  });
  return { action, result: await operation(parameters) };
}

/** `A.b.1=x` -> `{ A: { b: { 1: 'x' } } }`. */
export function nestParameters(flat: URLSearchParams): QueryParameters {
  const root: Record<string, unknown> = {};
  for (const [key, value] of flat) {
    if (key === 'Action' || key === 'Version') continue;
    const path = key.split('.');
    let node = root;
    for (const part of path.slice(0, -1)) {
      const next = node[part];
      if (typeof next === 'object' && next !== null) node = next as Record<string, unknown>;
      else node = node[part] = {};
    }
    node[path[path.length - 1] as string] = value;
  }
  return root as QueryParameters;
}

/** A string parameter (undefined when absent or not a plain value). */
export function queryString(parameters: QueryParameters, name: string): string | undefined {
  const value = parameters[name];
  return typeof value === 'string' ? value : undefined;
}

/** A list parameter `Name.member.N...`, in N order. */
export function queryList(parameters: QueryParameters, name: string): QueryParameters[] {
  const members = parameters[name];
  const byIndex = typeof members === 'object' ? members.member : undefined;
  if (typeof byIndex !== 'object') return [];
  return Object.entries(byIndex)
    .sort(([left], [right]) => Number(left) - Number(right))
    .map(([, member]) => (typeof member === 'object' ? member : {}));
}

/**
 * A map parameter `Name.entry.N.<key>` / `Name.entry.N.<value>` (key and value element names vary by
 * service: `key`/`value`, `Name`/`Value`); values may be structures.
 */
export function queryMap(
  parameters: QueryParameters,
  name: string,
  keyName: string,
  valueName: string,
): Record<string, string | QueryParameters> {
  const map = parameters[name];
  const entries = typeof map === 'object' ? map.entry : undefined;
  if (typeof entries !== 'object') return {};
  const result: Record<string, string | QueryParameters> = {};
  for (const entry of Object.values(entries)) {
    if (typeof entry !== 'object') continue;
    const key = entry[keyName];
    const value = entry[valueName];
    if (typeof key === 'string' && value !== undefined) result[key] = value;
  }
  return result;
}

/** Members as XML elements; arrays as `<member>` elements; undefined members left out. */
export function toXml(value: object): string {
  return Object.entries(value)
    .filter(([, member]) => member !== undefined)
    .map(([name, member]) => `<${name}>${valueXml(member)}</${name}>`)
    .join('');
}

function valueXml(value: unknown): string {
  if (Array.isArray(value)) return value.map((item) => `<member>${valueXml(item)}</member>`).join('');
  if (typeof value === 'object' && value !== null) return toXml(value);
  return escapeXml(String(value));
}

function escapeXml(text: string): string {
  return text.replace(
    /[<>&"']/g,
    (character) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot', "'": 'apos' }[character]};`,
  );
}
