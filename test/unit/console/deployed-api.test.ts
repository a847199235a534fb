/**
 * The deployed console's signed calls (console/src/deployed-api.ts) and its sign-in's PKCE steps
 * (console/src/sign-in.ts). The operator API here is a real HTTP server on the loopback that checks
 * every signature with the local runtime's own SigV4 verifier (the one its AWS_IAM routes use), so
 * a request passes only when it is signed for execute-api, in the region, with the identity's keys.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deployedConsoleApi } from '../../../console/src/deployed-api';
import {
  authorizeUrl,
  base64Url,
  codeChallengeOf,
  exchangeCode,
  newCodeVerifier,
  revocable,
  signOutUrl,
} from '../../../console/src/pkce-sign-in';
import {
  type DeliveryDetailBody,
  type DeliveryListBody,
  OperatorDeliveryRoute,
} from '../../../lambdas/choreography/contracts';
import {
  OperatorAction,
  type OperatorOrderListBody,
  OperatorRoute,
  ProcessState,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { LocalIdentities, verifySigV4 } from '../../../lib/local-runtime/iam/identities';

const REGION = 'eu-west-1';
const identities = new LocalIdentities(undefined, '123456789012');
const operator = identities.identity('console-operator');
/** What the identity pool hands out: temporary keys with a session token. */
const credentials = {
  accessKeyId: operator.accessKeyId,
  secretAccessKey: operator.secretAccessKey,
  sessionToken: 'session-token-of-the-identity-pool',
};
/** The verifier knows the pool's temporary credentials, session token included. */
const temporaryCredentials = {
  known: (accessKeyId: string) => (accessKeyId === credentials.accessKeyId ? credentials : undefined),
};

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: Record<string, string>;
  readonly body: string;
}

let server: Server;
let apiUrl: string;
const seen: Seen[] = [];
/** Orders per state the fake list pages through, 100 a page. */
const ordersIn: Partial<Record<string, number>> = { [ProcessState.Error]: 230, [ProcessState.Processed]: 3 };

async function read(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const body = await read(request);
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
    );
    const verdict = await verifySigV4(
      { method: request.method ?? 'GET', rawPath: url.pathname, query: url.searchParams, headers, body },
      temporaryCredentials,
      { region: REGION },
    );
    const answer = (status: number, value: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(value));
    };
    if (!verdict.ok) return answer(403, { message: verdict.message });
    // Two APIs on one server: the orders API under /v1, the delivery API under /deliveries-v1.
    const path = url.pathname.replace(/^\/(deliveries-)?v1/, '');
    const deliveryApi = url.pathname.startsWith('/deliveries-v1');
    seen.push({
      method: request.method ?? '',
      path,
      query: url.searchParams,
      headers,
      body: body.toString(),
    });
    if (deliveryApi && path === OperatorDeliveryRoute.deliveries) {
      const rows = [{ deliveryId: 'd-1', status: url.searchParams.get('status') ?? 'Requested' }];
      return answer(200, { items: rows } satisfies DeliveryListBody);
    }
    if (deliveryApi && path === OperatorDeliveryRoute.delivery('d-1')) {
      return answer(200, { deliveryId: 'd-1', trail: [] } satisfies DeliveryDetailBody);
    }
    if (deliveryApi) return answer(404, { message: `Delivery is unknown to every service` });
    if (path === OperatorRoute.orders) {
      const total = ordersIn[url.searchParams.get('state') ?? ''] ?? 0;
      const from = Number(url.searchParams.get('cursor') ?? 0);
      const count = Math.min(Number(url.searchParams.get('limit')), total - from);
      const page: OperatorOrderListBody = {
        items: Array.from({ length: count }, () => ({}) as OperatorOrderListBody['items'][number]),
        ...(from + count < total && { nextCursor: String(from + count) }),
      };
      return answer(200, page);
    }
    if (path === OperatorRoute.cancel('o-1')) {
      return answer(409, { message: 'moved on', refusal: 'StateChanged', currentState: 'Pending' });
    }
    return answer(404, { message: `no route ${path}` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen.length = 0;
});

