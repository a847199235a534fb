/**
 * The console's local backend, started: it answers only requests addressed to a loopback name (the
 * runtime's Host check, against DNS rebinding), and acts only for a page of its own origin. The
 * backend calls a real OperatorClient whose API is a recording HTTP server here (the operator API
 * itself is not what is tested): a refused request must never reach it, an accepted one does,
 * signed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { type ConsoleServer, startConsoleServer } from '../../../bin/console-server';
import { OperatorClient } from '../../../lib/harness/operator-client';

const credentials = { accessKeyId: 'operator', secretAccessKey: 'secret' };

let assetsDir: string;
let api: Server;
/** What reached the operator API: method, path and whether it was signed. */
const reached: Array<{ method: string; path: string; signed: boolean }> = [];
let server: ConsoleServer;
let cloudWatch: CloudWatchClient;
let port: number;

beforeAll(async () => {
  assetsDir = mkdtempSync(join(tmpdir(), 'console-page-'));
  writeFileSync(join(assetsDir, 'index.html'), '<!doctype html><title>console</title>');
  api = createServer((request: IncomingMessage, response) => {
    reached.push({
      method: request.method ?? '',
      path: request.url ?? '',
      signed: String(request.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256'),
    });
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ orders: [] }));
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}/test/`;
  cloudWatch = new CloudWatchClient({ region: 'us-east-1', credentials, endpoint: apiUrl });
  const operator = new OperatorClient({ apiUrl, region: 'us-east-1', credentials });
  server = await startConsoleServer({
    backend: () => ({ operator, cloudWatch, close: () => undefined }),
    port: 0,
    assetsDir,
  });
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server?.stop();
  cloudWatch?.destroy();
  await new Promise((resolve) => api?.close(resolve));
  rmSync(assetsDir, { recursive: true, force: true });
});
beforeEach(() => {
  reached.length = 0;
});

/** A request with the headers a browser would send (Host included, which fetch cannot set). */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const action = '/console/api/orders/order-1/cancel';
const actionBody = JSON.stringify({ reason: 'why', expectedState: 'Processed', expectedUpdatedAt: 'x' });
const json = { 'content-type': 'application/json' };

describe('the console backend', () => {
  it('refuses a request addressed to a name that is not loopback (DNS rebinding): neither reads nor acts', async () => {
    const rebound = { host: `rebound.example:${port}` };
    const read = await send('GET', '/console/api/orders?state=Processed', rebound);
    expect(read.status).toBe(403);
    expect(read.body).toContain("Host 'rebound.example:");
    const act = await send(
      'POST',
      action,
      { ...rebound, ...json, origin: `http://rebound.example:${port}` },
      actionBody,
    );
    expect(act.status).toBe(403);
    const page = await send('GET', '/console/', rebound);
    expect(page.status).toBe(403);
    expect(reached).toEqual([]);
  });

  it('refuses an action from any origin but its own, even one that matches the Host it is sent', async () => {
    for (const [host, origin] of [
      [`127.0.0.1:${port}`, 'https://elsewhere.example'],
      // The Host a page names is no proof of origin: another loopback port is another origin.
      ['localhost:1', 'http://localhost:1'],
      [`127.0.0.1:${port}`, `http://localhost:${port + 1}`],
    ]) {
      const answer = await send(
        'POST',
        action,
        { host: host as string, ...json, origin: origin as string },
        actionBody,
      );
      expect([origin, answer.status, answer.body]).toEqual([
        origin,
        403,
        JSON.stringify({
          message: `Requests with Origin '${origin}' are not accepted: open the console itself`,
        }),
      ]);
    }
    const crossSite = await send(
      'POST',
      action,
      { host: `127.0.0.1:${port}`, ...json, 'sec-fetch-site': 'cross-site' },
      actionBody,
    );
    expect(crossSite.status).toBe(403);
    expect(reached).toEqual([]);
  });

  it('acts for its own page, under each loopback name at its port, and signs the call', async () => {
    for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
      const answer = await send(
        'POST',
        action,
        {
          host: `${host}:${port}`,
          ...json,
          origin: `http://${host}:${port}`,
          'sec-fetch-site': 'same-origin',
        },
        actionBody,
      );
      expect([host, answer.status]).toEqual([host, 200]);
    }
    // A client that names no origin (curl, the CLIs' own code) is not a browser page.
    expect((await send('POST', action, { host: `127.0.0.1:${port}`, ...json }, actionBody)).status).toBe(200);
    expect(reached).toEqual(
      Array.from({ length: 4 }, () => ({
        method: 'POST',
        path: '/test/operator/orders/order-1/cancel',
        signed: true,
      })),
    );
  });
});
