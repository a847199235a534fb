/**
 * The loopback HTTP servers of the local runtime: one way to listen and to close, one guard against
 * DNS rebinding, one request body reader with a size limit. Every server the runtime starts (REST
 * APIs, function URLs, the AWS JSON protocol services, fault proxies, the unsupported-service
 * endpoint, and the emulators it listens for) goes through `listen`.
 */
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { ACTIVITY_HEADER, CALL_HEADER, type ClockActivity, type RuntimeClock } from '../clock';

export interface RunningServer {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** Host names a request to a loopback server may be addressed to (any port). */
const LOOPBACK_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i;

/**
 * Whether a Host header names the loopback interface. A web page can make a browser send requests
 * to 127.0.0.1 under a name its attacker controls (DNS rebinding); such requests carry that name in
 * Host, so anything but a loopback name is refused.
 */
export function isLoopbackHost(host: string | undefined): boolean {
  return host !== undefined && LOOPBACK_HOST.test(host);
}

/** The names of the loopback interface, as a Host or an Origin may carry them. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'] as const;

/**
 * Why a request comes from another site's page, if it does: a browser names the page's origin
 * (Origin) and, in modern browsers, how it relates to the target (Sec-Fetch-Site). A request is
 * same-origin only when its Origin is a loopback name at the port the request arrived on; one with
 * no Origin and no Sec-Fetch-Site is not a browser's cross-site request (the SDKs and the AWS CLI
 * send neither). A page cannot forge these headers.
 */
export function crossSiteReason(request: IncomingMessage): string | undefined {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `Sec-Fetch-Site '${site}'`;
  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  const port = request.socket.localPort;
  const own = LOOPBACK_NAMES.some((name) => origin.toLowerCase() === `http://${name}:${port}`);
  return own ? undefined : `Origin '${origin}'`;
}

function refuseCrossSite(request: IncomingMessage, response: ServerResponse, reason: string): void {
  const message =
    `The local runtime refuses requests from another site's page (${reason}): ` +
    'a web page may not call its emulators (protection against cross-site form posts)';
  request.resume();
  response.writeHead(403, { 'content-type': 'application/json', connection: 'close' });
  response.end(JSON.stringify({ message }));
}

function refuseForeignHost(request: IncomingMessage, response: ServerResponse): void {
  const host = request.headers.host;
  const message =
    `The local runtime answers only requests addressed to localhost, 127.0.0.1 or [::1]; ` +
    `this one was addressed to ${host === undefined ? 'no Host' : `Host '${host}'`} ` +
    '(refused as protection against DNS rebinding)';
  request.resume();
  response.writeHead(403, { 'content-type': 'application/json', connection: 'close' });
  response.end(JSON.stringify({ message }));
}

/**
 * Puts the Host check in front of every request listener the server has, and holds the clock while
 * a request is served. A caller that names its activity (the runtime's own SDK clients, a sandbox's
 * invocation) is parked meanwhile, and resumed before the request stops holding: no moment between
 * the two holds nothing.
 */
function guardHost(server: Server, clock: RuntimeClock | undefined, refusesCrossSite: boolean): void {
  // On a seeded clock an idle connection is never closed on the machine's time (Node's 5 s): a
  // client reusing one the server closed meanwhile fails its request before it arrives (ECONNRESET)
  // and retries it, in one run and not in another. Stopping closes them all (closeServer).
  if (clock?.seed !== undefined) server.keepAliveTimeout = 0;
  const listeners = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (!isLoopbackHost(request.headers.host)) {
      refuseForeignHost(request, response);
      return;
    }
    const crossSite = refusesCrossSite ? crossSiteReason(request) : undefined;
    if (crossSite !== undefined) {
      refuseCrossSite(request, response, crossSite);
      return;
    }
    const serve = () => {
      for (const listener of listeners) listener(request, response);
    };
    if (!clock || clock.mode === 'wall') {
      serve();
      return;
    }
    const named = request.headers[ACTIVITY_HEADER];
    const caller = clock.activityOf(typeof named === 'string' ? named : undefined);
    if (caller) clock.arrived(caller);
    let activity: ClockActivity | undefined;
    let callerParked: { resume(): void } | undefined;
    let closed = false;
    response.once('close', () => {
      closed = true;
      if (caller) clock.answered(caller);
      callerParked?.resume();
      activity?.release();
    });
    const started = clock.admit(requestLabel(request, caller), (admitted) => {
      activity = admitted;
      callerParked ??= caller ? clock.park(caller) : undefined;
      if (closed) {
        // Its client went away while it waited its turn (a seeded clock).
        callerParked?.resume();
        admitted.release();
        return;
      }
      clock.within(admitted, serve);
    });
    // Waiting its turn, the caller waits on it.
    if (!started) callerParked = caller ? clock.park(caller) : undefined;
  });
}

