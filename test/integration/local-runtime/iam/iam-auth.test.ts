/**
 * AWS_IAM methods of the REST API emulator over real HTTP: the SigV4 signature is recomputed with
 * the secret of the local identity the access key names, and only a valid one reaches the
 * integration, with requestContext.identity filled as API Gateway does.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { type RestApiServer, startRestApiServer } from '../../../../lib/local-runtime/apigateway/rest-apis';
import { LocalIdentities, SIGV4_MESSAGES, verifySigV4 } from '../../../../lib/local-runtime/iam/identities';

const REGION = 'eu-west-1';
const ACCOUNT = '000000000000';
const ARN = `arn:aws:lambda:${REGION}:${ACCOUNT}:function:operator`;

/** The parts of the proxy event these tests read. */
interface ProxyEvent {
  readonly requestContext: { readonly identity: Record<string, unknown> };
  readonly queryStringParameters: unknown;
  readonly body: unknown;
}

interface Signed {
  readonly url: string;
  readonly init: RequestInit;
}

/** Signs like any SDK client: SigV4 for execute-api over method, path, query, host and body. */
async function signed(
  url: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
  options: { method?: string; body?: string; region?: string; signingDate?: Date } = {},
): Promise<Signed> {
  const target = new URL(url);
  const method = options.method ?? 'GET';
  const signer = new SignatureV4({
    service: 'execute-api',
    region: options.region ?? REGION,
    credentials,
    sha256: Sha256,
  });
  const request = await signer.sign(
    {
      method,
      protocol: target.protocol,
      hostname: target.hostname,
      port: Number(target.port),
      path: target.pathname,
      query: Object.fromEntries(target.searchParams),
      headers: {
        host: target.host,
        ...(options.body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(options.body !== undefined && { body: options.body }),
    },
    options.signingDate ? { signingDate: options.signingDate } : {},
  );
  const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => name !== 'host'));
  return {
    url,
    init: { method, headers, ...(options.body !== undefined && { body: options.body }) },
  };
}

