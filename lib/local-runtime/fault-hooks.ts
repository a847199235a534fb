/**
 * Fault hooks: optional points where a test harness (the chaos campaign, lib/chaos/) can disturb
 * the local runtime at its infrastructure boundary, the way a network, a sandbox crash or a second
 * deployment would, without any switch in the handlers. Every hook is off by default, and a
 * runtime started without `faults` behaves exactly as one that never heard of them.
 */

import { request as httpRequest } from 'node:http';
import type { Message } from '@aws-sdk/client-sqs';
import { ACTIVITY_HEADER, type RuntimeClock } from './clock';
import type { InvocationObserver } from './lambda/host';
import { BodyTooLargeError, type RunningServer, readBody, startLoopbackServer } from './protocol/http-server';

/** An HTTP request as the interceptor sees it (body as text: every intercepted API speaks JSON). */
export interface InterceptedRequest {
  readonly method: string;
  /** Path and query string, e.g. `/payments/charges`. */
  readonly path: string;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface InterceptedReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Decides what the caller gets: `forward()` sends the request on and resolves with the real reply;
 * the interceptor may instead answer itself, wait before or after forwarding, or return 'drop' to
 * close the connection without an answer.
 */
export type HttpInterceptor = (
  request: InterceptedRequest,
  forward: () => Promise<InterceptedReply>,
) => Promise<InterceptedReply | 'drop'>;

export interface SqsDelivery {
  /** Logical id of the event source mapping (a replica's mapping carries the replica suffix). */
  readonly mappingLogicalId: string;
  readonly functionLogicalId: string;
  readonly message: Message;
}

/** The local AWS services whose API calls by functions the awsApi hook can intercept. */
export const AWS_API_SERVICES = {
  dynamodb: 'DYNAMODB',
  sqs: 'SQS',
  sns: 'SNS',
  eventbridge: 'EVENTBRIDGE',
} as const;
export type AwsApiService = keyof typeof AWS_API_SERVICES;

export interface FaultHooks {
  /** Every request to a Lambda function URL passes through this. @default - none */
  readonly functionUrl?: HttpInterceptor;
  /** Every Step Functions API request made by a function passes through this. @default - none */
  readonly stepFunctionsApi?: HttpInterceptor;
  /**
   * Per local AWS service: every API request a function makes to it (AWS_ENDPOINT_URL_<SERVICE> of
   * the sandboxes) passes through the interceptor, which may answer an error itself (a 500, a
   * partial failure), hold the reply, or forward. The runtime's own calls (event sources, stream
   * pollers, rule targets) and the target description's endpoints bypass it. Naming a service the
   * runtime does not serve is an error at start. @default - none
   */
  readonly awsApi?: Readonly<Partial<Record<AwsApiService, HttpInterceptor>>>;
  /**
   * Called as each invocation starts; a returned function is called with the result when it ends.
   * @default - none
   */
  readonly onInvocation?: InvocationObserver;
  /**
   * Per message received by an SQS event source: milliseconds after which the same message (same
   * id and receipt handle) is delivered once more in an invocation of its own, as SQS's
   * at-least-once delivery may do; undefined delivers it once. @default - none
   */
  readonly duplicateDelivery?: (delivery: SqsDelivery) => number | undefined;
  /**
   * Extra copies of functions, by logical id: each copy has its own sandboxes and concurrency
   * limit, and every SQS event source mapping and schedule/event rule targeting the function also
   * feeds each copy (e.g. two supervisors each with reserved concurrency 1). @default - none
   */
  readonly functionReplicas?: Readonly<Record<string, number>>;
  /**
   * Milliseconds added to the clock (Date) inside the sandboxes of these functions, by logical id
   * (copies included). Timers are not affected. @default - none
   */
  readonly clockOffsetMillis?: Readonly<Record<string, number>>;
}

/** Suffix of the n-th copy of a function (n >= 1), in logical ids and names. */
export function replicaSuffix(replica: number): string {
  return `Replica${replica}`;
}

const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

/** The largest request of the endpoints a proxy stands in front of (function URLs: 6 MB). */
const MAX_PROXIED_REQUEST_BYTES = 6 * 1024 * 1024;

/**
 * An HTTP proxy in front of `targetBaseUrl` that lets the interceptor see and shape every
 * exchange. Used only when a hook asks for it, so the unhooked path has no extra hop.
 */
export async function startInterceptingProxy(
  targetBaseUrl: string,
  interceptor: HttpInterceptor,
  onProblem: (message: string) => void,
  clock?: RuntimeClock,
): Promise<RunningServer> {
  const base = targetBaseUrl.replace(/\/+$/, '');
  return startLoopbackServer(
    (incoming, outgoing) => {
      void (async () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(incoming.headers)) {
          if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
        }
        const request: InterceptedRequest = {
          method: incoming.method ?? 'GET',
          path: incoming.url ?? '/',
          headers,
          body: (await readBody(incoming, MAX_PROXIED_REQUEST_BYTES)).toString('utf8'),
        };
        // Host as the caller sent it: the caller signed it (SigV4), and the target verifies it. (fetch
        // would set the target's own.)
        const forwarding = clock?.currentActivity();
        const forward = (): Promise<InterceptedReply> =>
          new Promise((resolve, reject) => {
            const url = new URL(`${base}${request.path}`);
            const body =
              request.method === 'GET' || request.method === 'HEAD' ? undefined : Buffer.from(request.body);
            const sent = httpRequest(
              url,
              {
                method: request.method,
                headers: {
                  ...Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name))),
                  ...(headers.host ? { host: headers.host } : {}),
                  ...(body ? { 'content-length': String(body.length) } : {}),
                  // The proxy's own hold is the caller now: the target parks it while it serves (a
                  // function that waits on the clock), as the proxy parked the original caller.
                  ...(forwarding && { [ACTIVITY_HEADER]: forwarding.id }),
                },
              },
              (response) => {
                const chunks: Buffer[] = [];
                response.on('data', (chunk: Buffer) => chunks.push(chunk));
                response.on('error', reject);
                response.on('end', () => {
                  const replyHeaders: Record<string, string> = {};
                  for (const [name, value] of Object.entries(response.headers)) {
                    if (value !== undefined && !HOP_BY_HOP.has(name))
                      replyHeaders[name] = Array.isArray(value) ? value.join(',') : value;
                  }
                  resolve({
                    status: response.statusCode ?? 502,
                    headers: replyHeaders,
                    body: Buffer.concat(chunks).toString('utf8'),
                  });
                });
              },
            );
            sent.on('error', reject);
            sent.end(body);
          });
        const reply = await interceptor(request, forward);
        if (reply === 'drop') {
          incoming.socket.destroy();
          return;
        }
        // The caller may have given up meanwhile (its own timeout): nothing left to answer.
        if (outgoing.destroyed) return;
        outgoing.writeHead(reply.status, reply.headers);
        outgoing.end(reply.body);
      })().catch((error: Error) => {
        const tooLarge = error instanceof BodyTooLargeError;
        if (!tooLarge) onProblem(`fault proxy for ${base}: ${error.message}`);
        if (outgoing.headersSent || outgoing.destroyed) return;
        outgoing.writeHead(tooLarge ? 413 : 502, {
          'content-type': 'application/json',
          ...(tooLarge ? { connection: 'close' } : {}),
        });
        outgoing.end(
          JSON.stringify({ message: tooLarge ? error.message : 'fault proxy could not reach the target' }),
        );
      });
    },
    { ...(clock && { clock }) },
  );
}
