/** The delivery API's operator route handlers as deployed, against DynamoDB Local. */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { queryDeliveryRecords } from '../../../lambdas/choreography/adapters/delivery-trail';
import {
  ChoreographyEnvKey,
  DELIVERY_LIST_MAX,
  type DeliveryDetailBody,
  type DeliveryListBody,
  EventType,
  ServiceName,
} from '../../../lambdas/choreography/contracts';
import { BROWSER_ORIGIN_ENV } from '../../../lambdas/shared/http';
import {
  envelope,
  lambdaContext,
  provisionService,
  requestContextOf,
  TEST_REQUESTERS,
  useChoreographyWorld,
} from './harness';

type ApiHandler = (
  event: APIGatewayProxyEvent,
  context: typeof lambdaContext,
) => Promise<APIGatewayProxyResult>;

describe('operator routes of the delivery API', () => {
  const world = useChoreographyWorld();
  const tables = { ingestion: '', package: '', droneScheduler: '', delivery: '', remediation: '' };
  let list: ApiHandler;
  let show: ApiHandler;
  let submit: ApiHandler;
  const ORIGIN = 'https://console.example';

  beforeAll(async () => {
    ({ tableName: tables.ingestion } = await provisionService(world, ServiceName.Ingestion, {
      maxReceiveAttempts: 3,
      processedMessageTtlSeconds: 3600,
      maxRangeKm: 15,
      maxPayloadGrams: 5000,
    }));
    tables.package = await world.table();
    tables.droneScheduler = await world.table();
    tables.delivery = await world.table();
    tables.remediation = await world.table();
    process.env[ChoreographyEnvKey.DeliveryTables] = JSON.stringify(tables);
    process.env[BROWSER_ORIGIN_ENV] = ORIGIN;
    submit = (await import('../../../lambdas/choreography/handlers/submit-delivery')).handler as ApiHandler;
    list = (await import('../../../lambdas/choreography/handlers/operator-deliveries')).handler as ApiHandler;
    show = (await import('../../../lambdas/choreography/handlers/operator-delivery')).handler as ApiHandler;
    for (const deliveryId of ['op-1', 'op-2']) {
      const accepted = await submit(
        {
          body: JSON.stringify({
            deliveryId,
            ownerId: 'owner',
            pickup: { lat: 1, lon: 1 },
            dropoff: { lat: 1.05, lon: 1.05 },
            packages: [{ packageId: 'p1', weightGrams: 100, size: 'SMALL' }],
          }),
          headers: {},
          isBase64Encoded: false,
          requestContext: requestContextOf(TEST_REQUESTERS.a),
        } as unknown as APIGatewayProxyEvent,
        lambdaContext,
      );
      expect(accepted.statusCode).toBe(202);
    }
    // What the package service and remediation wrote of op-1: a rejection, its dead letter and the decision.
    const rejected = envelope(
      EventType.PackageRejected,
      { reasonCode: 'PACKAGE_TOO_HEAVY' },
      { deliveryId: 'op-1', producer: ServiceName.Package },
    );
    await world.documents.send(
      new PutCommand({
        TableName: tables.package,
        Item: {
          pk: 'PACKAGES#op-1',
          outbox: [{ id: rejected.eventId, destination: 'requests-topic', message: rejected }],
        },
      }),
    );
    await world.documents.send(
      new PutCommand({
        TableName: tables.remediation,
        Item: {
          pk: 'REMEDIATION#op-1',
          decisions: [
            {
              decidedAt: new Date().toISOString(),
              reasonCode: 'PACKAGE_TOO_HEAVY',
              source: 'package',
              occurrence: 1,
              decision: 'COMPENSATE',
            },
          ],
        },
      }),
    );
  });

  afterAll(() => {
    delete process.env[BROWSER_ORIGIN_ENV];
    delete process.env[ChoreographyEnvKey.DeliveryTables];
  });

  const get = (handler: ApiHandler, event: Partial<APIGatewayProxyEvent>) =>
    handler({ headers: {}, ...event } as unknown as APIGatewayProxyEvent, lambdaContext);

  it('lists the deliveries newest first, readable by the console origin', async () => {
    const answer = await get(list, {});
    expect(answer.statusCode).toBe(200);
    expect(answer.headers?.['Access-Control-Allow-Origin']).toBe(ORIGIN);
    const body = JSON.parse(answer.body) as DeliveryListBody;
    expect(body.items.map((row) => [row.deliveryId, row.status])).toEqual([
      ['op-2', 'Requested'],
      ['op-1', 'Requested'],
    ]);
    expect(body.items.length).toBeLessThanOrEqual(DELIVERY_LIST_MAX);
  });

  it('filters by status, and refuses a status that does not exist (400 naming it)', async () => {
    const none = await get(list, { queryStringParameters: { status: 'Delivered' } });
    expect(JSON.parse(none.body)).toEqual({ items: [] });
    const bad = await get(list, { queryStringParameters: { status: 'Lost' } });
    expect(bad.statusCode).toBe(400);
    expect(JSON.parse(bad.body).errors[0].path).toBe('status');
  });

  it('shows one delivery: its status and the trail across services, the dead letter and its decision included', async () => {
    const answer = await get(show, { pathParameters: { deliveryId: 'op-1' } });
    expect(answer.statusCode).toBe(200);
    const body = JSON.parse(answer.body) as DeliveryDetailBody;
    expect(body.status).toMatchObject({ deliveryId: 'op-1', status: 'Requested' });
    expect(body.trail.map((entry) => [entry.service, entry.kind, entry.what])).toEqual(
      expect.arrayContaining([
        ['ingestion', 'event', 'DeliveryRequested'],
        ['package', 'event', 'PackageRejected'],
        ['remediation', 'dead-letter', 'PACKAGE_TOO_HEAVY'],
      ]),
    );
    expect(body.trail.find((entry) => entry.kind === 'dead-letter')?.detail).toBe(
      'from package (occurrence 1): decided COMPENSATE',
    );
  });

  it('answers 404 for a delivery no service knows, and 400 for an id that cannot be one', async () => {
    const unknown = await get(show, { pathParameters: { deliveryId: 'op-none' } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers?.['Access-Control-Allow-Origin']).toBe(ORIGIN);
    const bad = await get(show, { pathParameters: { deliveryId: 'no/such' } });
    expect(bad.statusCode).toBe(400);
  });

  it('reads the newest deliveries of each status from the index: never more than the list shows, whatever the table holds', async () => {
    // Five more Delivered deliveries than a list shows, accepted a second apart long before op-1/op-2,
    // and an item that is not a delivery (a processed-message marker: no status, not indexed).
    const extra = DELIVERY_LIST_MAX + 5;
    const acceptedAt = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
    for (let from = 0; from < extra; from += 25) {
      await Promise.all(
        Array.from({ length: Math.min(25, extra - from) }, (_, k) => from + k).map((i) =>
          world.documents.send(
            new PutCommand({
              TableName: tables.ingestion,
              Item: {
                pk: `DELIVERY#bulk-${i}`,
                status: 'Delivered',
                acceptedAt: acceptedAt(i),
                updatedAt: acceptedAt(i),
                correlationId: `corr-bulk-${i}`,
              },
            }),
          ),
        ),
      );
    }
    await world.documents.send(
      new PutCommand({ TableName: tables.ingestion, Item: { pk: 'MESSAGE#m-1', expiresAt: 1 } }),
    );

    // What the adapter reads: the newest DELIVERY_LIST_MAX of the status, never the whole table.
    const read = await queryDeliveryRecords(world.documents, tables.ingestion, 'Delivered');
    expect(read).toHaveLength(DELIVERY_LIST_MAX);
    expect(read.map((item) => item.pk)).not.toContain('DELIVERY#bulk-4');
    const readAll = await queryDeliveryRecords(world.documents, tables.ingestion);
    expect(readAll).toHaveLength(DELIVERY_LIST_MAX + 2);

    const delivered = JSON.parse(
      (await get(list, { queryStringParameters: { status: 'Delivered' } })).body,
    ) as DeliveryListBody;
    expect(delivered.items).toHaveLength(DELIVERY_LIST_MAX);
    expect(delivered.items[0]).toEqual({
      deliveryId: `bulk-${extra - 1}`,
      status: 'Delivered',
      correlationId: `corr-bulk-${extra - 1}`,
      acceptedAt: acceptedAt(extra - 1),
      updatedAt: acceptedAt(extra - 1),
    });
    expect(delivered.items.at(-1)?.deliveryId).toBe('bulk-5');

    // Every status at once: the newest of all (op-2 and op-1, accepted today) come first.
    const all = JSON.parse((await get(list, {})).body) as DeliveryListBody;
    expect(all.items).toHaveLength(DELIVERY_LIST_MAX);
    expect(all.items.slice(0, 3).map((row) => row.deliveryId)).toEqual(['op-2', 'op-1', `bulk-${extra - 1}`]);
    expect(all.items.map((row) => row.deliveryId)).not.toContain('m-1');
  });
});
