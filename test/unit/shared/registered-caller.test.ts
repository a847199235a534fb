/**
 * The one refusal of an API key of no registered entry, for every API handler of both wings: 403
 * naming what the wing calls its entries, one count, one warning with the key id and the route;
 * a registered key is the caller, with nothing counted or logged.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { registeredCaller } from '../../../lambdas/shared/registered-caller';

const REGISTRY = [
  { requesterId: 'bakery', apiKeyId: 'key-b' },
  { requesterId: 'florist', apiKeyId: 'key-f' },
];

function request(apiKeyId: string | null) {
  return {
    httpMethod: 'GET',
    resource: '/deliveries/{deliveryId}',
    requestContext: { identity: { apiKeyId } },
  } as unknown as APIGatewayProxyEvent;
}

const UNREGISTERED = { entry: 'requester', metric: 'UnknownRequesterRequests' } as const;

/** What the handler's scope saw: its warnings and its counts, by metric name. */
function refusal() {
  const warnings: Array<{ message: string; extra: unknown }> = [];
  const counted: string[] = [];
  return {
    warnings,
    counted,
    scope: {
      log: { warn: (message: string, extra: unknown) => warnings.push({ message, extra }) },
      count: (name: string) => {
        counted.push(name);
      },
      echoHeaders: { 'X-Correlation-Id': 'c-1' },
    },
  };
}

describe('registeredCaller', () => {
  it('is the registry entry holding the key, with nothing counted or logged', () => {
    const seen = refusal();
    const known = registeredCaller(REGISTRY, request('key-f'), seen.scope as never, UNREGISTERED);
    expect(known).toEqual({ caller: REGISTRY[1] });
    expect(seen.counted).toEqual([]);
    expect(seen.warnings).toEqual([]);
  });

  it.each([['key-x'], [null]])('refuses key %p with 403, counted once and logged with the route', (key) => {
    const seen = refusal();
    const known = registeredCaller(REGISTRY, request(key), seen.scope as never, UNREGISTERED);
    expect('refused' in known && known.refused.statusCode).toBe(403);
    if (!('refused' in known)) return;
    expect(JSON.parse(known.refused.body)).toEqual({
      message: 'This API key is not registered to a requester',
    });
    expect(known.refused.headers).toMatchObject({ 'X-Correlation-Id': 'c-1' });
    expect(seen.counted).toEqual(['UnknownRequesterRequests']);
    expect(seen.warnings).toEqual([
      {
        message: 'Request refused: the API key belongs to no registered requester',
        extra: { apiKeyId: key, route: 'GET /deliveries/{deliveryId}' },
      },
    ]);
  });
});
