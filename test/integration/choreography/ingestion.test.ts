/** Ingestion's handlers as deployed, against DynamoDB Local and the runtime's SQS service. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { EventType, ServiceName } from '../../../lambdas/choreography/contracts';
import {
  envelope,
  lambdaContext,
  provisionService,
  requestContextOf,
  sqsRecord,
  TEST_REQUESTERS,
  useChoreographyWorld,
} from './harness';

type ApiHandler = (
  event: APIGatewayProxyEvent,
  context: typeof lambdaContext,
) => Promise<APIGatewayProxyResult>;

describe('ingestion handlers', () => {
  const world = useChoreographyWorld();
  let tableName: string;
  let submit: ApiHandler;
  let get: ApiHandler;
  let project: (event: SQSEvent, context: typeof lambdaContext) => Promise<SQSBatchResponse>;
  beforeAll(async () => {
    ({ tableName } = await provisionService(world, 'ingestion', {
      maxReceiveAttempts: 3,
      processedMessageTtlSeconds: 3600,
      maxRangeKm: 15,
      maxPayloadGrams: 5000,
    }));
    submit = (await import('../../../lambdas/choreography/handlers/submit-delivery')).handler as ApiHandler;
    get = (await import('../../../lambdas/choreography/handlers/get-delivery')).handler as ApiHandler;
    project = (await import('../../../lambdas/choreography/handlers/ingestion-projection')).handler;
  });

  const request = {
    deliveryId: 'ing-1',
    ownerId: 'owner',
    pickup: { lat: 1, lon: 1 },
    dropoff: { lat: 1.05, lon: 1.05 },
    packages: [{ packageId: 'p1', weightGrams: 100, size: 'SMALL' }],
  };
  type Requester = { readonly apiKeyId: string };
  const post = (body: unknown, headers: Record<string, string> = {}, as: Requester = TEST_REQUESTERS.a) =>
    submit(
      {
        body: JSON.stringify(body),
        headers,
        isBase64Encoded: false,
        requestContext: requestContextOf(as),
      } as unknown as APIGatewayProxyEvent,
      lambdaContext,
    );
  const read = (deliveryId: string, as: Requester = TEST_REQUESTERS.a) =>
    get(
      {
        pathParameters: { deliveryId },
        headers: {},
        requestContext: requestContextOf(as),
      } as unknown as APIGatewayProxyEvent,
      lambdaContext,
    );

  it('accepts a new delivery (202) with its DeliveryRequested in the change log', async () => {
    const response = await post(request, { 'X-Correlation-Id': 'corr-ing-1' });
    expect(response.statusCode).toBe(202);
    expect(response.headers?.['X-Correlation-Id']).toBe('corr-ing-1');
    expect(JSON.parse(response.body)).toMatchObject({ deliveryId: 'ing-1', status: 'Requested' });
    const item = await world.getItem(tableName, 'DELIVERY#ing-1');
    expect(item?.outbox).toEqual([
      expect.objectContaining({
        id: 'ingestion:ing-1:1',
        destination: 'requests-topic',
        message: expect.objectContaining({ type: EventType.DeliveryRequested, correlationId: 'corr-ing-1' }),
      }),
    ]);
  });

  it('answers an identical resubmission 200 and a conflicting one 409 naming the fields, storing nothing', async () => {
    const again = await post({ ...request, dropoff: { lon: 1.05, lat: 1.05 } });
    expect(again.statusCode).toBe(200);
    const conflict = await post({ ...request, ownerId: 'someone-else' });
    expect(conflict.statusCode).toBe(409);
    expect(JSON.parse(conflict.body).errors).toEqual([
      { path: 'ownerId', message: 'differs from the accepted delivery' },
    ]);
    expect(await world.getItem(tableName, 'DELIVERY#ing-1')).toMatchObject({
      version: 1,
      request: { ownerId: 'owner' },
    });
  });

  it("answers another requester's id 409 naming nothing of the delivery; the owner still gets the fields", async () => {
    const mine = { ...request, deliveryId: 'ing-owned', ownerId: 'owner-of-a' };
    expect((await post(mine)).statusCode).toBe(202);
    const theirs = await post(
      { ...mine, ownerId: 'owner-of-b', pickup: { lat: 1.02, lon: 1.02 } },
      {},
      TEST_REQUESTERS.b,
    );
    expect(theirs.statusCode).toBe(409);
    expect(JSON.parse(theirs.body)).toEqual({
      message: "Delivery id 'ing-owned' is not available; choose another deliveryId",
      errors: [{ path: 'deliveryId', message: 'is not available' }],
    });
    // Even B's body identical to A's is refused alike: no 200 that would confirm the data.
    const identical = await post(mine, {}, TEST_REQUESTERS.b);
    expect(identical.statusCode).toBe(409);
    expect(identical.body).toBe(theirs.body);
    const owner = await post({ ...mine, ownerId: 'changed' });
    expect(owner.statusCode).toBe(409);
    expect(JSON.parse(owner.body).errors).toEqual([
      { path: 'ownerId', message: 'differs from the accepted delivery' },
    ]);
    expect(await world.getItem(tableName, 'DELIVERY#ing-owned')).toMatchObject({
      version: 1,
      requesterId: TEST_REQUESTERS.a.requesterId,
      request: { ownerId: 'owner-of-a' },
    });
  });

  it("answers GET of another requester's delivery 404 exactly as an unknown id", async () => {
    expect((await read('ing-owned')).statusCode).toBe(200);
    const other = await read('ing-owned', TEST_REQUESTERS.b);
    const unknown = await read('ing-nobody', TEST_REQUESTERS.b);
    expect(other.statusCode).toBe(404);
    expect(other.body.replace('ing-owned', 'ID')).toBe(unknown.body.replace('ing-nobody', 'ID'));
  });

  it('refuses a key of no registered requester with 403, storing nothing', async () => {
    const stranger = { apiKeyId: 'key-id-unregistered' };
    const response = await post({ ...request, deliveryId: 'ing-stranger' }, {}, stranger);
    expect(response.statusCode).toBe(403);
    expect(await world.getItem(tableName, 'DELIVERY#ing-stranger')).toBeUndefined();
    expect((await read('ing-1', stranger)).statusCode).toBe(403);
  });

  it('stores nothing for an invalid request', async () => {
    const response = await post({ ...request, deliveryId: 'ing-bad', packages: [] });
    expect(response.statusCode).toBe(400);
    expect(await world.getItem(tableName, 'DELIVERY#ing-bad')).toBeUndefined();
  });

  it.each<[string, string, string, RegExp]>([
    [
      'a bidi override in ownerId',
      JSON.stringify({ ...request, deliveryId: 'ing-txt-1', ownerId: 'abc\u202Efed' }),
      'ownerId',
      /^contains U\+202E \(RIGHT-TO-LEFT OVERRIDE\) at index 3$/,
    ],
    [
      'NUL in ownerId',
      JSON.stringify({ ...request, deliveryId: 'ing-txt-2', ownerId: 'o\u0000' }),
      'ownerId',
      /U\+0000 \(NULL\)/,
    ],
    [
      'an ownerId not in NFC',
      JSON.stringify({ ...request, deliveryId: 'ing-txt-3', ownerId: 'Zoe\u0308' }),
      'ownerId',
      /not in Unicode normalization form NFC/,
    ],
    [
      'a zero-width joiner in deliveryId',
      JSON.stringify({ ...request, deliveryId: 'ing-txt-4\u200d' }),
      'deliveryId',
      /1-64 characters/,
    ],
    [
      'a duplicate key in a package (escaped)',
      JSON.stringify({ ...request, deliveryId: 'ing-txt-5' }).replace(
        '"size":',
        '"size":"LARGE","si\\u007ae":',
      ),
      'packages[0].size',
      /duplicate key: "size"/,
    ],
    [
      'a duplicate top-level key',
      JSON.stringify({ ...request, deliveryId: 'ing-txt-6' }).replace('{', '{"deliveryId":"ing-txt-6",'),
      'deliveryId',
      /duplicate key: "deliveryId"/,
    ],
  ])('refuses %s with 400 naming the field, storing nothing', async (_case, body, path, message) => {
    const response = await submit(
      {
        body,
        headers: {},
        isBase64Encoded: false,
        requestContext: requestContextOf(TEST_REQUESTERS.a),
      } as unknown as APIGatewayProxyEvent,
      lambdaContext,
    );
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body).errors).toEqual([{ path, message: expect.stringMatching(message) }]);
    for (const id of ['ing-txt-1', 'ing-txt-2', 'ing-txt-3', 'ing-txt-4', 'ing-txt-5', 'ing-txt-6']) {
      expect(await world.getItem(tableName, `DELIVERY#${id}`)).toBeUndefined();
    }
  });

  it('answers bad JSON with a fixed message that quotes nothing of the body', async () => {
    const response = await submit(
      {
        body: '{"deliveryId": "secret-delivery", ',
        headers: {},
        isBase64Encoded: false,
        requestContext: requestContextOf(TEST_REQUESTERS.a),
      } as unknown as APIGatewayProxyEvent,
      lambdaContext,
    );
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body)).toEqual({
      message: 'Request body is not valid JSON',
      errors: [{ path: '(body)', message: 'must be valid JSON' }],
    });
    expect(response.body).not.toContain('secret');
  });

  it('projects lifecycle events into GET, older never overwriting newer', async () => {
    const lifecycle = (type: EventType, sequence: number) =>
      sqsRecord(
        JSON.stringify(
          envelope(
            type,
            // DeliveryScheduled needs its window; the other lifecycle types ignore it.
            { droneId: 'drone-1', window: { start: '2030-01-01T00:00:00Z', end: '2030-01-01T00:30:00Z' } },
            { deliveryId: 'ing-1', producer: ServiceName.Delivery, sequence },
          ),
        ),
      );
    const picked = lifecycle(EventType.PickedUp, 2);
    expect(
      (await project({ Records: [picked, lifecycle(EventType.DeliveryScheduled, 1)] }, lambdaContext))
        .batchItemFailures,
    ).toEqual([]);
    await project({ Records: [picked] }, lambdaContext);
    const response = await read('ing-1');
    expect(response.statusCode).toBe(200);
    const body = JSON.parse(response.body);
    expect(body.status).toBe('PickedUp');
    expect(body.history.map((entry: { type: string }) => entry.type)).toEqual([
      EventType.DeliveryRequested,
      EventType.DeliveryScheduled,
      EventType.PickedUp,
    ]);
    expect((await read('unknown')).statusCode).toBe(404);
  });
});
