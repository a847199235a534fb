import { createServer, type Server } from 'node:http';
import { VirtualClock } from '../../../lib/local-runtime/clock';
import { type HttpInterceptor, startInterceptingProxy } from '../../../lib/local-runtime/fault-hooks';
import { closeServer, listen, startLoopbackServer } from '../../../lib/local-runtime/protocol/http-server';

describe('fault hook: intercepting proxy', () => {
  let target: Server;
  let targetUrl: string;
  const seen: string[] = [];

  beforeAll(async () => {
    target = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      request.on('end', () => {
        seen.push(`${request.method} ${request.url} ${request.headers['idempotency-key']} ${body}`);
        response.writeHead(201, { 'content-type': 'application/json', 'x-from': 'target' });
        response.end(JSON.stringify({ confirmationId: 'c-1' }));
      });
    });
    targetUrl = await listen(target);
  });

  afterAll(() => closeServer(target));

  async function through(interceptor: HttpInterceptor, problems: string[] = []) {
    const proxy = await startInterceptingProxy(targetUrl, interceptor, (message) => problems.push(message));
    try {
      return await fetch(`${proxy.endpoint}/payments/charges?x=1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'o-1:ChargePayment' },
        body: '{"a":1}',
      });
    } finally {
      await proxy.stop();
    }
  }

  it('forwards method, path, headers and body, and returns the real reply', async () => {
    const response = await through((_request, forward) => forward());
    expect(response.status).toBe(201);
    expect(response.headers.get('x-from')).toBe('target');
    expect(await response.json()).toEqual({ confirmationId: 'c-1' });
    expect(seen.at(-1)).toBe('POST /payments/charges?x=1 o-1:ChargePayment {"a":1}');
  });

  it('lets the interceptor answer without reaching the target', async () => {
    const before = seen.length;
    let observed = '';
    const response = await through(async (request) => {
      observed = `${request.method} ${request.path} ${request.headers['idempotency-key']} ${request.body}`;
      return { status: 503, headers: { 'content-type': 'application/json' }, body: '{"message":"chaos"}' };
    });
    expect(response.status).toBe(503);
    expect(observed).toBe('POST /payments/charges?x=1 o-1:ChargePayment {"a":1}');
    expect(seen.length).toBe(before);
  });

  it('drops the connection when asked, after the target had its effect', async () => {
    const before = seen.length;
    await expect(
      through(async (_request, forward) => {
        await forward();
        return 'drop';
      }),
    ).rejects.toThrow();
    expect(seen.length).toBe(before + 1);
  });

  it('answers 502 and reports the problem when the interceptor fails', async () => {
    const problems: string[] = [];
    const response = await through(async () => {
      throw new Error('interceptor broke');
    }, problems);
    expect(response.status).toBe(502);
    expect(problems).toEqual([`fault proxy for ${targetUrl}: interceptor broke`]);
  });
});

/**
 * On a virtual clock the proxy holds the clock while it serves a request; while it forwards, the
 * target must serve as part of the proxy's hold (which it parks), not beside it. Found in a chaos
 * campaign with the deployed timings: the proxy in front of the fake services held the clock while
 * the function behind it waited on the clock, and the clock stood still for good.
 */
describe('fault hook: intercepting proxy on a virtual clock', () => {
  it('lets the clock move while the target waits on it', async () => {
    const clock = new VirtualClock({ startMillis: Date.parse('2030-01-01T00:00:00Z') });
    const start = clock.now();
    // A target that answers after a minute of the clock (a function that sleeps, a held reply).
    const target = await startLoopbackServer(
      (_request, response) => {
        void clock.sleep(60_000).then(() => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ at: clock.now() - start }));
        });
      },
      { clock },
    );
    const proxy = await startInterceptingProxy(
      target.endpoint,
      (_request, forward) => forward(),
      () => {},
      clock,
    );
    try {
      const response = await fetch(`${proxy.endpoint}/payments/charges`, { method: 'POST', body: '{}' });
      expect(await response.json()).toEqual({ at: 60_000 });
    } finally {
      await proxy.stop();
      await target.stop();
      clock.stop();
    }
  });
});
