/**
 * Every kind of HTTP server the local runtime starts refuses requests addressed to a name that is
 * not loopback (DNS rebinding), answers those that are, and refuses oversized bodies before reading
 * them whole.
 */
import { request as httpRequest } from 'node:http';
import { startRestApiServer } from '../../../../lib/local-runtime/apigateway/rest-apis';
import { SERVICE_TARGET, startCloudWatchServer } from '../../../../lib/local-runtime/cloudwatch/server';
import { startInterceptingProxy } from '../../../../lib/local-runtime/fault-hooks';
import { startFunctionUrlServer } from '../../../../lib/local-runtime/lambda/function-urls';
import {
  startAwsJsonServer,
  startUnsupportedServiceServer,
} from '../../../../lib/local-runtime/protocol/aws-json-server';
import { startAwsQueryServer } from '../../../../lib/local-runtime/protocol/aws-query-server';
import { isLoopbackHost, type RunningServer } from '../../../../lib/local-runtime/protocol/http-server';
import { startLocalStepFunctions } from '../../../../lib/local-runtime/stepfunctions';

interface Reply {
  readonly status: number;
  readonly body: string;
}

/** A raw request with a chosen Host header (fetch does not let a caller set Host). */
function send(
  endpoint: string,
  host: string,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  const url = new URL(options.path ?? '/', endpoint);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: options.method ?? 'POST',
        headers: { ...options.headers, host },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () =>
          resolve({ status: incoming.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

const port = (endpoint: string) => new URL(endpoint).port;
const json = { 'content-type': 'application/x-amz-json-1.1' };

describe('isLoopbackHost', () => {
  it('accepts localhost, 127.0.0.1 and [::1] with or without a port, and nothing else', () => {
    for (const host of ['localhost', 'LOCALHOST:3000', '127.0.0.1', '127.0.0.1:65535', '[::1]', '[::1]:80']) {
      expect(isLoopbackHost(host)).toBe(true);
    }
    for (const host of [
      undefined,
      '',
      'evil.example',
      'evil.example:3000',
      'localhost.evil.example',
      '127.0.0.1.nip.io',
      '10.0.0.1',
      '::1',
      'localhost:',
    ]) {
      expect(isLoopbackHost(host)).toBe(false);
    }
  });
});

describe('loopback servers refuse foreign Host headers', () => {
  const started: RunningServer[] = [];
  const keep = <T extends RunningServer>(server: T): T => {
    started.push(server);
    return server;
  };
  afterAll(async () => {
    await Promise.all(started.map((server) => server.stop()));
  });

  async function expectHostCheck(endpoint: string, request: Parameters<typeof send>[2], accepted: number) {
    const refused = await send(endpoint, 'rebound.example', request);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toEqual({
      message: expect.stringMatching(
        /only requests addressed to localhost, 127\.0\.0\.1 or \[::1\].*Host 'rebound\.example'.*DNS rebinding/,
      ),
    });
    for (const host of [`localhost:${port(endpoint)}`, `127.0.0.1:${port(endpoint)}`, '[::1]']) {
      expect((await send(endpoint, host, request)).status).toBe(accepted);
    }
  }

  it('AWS JSON protocol servers (EventBridge-style)', async () => {
    const server = keep(await startAwsJsonServer('Probe', { Ping: async () => ({ pong: true }) }));
    await expectHostCheck(
      server.endpoint,
      { headers: { ...json, 'x-amz-target': 'Probe.Ping' }, body: '{}' },
      200,
    );
  });

  it('the Step Functions API', async () => {
    const sfn = await startLocalStepFunctions();
    keep({ endpoint: sfn.endpoint, stop: () => sfn.stop() });
    await expectHostCheck(
      sfn.endpoint,
      { headers: { ...json, 'x-amz-target': 'AWSStepFunctions.ListStateMachines' }, body: '{}' },
      200,
    );
  });

  it('the unsupported-service endpoint', async () => {
    const server = keep(await startUnsupportedServiceServer());
    await expectHostCheck(server.endpoint, { headers: json, body: '{}' }, 400);
  });

  it('REST API servers', async () => {
    const server = keep(
      await startRestApiServer({
        port: 0,
        invoke: async () => ({ ok: true, payload: { statusCode: 204 }, requestId: 'r' }),
        onProblem: () => undefined,
      }),
    );
    server.serve({
      logicalId: 'Api',
      apiId: 'api',
      stageNames: ['v1'],
      apiKeys: [],
      region: 'us-east-1',
      accountId: '000000000000',
      methods: [
        {
          logicalId: 'Get',
          resourcePath: '/things',
          resourceId: 'things',
          httpMethod: 'GET',
          apiKeyRequired: false,
          integration: { type: 'lambda-proxy', functionArn: 'arn' },
        },
      ],
    });
    await expectHostCheck(server.endpoint, { method: 'GET', path: '/v1/things' }, 204);
  });

  it('function URL servers', async () => {
    const server = keep(await startFunctionUrlServer(() => undefined));
    server.serve(
      {
        logicalId: 'Url',
        functionArn: 'arn',
        authType: 'NONE',
        accountId: '000000000000',
        authorize: async () => ({ kind: 'anonymous' }),
      },
      async () => ({ ok: true, payload: { statusCode: 201 }, requestId: 'r' }),
    );
    await expectHostCheck(server.endpoint, { method: 'GET' }, 201);
  });

  it('fault proxies', async () => {
    const target = keep(await startAwsJsonServer('Probe', { Ping: async () => ({}) }));
    const proxy = keep(
      await startInterceptingProxy(
        target.endpoint,
        (_request, forward) => forward(),
        () => {},
      ),
    );
    await expectHostCheck(
      proxy.endpoint,
      { headers: { ...json, 'x-amz-target': 'Probe.Ping' }, body: '{}' },
      200,
    );
  });
});

describe('servers a browser form can reach refuse another site’s page', () => {
  const started: RunningServer[] = [];
  afterAll(async () => {
    await Promise.all(started.map((server) => server.stop()));
  });
  const form = { 'content-type': 'application/x-www-form-urlencoded' };

  /** Refused with an Origin not its own or a cross-site Sec-Fetch-Site; answered `accepted` without. */
  async function expectCrossSiteRefused(
    endpoint: string,
    request: Parameters<typeof send>[2],
    accepted: number,
  ) {
    const host = `127.0.0.1:${port(endpoint)}`;
    for (const browser of <Record<string, string>[]>[
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: `http://127.0.0.1:${Number(port(endpoint)) + 1}` },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ]) {
      const refused = await send(endpoint, host, {
        ...request,
        headers: { ...request?.headers, ...browser },
      });
      expect([browser, refused.status]).toEqual([browser, 403]);
      expect(JSON.parse(refused.body).message).toContain("refuses requests from another site's page");
    }
    for (const own of <Record<string, string>[]>[
      {},
      { origin: `http://localhost:${port(endpoint)}`, 'sec-fetch-site': 'same-origin' },
    ]) {
      const answered = await send(endpoint, host, { ...request, headers: { ...request?.headers, ...own } });
      expect([own, answered.status]).toEqual([own, accepted]);
    }
  }

  it('the Query protocol server (SNS): a form post', async () => {
    let calls = 0;
    const server = await startAwsQueryServer(
      'Probe',
      {
        Ping: () => {
          calls += 1;
          return { Pong: 'yes' };
        },
      },
      { xmlNamespace: 'urn:probe' },
    );
    started.push(server);
    await expectCrossSiteRefused(server.endpoint, { headers: form, body: 'Action=Ping' }, 200);
    expect(calls).toBe(2);
  });

  it('the CloudWatch server: a form post to its CBOR path, and its JSON protocol', async () => {
    let calls = 0;
    const server = await startCloudWatchServer({
      ListDashboards: () => {
        calls += 1;
        return { DashboardEntries: [] };
      },
    });
    started.push(server);
    await expectCrossSiteRefused(
      server.endpoint,
      {
        path: `/service/${SERVICE_TARGET}/operation/ListDashboards`,
        headers: { ...form, 'smithy-protocol': 'rpc-v2-cbor' },
        body: '',
      },
      200,
    );
    await expectCrossSiteRefused(
      server.endpoint,
      {
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': `${SERVICE_TARGET}.ListDashboards`,
        },
        body: '{}',
      },
      200,
    );
    expect(calls).toBe(4);
  });
});

describe('request body limit', () => {
  it('refuses a body past the limit with 413 and keeps serving', async () => {
    let calls = 0;
    const server = await startAwsJsonServer(
      'Probe',
      {
        Echo: async (body) => {
          calls += 1;
          return body;
        },
      },
      { maxRequestBytes: 1024 },
    );
    try {
      const headers = { ...json, 'x-amz-target': 'Probe.Echo' };
      const host = `127.0.0.1:${port(server.endpoint)}`;
      const tooLarge = await send(server.endpoint, host, {
        headers,
        body: JSON.stringify({ data: 'x'.repeat(4096) }),
      });
      expect(tooLarge.status).toBe(413);
      expect(JSON.parse(tooLarge.body)).toEqual({
        __type: 'RequestEntityTooLarge',
        message: 'Request body larger than 1024 bytes',
      });
      expect(calls).toBe(0);
      const small = await send(server.endpoint, host, { headers, body: '{"data":"x"}' });
      expect(small).toEqual({ status: 200, body: '{"data":"x"}' });
    } finally {
      await server.stop();
    }
  });

  it('answers operations it does not have, and names like constructor, as unknown', async () => {
    const server = await startAwsJsonServer('Probe', { Ping: async () => ({}) });
    try {
      const host = `127.0.0.1:${port(server.endpoint)}`;
      for (const operation of ['Nope', 'constructor']) {
        const reply = await send(server.endpoint, host, {
          headers: { ...json, 'x-amz-target': `Probe.${operation}` },
          body: '{}',
        });
        expect(reply.status).toBe(400);
        expect(JSON.parse(reply.body)).toEqual({
          __type: 'UnknownOperationException',
          message: `Probe operation '${operation}' is not supported by the local runtime (supported: Ping)`,
        });
      }
    } finally {
      await server.stop();
    }
  });
});
