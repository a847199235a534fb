/**
 * The fake drone fleet handler against the runtime's SQS service: its reports reach a real FIFO
 * delivery queue in order, with the delivery as group, the event id as deduplication id and the
 * attributes every message of that queue carries.
 */
import { randomUUID } from 'node:crypto';
import {
  ChoreographyEnvKey,
  EventType,
  MessageAttribute,
  ServiceName,
} from '../../../lambdas/choreography/contracts';
import { envelope, sqsRecord, useChoreographyWorld, useServiceEnvironment } from '../choreography/harness';
import { invoke, loadSqsHandler, type SqsHandler } from '../choreography/service-handlers';

const FLIGHT = { pickupMillis: 30, flightMillis: 60, failingDeliveryPrefix: 'crash-' };

describe('fake drone fleet handler (SQS service)', () => {
  const world = useChoreographyWorld();
  let handler: SqsHandler;
  let deliveryQueueUrl: string;
  beforeAll(async () => {
    deliveryQueueUrl = await world.fifoQueue();
    useServiceEnvironment(world, ServiceName.DroneFleet, {
      tableName: 'unused-by-the-fleet',
      deadLetterQueueUrl: deliveryQueueUrl,
      settings: FLIGHT,
    });
    process.env[ChoreographyEnvKey.DeliveryQueueUrl] = deliveryQueueUrl;
    handler = await loadSqsHandler(() => import('../../../lambdas/fakes/handlers/drone-fleet'));
  });

  const scheduled = (deliveryId: string) =>
    JSON.stringify(
      envelope(
        EventType.DeliveryScheduled,
        {
          droneId: 'drone-a',
          window: { start: new Date().toISOString(), end: new Date().toISOString() },
          estimatedArrival: new Date().toISOString(),
        },
        { deliveryId, producer: ServiceName.Delivery },
      ),
    );

  it('reports PICKED_UP then DELIVERED to the delivery queue, keyed and attributed like relayed messages', async () => {
    const deliveryId = `d-${randomUUID().slice(0, 8)}`;
    const started = Date.now();
    expect(await invoke(handler, [sqsRecord(scheduled(deliveryId))])).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(FLIGHT.pickupMillis + FLIGHT.flightMillis);

    const messages = await world.drain(deliveryQueueUrl);
    expect(messages.map((message) => JSON.parse(message.Body ?? '{}'))).toEqual([
      expect.objectContaining({
        type: 'FlightProgress',
        eventId: `drone-fleet:${deliveryId}:1`,
        sequence: 1,
        correlationId: `corr-${deliveryId}`,
        data: { droneId: 'drone-a', stage: 'PICKED_UP' },
      }),
      expect.objectContaining({
        eventId: `drone-fleet:${deliveryId}:2`,
        data: { droneId: 'drone-a', stage: 'DELIVERED' },
      }),
    ]);
    expect(messages.map((message) => message.Attributes?.MessageGroupId)).toEqual([deliveryId, deliveryId]);
    expect(messages.map((message) => message.Attributes?.MessageDeduplicationId)).toEqual([
      `drone-fleet:${deliveryId}:1`,
      `drone-fleet:${deliveryId}:2`,
    ]);
    expect(messages[0]?.MessageAttributes?.[MessageAttribute.Type]?.StringValue).toBe('FlightProgress');
    expect(messages[0]?.MessageAttributes?.[MessageAttribute.CorrelationId]?.StringValue).toBe(
      `corr-${deliveryId}`,
    );
  });

  it('a redelivered schedule flies again under the same event ids: the queue keeps one copy of each', async () => {
    const deliveryId = `crash-${randomUUID().slice(0, 8)}`;
    await invoke(handler, [sqsRecord(scheduled(deliveryId))]);
    await invoke(handler, [sqsRecord(scheduled(deliveryId))]);
    const messages = await world.drain(deliveryQueueUrl);
    expect(messages.map((message) => JSON.parse(message.Body ?? '{}').data)).toEqual([
      { droneId: 'drone-a', stage: 'PICKED_UP' },
      { droneId: 'drone-a', stage: 'FAILED', reasonCode: 'FLIGHT_FAILED' },
    ]);
  });

  it('drops what is not a schedule without failing the batch', async () => {
    expect(
      await invoke(handler, [sqsRecord('not json'), sqsRecord(JSON.stringify({ deliveryId: 'x' }))]),
    ).toEqual([]);
    expect(await world.drain(deliveryQueueUrl)).toEqual([]);
  });
});
