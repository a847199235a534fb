/** The delivery API's operator route handlers as deployed, against DynamoDB Local. */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import {
  ChoreographyEnvKey,
  DELIVERY_LIST_MAX,
  type DeliveryDetailBody,
  type DeliveryListBody,
  EventType,
  ServiceName,
} from '../../../lambdas/choreography/contracts';
import { BROWSER_ORIGIN_ENV } from '../../../lambdas/shared/http';
import { envelope, lambdaContext, provisionService, useChoreographyWorld } from './harness';

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
            dropoff: { lat: 2, lon: 2 },
            packages: [{ packageId: 'p1', weightGrams: 100, size: 'SMALL' }],
          }),
          headers: {},
          isBase64Encoded: false,
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
});