describe('AWS_IAM methods of the REST API emulator', () => {
  let server: RestApiServer;
  let identities: LocalIdentities;
  const events: ProxyEvent[] = [];
  const methodArns: string[] = [];

  beforeAll(async () => {
    identities = new LocalIdentities(undefined, ACCOUNT);
    server = await startRestApiServer({
      port: 0,
      invoke: async (_arn, event) => {
        events.push(event as ProxyEvent);
        return { ok: true, payload: { statusCode: 200, body: 'ok' }, requestId: 'r' };
      },
      onProblem: () => undefined,
    });
    const method = (resourcePath: string, httpMethod: string, authorizationType: string) => ({
      logicalId: `${httpMethod}${resourcePath}`,
      resourcePath,
      resourceId: resourcePath,
      httpMethod,
      apiKeyRequired: false,
      authorizationType,
      integration: { type: 'lambda-proxy' as const, functionArn: ARN },
    });
    server.serve({
      logicalId: 'Api',
      apiId: 'api',
      stageNames: ['v1'],
      methods: [
        method('/operator/orders', 'GET', 'AWS_IAM'),
        method('/operator/orders/{orderId}/retry', 'POST', 'AWS_IAM'),
        method('/public', 'GET', 'NONE'),
      ],
      apiKeys: [],
      // The runtime asks IAM after the signature (provisioners/api-gateway.ts); here: the signature.
      authorizeIam: async (request, methodArn) => {
        methodArns.push(methodArn);
        const verdict = await verifySigV4(request, identities, { region: REGION });
        return verdict.ok
          ? { ok: true, accessKeyId: verdict.identity.accessKeyId, userArn: verdict.identity.userArn }
          : { ok: false, message: verdict.message, messageKey: 'message' };
      },
      region: REGION,
      accountId: ACCOUNT,
    });
  });
  afterAll(async () => {
    await server.stop();
  });
  beforeEach(() => {
    events.length = 0;
    methodArns.length = 0;
  });

  const url = (path: string) => `${server.baseUrl}/v1${path}`;
  const send = async ({ url: target, init }: Signed) => {
    const response = await fetch(target, init);
    return { status: response.status, body: await response.text() };
  };

  it('passes a good signature through, naming the caller in requestContext.identity', async () => {
    const operator = identities.identity('operator');
    const response = await send(await signed(url('/operator/orders?state=Error&limit=5'), operator));
    expect(response).toEqual({ status: 200, body: 'ok' });
    expect(events[0]?.requestContext.identity).toMatchObject({
      userArn: `arn:aws:iam::${ACCOUNT}:user/operator`,
      caller: 'operator',
      accessKey: 'operator',
      accountId: ACCOUNT,
    });
    expect(events[0]?.queryStringParameters).toEqual({ state: 'Error', limit: '5' });
    expect(methodArns).toEqual([`arn:aws:execute-api:${REGION}:${ACCOUNT}:api/v1/GET/operator/orders`]);
  });

  it('verifies a signed POST body and path parameter', async () => {
    const operator = identities.identity('operator');
    const body = JSON.stringify({ reason: 'fixed', expectedState: 'Error', expectedUpdatedAt: 'T' });
    const response = await send(
      await signed(url('/operator/orders/order-1/retry'), operator, { method: 'POST', body }),
    );
    expect(response.status).toBe(200);
    expect(events[0]?.body).toBe(body);
  });

  it('refuses a signature made with the wrong secret', async () => {
    const response = await send(
      await signed(url('/operator/orders'), { accessKeyId: 'operator', secretAccessKey: 'not-the-secret' }),
    );
    expect(response).toEqual({ status: 403, body: JSON.stringify({ message: SIGV4_MESSAGES.mismatch }) });
    expect(events).toEqual([]);
  });

  it('refuses a body changed after signing', async () => {
    const operator = identities.identity('operator');
    const request = await signed(url('/operator/orders/order-1/retry'), operator, {
      method: 'POST',
      body: '{"reason":"fixed"}',
    });
    const response = await send({ ...request, init: { ...request.init, body: '{"reason":"other"}' } });
    expect(response.status).toBe(403);
    expect(JSON.parse(response.body)).toEqual({ message: SIGV4_MESSAGES.mismatch });
  });

  it('refuses a changed query or path', async () => {
    const operator = identities.identity('operator');
    const request = await signed(url('/operator/orders?state=Error'), operator);
    expect((await send({ ...request, url: url('/operator/orders?state=Pending') })).status).toBe(403);
    const post = await signed(url('/operator/orders/order-1/retry'), operator, {
      method: 'POST',
      body: '{}',
    });
    expect((await send({ ...post, url: url('/operator/orders/order-2/retry') })).status).toBe(403);
  });

  it('refuses a request without an Authorization header, as API Gateway does', async () => {
    const response = await send({ url: url('/operator/orders'), init: {} });
    expect(response).toEqual({
      status: 403,
      body: JSON.stringify({ message: 'Missing Authentication Token' }),
    });
  });

  it('refuses an access key that names no local identity, as API Gateway refuses an unknown key', async () => {
    const response = await send(
      await signed(url('/operator/orders'), { accessKeyId: 'mallory', secretAccessKey: 'guess' }),
    );
    expect(response.status).toBe(403);
    expect(JSON.parse(response.body)).toEqual({ message: SIGV4_MESSAGES.unknown });
  });

  it('refuses a signature scoped to another region, and one older than 15 minutes', async () => {
    const operator = identities.identity('operator');
    expect(
      JSON.parse((await send(await signed(url('/operator/orders'), operator, { region: 'us-east-1' }))).body),
    ).toEqual({ message: SIGV4_MESSAGES.scope });
    const old = await signed(url('/operator/orders'), operator, {
      signingDate: new Date(Date.now() - 20 * 60_000),
    });
    expect(JSON.parse((await send(old)).body)).toEqual({ message: SIGV4_MESSAGES.expired });
  });

  it('leaves methods without IAM authorization alone', async () => {
    expect((await send({ url: url('/public'), init: {} })).status).toBe(200);
    expect(events[0]?.requestContext.identity.userArn).toBeUndefined();
  });
});