/**
 * What a seeded clock's order and trace call a request: method, path, for the AWS JSON protocol
 * its operation, and the activity that sent it, when it names one.
 */
function requestLabel(request: IncomingMessage, caller: ClockActivity | undefined): string {
  const target = request.headers['x-amz-target'];
  const operation = typeof target === 'string' ? ` ${target}` : '';
  const call = request.headers[CALL_HEADER];
  const from = caller ? ` from ${caller.label}${typeof call === 'string' ? ` call ${call}` : ''}` : '';
  return `request ${request.method ?? ''} ${request.url ?? ''}${operation}${from}`;
}

/**
 * Listens on a loopback address (refusing requests addressed to other hosts, and with
 * `refusesCrossSite` those from another site's page: crossSiteReason); resolves with the base URL.
 * With a clock, each request holds it while served.
 */
export function listen(
  server: Server,
  port = 0,
  host = '127.0.0.1',
  clock?: RuntimeClock,
  refusesCrossSite = false,
): Promise<string> {
  guardHost(server, clock, refusesCrossSite);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      resolve(`http://${host.includes(':') ? `[${host}]` : host}:${address.port}`);
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export interface LoopbackServerOptions {
  /** 0 picks a free port. @default 0 */
  readonly port?: number;
  /**
   * Also listen on the IPv6 loopback at the same port, where the host has one: `localhost` may
   * resolve to ::1 first. @default false
   */
  readonly dualStack?: boolean;
  /** The runtime's clock: a request holds it while it is served. @default - none (the wall clock's behaviour) */
  readonly clock?: RuntimeClock;
  /**
   * Refuse requests from another site's page (crossSiteReason): for servers whose requests a
   * browser form can send without a preflight (the Query protocol's form-encoded POST). @default false
   */
  readonly refusesCrossSite?: boolean;
}

export interface LoopbackServer extends RunningServer {
  readonly port: number;
}

/** An HTTP server on 127.0.0.1 (and [::1] when dual-stack) serving `handler`. */
export async function startLoopbackServer(
  handler: RequestListener,
  options: LoopbackServerOptions = {},
): Promise<LoopbackServer> {
  const server = createServer(handler);
  const refusesCrossSite = options.refusesCrossSite ?? false;
  const endpoint = await listen(server, options.port ?? 0, '127.0.0.1', options.clock, refusesCrossSite);
  const port = Number(new URL(endpoint).port);
  let serverV6: Server | undefined;
  if (options.dualStack) {
    const candidate = createServer(handler);
    serverV6 = await listen(candidate, port, '::1', options.clock, refusesCrossSite).then(
      () => candidate,
      () => undefined,
    );
  }
  return {
    endpoint,
    port,
    stop: async () => {
      await Promise.all([closeServer(server), serverV6 ? closeServer(serverV6) : undefined]);
    },
  };
}

export class BodyTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`Request body larger than ${limitBytes} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * Reads a request body, refusing it (BodyTooLargeError) as soon as it passes `maxBytes`: the rest is
 * discarded unread, and the caller should answer with `connection: close`.
 */
export function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        request.off('data', onData);
        request.resume();
        reject(new BodyTooLargeError(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/**
 * The request's headers with repeated values joined as signers join them (Node already lower-cases
 * their names): what a SigV4 verifier reads.
 */
export function lowerCaseHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return headers;
}
