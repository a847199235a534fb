import { createServer, type Server } from 'node:http';
import { type HttpInterceptor, startInterceptingProxy } from '../../../lib/local-runtime/fault-hooks';
import { closeServer, listen } from '../../../lib/local-runtime/protocol/http-server';

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
