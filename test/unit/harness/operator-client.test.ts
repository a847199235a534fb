import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OperatorClient } from '../../../lib/harness/operator-client';

/** A stand-in operator route on loopback: answers what the test asks, records what it was sent. */
let server: Server;
let answer: { status: number; headers: Record<string, string>; body: string };
let seen: IncomingMessage | undefined;
let client: OperatorClient;

beforeAll(async () => {
  server = createServer((request, response) => {
    seen = request;
    request.resume();
    request.on('end', () => {
      response.writeHead(answer.status, answer.headers);
      response.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = new OperatorClient({
    apiUrl: `http://127.0.0.1:${port}/v1/`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'operator', secretAccessKey: 'secret' },
  });
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("the operator client's answers", () => {
  it('signs the action and gives the refusal with its Retry-After in milliseconds', async () => {
    answer = {
      status: 409,
      headers: { 'content-type': 'application/json', 'retry-after': '3' },
      body: JSON.stringify({ message: 'order o-1 is in flight' }),
    };
    const result = await client.act('retry', 'o-1', {
      reason: 'test',
      expectedState: 'Error',
      expectedUpdatedAt: '2026-12-03T00:00:00.000Z',
    });
    expect(result).toEqual({
      status: 409,
      body: { message: 'order o-1 is in flight' },
      retryAfterMillis: 3000,
    });
    expect(seen?.method).toBe('POST');
    expect(seen?.url).toBe('/v1/operator/orders/o-1/retry');
    expect(seen?.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=operator\//);
  });

  it('has no Retry-After when the answer gives none, and keeps a non-JSON body as text', async () => {
    answer = { status: 502, headers: { 'content-type': 'text/plain' }, body: 'Bad gateway' };
    const result = await client.show('o-1');
    expect(result).toEqual({ status: 502, body: 'Bad gateway' });
  });
});