describe('LocalIdentities', () => {
  it('keeps each secret in the data directory, readable by the owner only, and finds it again', () => {
    const dir = mkdtempSync(join(tmpdir(), 'identities-'));
    try {
      const first = new LocalIdentities(dir, ACCOUNT).identity('operator');
      expect(first.secretAccessKey).toMatch(/^[A-Za-z0-9_-]{40}$/);
      expect(new LocalIdentities(dir, ACCOUNT).known('operator')).toEqual(first);
      expect(statSync(join(dir, 'iam', 'identities.json')).mode & 0o777).toBe(0o600);
      expect(new LocalIdentities(dir, ACCOUNT).known('someone')).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('generates a new secret per runtime without a data directory', () => {
    const one = new LocalIdentities(undefined, ACCOUNT).identity('operator');
    const two = new LocalIdentities(undefined, ACCOUNT).identity('operator');
    expect(one.secretAccessKey).not.toBe(two.secretAccessKey);
    expect(() => new LocalIdentities(undefined, ACCOUNT).identity('no spaces')).toThrow(
      'cannot name a local IAM user',
    );
  });
});

describe('what IAM refuses at the REST API emulator', () => {
  let server: RestApiServer;
  const invoked: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    server = await startRestApiServer({
      port: 0,
      invoke: async (arn) => {
        invoked.push(arn);
        return { ok: true, payload: { statusCode: 200, body: 'ok' }, requestId: 'r' };
      },
      // The function's policy lets API Gateway invoke it for GET /open only.
      mayInvoke: (_arn, sourceArn) => sourceArn.endsWith('/GET/open'),
      onProblem: (message) => problems.push(message),
    });
    const method = (resourcePath: string, authorizationType: string) => ({
      logicalId: resourcePath,
      resourcePath,
      resourceId: resourcePath,
      httpMethod: 'GET',
      apiKeyRequired: false,
      authorizationType,
      integration: { type: 'lambda-proxy' as const, functionArn: ARN },
    });
    server.serve({
      logicalId: 'Api',
      apiId: 'api',
      stageNames: ['v1'],
      methods: [method('/open', 'NONE'), method('/closed', 'NONE'), method('/operator', 'AWS_IAM')],
      apiKeys: [],
      // IAM found no allow for the signer: API Gateway's words, under `Message`.
      authorizeIam: async (_request, methodArn) => ({
        ok: false,
        message: `User: arn:aws:iam::${ACCOUNT}:user/someone is not authorized to perform: execute-api:Invoke on resource: ${methodArn}`,
        messageKey: 'Message',
      }),
      region: REGION,
      accountId: ACCOUNT,
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('answers 500 and invokes nothing when the function’s policy does not let API Gateway invoke it', async () => {
    expect((await fetch(`${server.baseUrl}/v1/open`)).status).toBe(200);
    invoked.length = 0;
    const refused = await fetch(`${server.baseUrl}/v1/closed`);
    expect(refused.status).toBe(500);
    expect(await refused.json()).toEqual({ message: 'Internal server error' });
    expect(invoked).toEqual([]);
    expect(problems.at(-1)).toContain(`for arn:aws:execute-api:${REGION}:${ACCOUNT}:api/v1/GET/closed`);
  });

  it('answers an AWS_IAM denial 403 with IAM’s message under Message, invoking nothing', async () => {
    invoked.length = 0;
    const refused = await fetch(`${server.baseUrl}/v1/operator`);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      Message: `User: arn:aws:iam::${ACCOUNT}:user/someone is not authorized to perform: execute-api:Invoke on resource: arn:aws:execute-api:${REGION}:${ACCOUNT}:api/v1/GET/operator`,
    });
    expect(invoked).toEqual([]);
  });
});