const config = () => ({
  region: REGION,
  apiUrl,
  alarmSources: [{ wing: 'Orders', namePrefix: 'SchedulerAgentSupervisor-' }],
});

describe('the deployed console API', () => {
  it('signs each operator call for execute-api in the region with the identity pool credentials', async () => {
    const api = deployedConsoleApi(config(), credentials);
    const page = await api.orders({ state: ProcessState.Processed, limit: 20 });
    expect(page.items).toHaveLength(3);
    const [call] = seen;
    expect(call?.query.get('state')).toBe(ProcessState.Processed);
    expect(call?.headers.authorization).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${operator.accessKeyId}/\\d{8}/${REGION}/execute-api/aws4_request`,
      ),
    );
    expect(call?.headers['x-amz-security-token']).toBe(credentials.sessionToken);
  });

  it('is refused, in words, when signed for another region or with a wrong secret', async () => {
    const elsewhere = deployedConsoleApi({ ...config(), region: 'us-east-1' }, credentials);
    await expect(elsewhere.order('o-1')).rejects.toThrow(
      /^403 .*Credential should be scoped to a valid region/,
    );
    const forged = deployedConsoleApi(config(), { ...credentials, secretAccessKey: 'not-the-secret' });
    await expect(forged.order('o-1')).rejects.toThrow(
      /^403 .*signature we calculated does not match.*reload the page/,
    );
    expect(seen).toEqual([]);
  });

  it('signs an action with its body, and hands back a 409 refusal', async () => {
    const api = deployedConsoleApi(config(), credentials);
    const request = {
      reason: 'customer withdrew',
      expectedState: ProcessState.Processed,
      expectedUpdatedAt: '2026-01-01T00:00:00Z',
    };
    const answer = await api.act('o-1', OperatorAction.Cancel, request);
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual(expect.objectContaining({ refusal: 'StateChanged' }));
    expect(seen[0]?.method).toBe('POST');
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual(request);
  });

  it('counts each state by paging the list, stopping at the count limit', async () => {
    const counts = await deployedConsoleApi(config(), credentials).counts();
    expect(counts.find((count) => count.state === ProcessState.Error)).toEqual({
      state: ProcessState.Error,
      count: 230,
      atLeast: false,
    });
    expect(counts.find((count) => count.state === ProcessState.Pending)).toEqual(
      expect.objectContaining({ count: 0, atLeast: false }),
    );
  });

  it('serves no deliveries when the config names no delivery API, and says so', async () => {
    const api = deployedConsoleApi(config(), credentials);
    expect(api.servesDeliveries).toBe(false);
    await expect(api.deliveries()).rejects.toThrow(/names no delivery API/);
    expect(seen).toEqual([]);
  });

  it('reads the deliveries from the delivery API, each call signed for execute-api', async () => {
    const deliveryApiUrl = apiUrl.replace(/\/v1$/, '/deliveries-v1');
    const api = deployedConsoleApi({ ...config(), deliveryApiUrl }, credentials);
    expect(api.servesDeliveries).toBe(true);
    expect((await api.deliveries('Cancelled')).items).toEqual([{ deliveryId: 'd-1', status: 'Cancelled' }]);
    expect((await api.delivery('d-1')).deliveryId).toBe('d-1');
    expect(seen.map((call) => [call.path, call.query.get('status')])).toEqual([
      [OperatorDeliveryRoute.deliveries, 'Cancelled'],
      [OperatorDeliveryRoute.delivery('d-1'), null],
    ]);
    expect(seen[0]?.headers.authorization).toMatch(
      new RegExp(`Credential=${operator.accessKeyId}/\\d{8}/${REGION}/execute-api/aws4_request`),
    );
    await expect(api.delivery('d-9')).rejects.toThrow(/^404 .*unknown to every service/);
    const forged = deployedConsoleApi(
      { ...config(), deliveryApiUrl },
      { ...credentials, secretAccessKey: 'not-the-secret' },
    );
    await expect(forged.deliveries()).rejects.toThrow(/^403 .*signature we calculated does not match/);
  });
});

describe('the sign-in (authorization code with PKCE)', () => {
  it('derives the S256 challenge as RFC 7636 does (appendix B)', async () => {
    expect(await codeChallengeOf('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
    expect(newCodeVerifier()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newCodeVerifier()).not.toBe(newCodeVerifier());
    expect(base64Url(new Uint8Array([251, 255]))).toBe('-_8');
  });

  it('sends the operator to the sign-in page with the challenge, never the verifier', async () => {
    const signIn = {
      signInUrl: 'https://orders-console-1.auth.eu-west-1.amazoncognito.com',
      userPoolClientId: 'client-1',
    };
    const url = new URL(
      await authorizeUrl(signIn, 'https://d1.cloudfront.net/', 'verifier-value', 'state-1'),
    );
    expect(`${url.origin}${url.pathname}`).toBe(`${signIn.signInUrl}/oauth2/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'client-1',
      redirect_uri: 'https://d1.cloudfront.net/',
      scope: 'openid email',
      state: 'state-1',
      code_challenge: await codeChallengeOf('verifier-value'),
      code_challenge_method: 'S256',
    });
    expect(url.search).not.toContain('verifier-value');
  });

  it('trades the code and verifier for the id token at the token endpoint, and says why it failed', async () => {
    let form: URLSearchParams | undefined;
    const tokenEndpoint = createServer(async (request, response) => {
      form = new URLSearchParams((await read(request)).toString());
      const ok = form.get('code_verifier') === 'the-verifier';
      response.writeHead(ok ? 200 : 400, { 'content-type': 'application/json' });
      response.end(JSON.stringify(ok ? { id_token: 'id-token-1' } : { error: 'invalid_grant' }));
    });
    await new Promise<void>((resolve) => tokenEndpoint.listen(0, '127.0.0.1', resolve));
    try {
      const signIn = {
        signInUrl: `http://127.0.0.1:${(tokenEndpoint.address() as AddressInfo).port}`,
        userPoolClientId: 'client-1',
      };
      expect(await exchangeCode(signIn, 'https://d1.cloudfront.net/', 'code-1', 'the-verifier')).toBe(
        'id-token-1',
      );
      expect(Object.fromEntries(form ?? [])).toEqual({
        grant_type: 'authorization_code',
        client_id: 'client-1',
        code: 'code-1',
        redirect_uri: 'https://d1.cloudfront.net/',
        code_verifier: 'the-verifier',
      });
      await expect(exchangeCode(signIn, 'https://d1.cloudfront.net/', 'code-1', 'another')).rejects.toThrow(
        /Sign-in failed: the token endpoint answered 400 invalid_grant/,
      );
    } finally {
      await new Promise<void>((resolve) => tokenEndpoint.close(() => resolve()));
    }
  });
});

describe('the sign-out', () => {
  it("goes to Cognito's /logout with the app client and the registered URL to come back to", () => {
    const url = new URL(
      signOutUrl(
        {
          signInUrl: 'https://orders-console-1.auth.eu-west-1.amazoncognito.com',
          userPoolClientId: 'client-1',
        },
        'https://d1.cloudfront.net/',
      ),
    );
    expect(`${url.origin}${url.pathname}`).toBe(
      'https://orders-console-1.auth.eu-west-1.amazoncognito.com/logout',
    );
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'client-1',
      logout_uri: 'https://d1.cloudfront.net/',
    });
  });

  it('leaves the page no credentials to sign with: a call after it fails in words, unsigned', async () => {
    const session = revocable(async () => credentials);
    const api = deployedConsoleApi(config(), session.credentials);
    await api.orders({ state: ProcessState.Processed, limit: 20 });
    expect(seen).toHaveLength(1);
    session.revoke();
    await expect(api.orders({ state: ProcessState.Processed, limit: 20 })).rejects.toThrow(/Signed out/);
    expect(seen).toHaveLength(1);
  });
});
