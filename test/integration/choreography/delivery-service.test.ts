/**
 * The Delivery service handler against DynamoDB Local and the runtime's SQS service: correlation of
 * replies arriving in any order and more than once, the lifecycle it writes to its change log for
 * the delivery bus (sequence 1, 2, … per delivery), and terminal statuses.
 */
import { randomUUID } from 'node:crypto';
import {
  type DeliverySettings,
  EventType,
  type OutboxEntry,
  ServiceName,
} from '../../../lambdas/choreography/contracts';
import { envelope, provisionService, sqsRecord, useChoreographyWorld } from './harness';
import { invoke, loadSqsHandler, type SqsHandler } from './service-handlers';

const SETTINGS: DeliverySettings = {
  maxReceiveAttempts: 3,
  processedMessageTtlSeconds: 3600,
  expectedFlightSeconds: 900,
};
const WINDOW = { start: '2030-01-01T10:00:00.000Z', end: '2030-01-01T11:00:00.000Z' };

describe('Delivery service handler (DynamoDB Local, SQS service)', () => {
  const world = useChoreographyWorld();
  let handler: SqsHandler;
  let tableName: string;
  let dlqUrl: string;
  beforeAll(async () => {
    ({ tableName, dlqUrl } = await provisionService(world, ServiceName.Delivery, SETTINGS));
    handler = await loadSqsHandler(() => import('../../../lambdas/choreography/handlers/delivery-service'));
  });

  const id = () => `d-${randomUUID().slice(0, 8)}`;
  const message = (
    deliveryId: string,
    type: EventType,
    producer: ServiceName,
    sequence: number,
    data: object,
  ) => JSON.stringify(envelope(type, data as Record<string, unknown>, { deliveryId, producer, sequence }));
  const packageReady = (deliveryId: string) =>
    message(deliveryId, EventType.PackageReady, ServiceName.Package, 1, {
      packages: [{ packageId: 'p1', weightGrams: 1200, size: 'SMALL' }],
      totalWeightGrams: 1200,
    });
  const droneScheduled = (deliveryId: string, sequence = 1) =>
    message(deliveryId, EventType.DroneScheduled, ServiceName.DroneScheduler, sequence, {
      droneId: 'drone-a',
      window: WINDOW,
      attempt: sequence,
    });
  const droneUnavailable = (deliveryId: string, sequence: number) =>
    message(deliveryId, EventType.DroneUnavailable, ServiceName.DroneScheduler, sequence, {
      reasonCode: 'NO_DRONE_AVAILABLE',
      detail: 'busy',
      attempt: sequence,
    });
  const flight = (deliveryId: string, stage: string, sequence: number) =>
    message(deliveryId, EventType.FlightProgress, ServiceName.DroneFleet, sequence, {
      droneId: 'drone-a',
      stage,
    });
  const compensate = (deliveryId: string) =>
    message(deliveryId, EventType.RemediationDecided, ServiceName.Remediation, 1, {
      decision: 'COMPENSATE',
      reasonCode: 'PACKAGE_TOO_HEAVY',
      source: 'package',
      occurrence: 1,
      deadLetteredEventId: `package:${deliveryId}:1`,
      detail: 'too heavy for any drone',
    });

  /** Each body as its own invocation, in order, as the FIFO group hands them out. */
  async function deliver(deliveryId: string, ...bodies: string[]) {
    for (const body of bodies)
      expect(await invoke(handler, [sqsRecord(body, { groupId: deliveryId })])).toEqual([]);
  }
  const item = (deliveryId: string) => world.getItem(tableName, `DELIVERY#${deliveryId}`);
  const lifecycle = async (deliveryId: string) =>
    (((await item(deliveryId))?.outbox ?? []) as OutboxEntry[]).map((entry) => ({
      destination: entry.destination,
      type: entry.message.type,
      sequence: entry.message.sequence,
    }));

  it('drone reply first, package second: Scheduled, DeliveryScheduled v2 with the estimated arrival', async () => {
    const deliveryId = id();
    await deliver(deliveryId, droneScheduled(deliveryId));
    expect(await item(deliveryId)).toMatchObject({ status: 'Correlating', sequence: 0 });
    await deliver(deliveryId, packageReady(deliveryId));
    const stored = await item(deliveryId);
    expect(stored).toMatchObject({
      status: 'Scheduled',
      sequence: 1,
      package: { outcome: 'READY', sequence: 1 },
      drone: { outcome: 'SCHEDULED', droneId: 'drone-a', window: WINDOW },
    });
    expect(((stored?.outbox ?? []) as OutboxEntry[])[0]).toMatchObject({
      id: `delivery:${deliveryId}:1`,
      destination: 'delivery-bus',
      message: {
        type: 'DeliveryScheduled',
        schemaVersion: 2,
        producer: 'delivery',
        data: { droneId: 'drone-a', window: WINDOW, estimatedArrival: '2030-01-01T10:15:00.000Z' },
      },
    });
  });

  it('duplicates and stale replies change nothing; the lifecycle is numbered 1, 2, 3 even when DELIVERED overtakes PICKED_UP', async () => {
    const deliveryId = id();
    await deliver(
      deliveryId,
      droneScheduled(deliveryId, 2),
      droneUnavailable(deliveryId, 1),
      packageReady(deliveryId),
      packageReady(deliveryId),
      flight(deliveryId, 'DELIVERED', 2),
      flight(deliveryId, 'PICKED_UP', 1),
    );
    expect(await item(deliveryId)).toMatchObject({
      status: 'Delivered',
      drone: { sequence: 2 },
      sequence: 3,
    });
    expect(await lifecycle(deliveryId)).toEqual([
      { destination: 'delivery-bus', type: 'DeliveryScheduled', sequence: 1 },
      { destination: 'delivery-bus', type: 'PickedUp', sequence: 2 },
      { destination: 'delivery-bus', type: 'Delivered', sequence: 3 },
    ]);
  });

  it('COMPENSATE cancels; the terminal status never changes after it', async () => {
    const deliveryId = id();
    await deliver(deliveryId, compensate(deliveryId), packageReady(deliveryId), droneScheduled(deliveryId));
    expect(await item(deliveryId)).toMatchObject({ status: 'Cancelled', sequence: 1 });
    expect(await lifecycle(deliveryId)).toEqual([
      { destination: 'delivery-bus', type: 'DeliveryCancelled', sequence: 1 },
    ]);
  });

  it('a FAILED flight is DeliveryFailed with FLIGHT_FAILED; nothing is dead-lettered on the way', async () => {
    const deliveryId = id();
    await deliver(
      deliveryId,
      packageReady(deliveryId),
      droneScheduled(deliveryId),
      flight(deliveryId, 'FAILED', 1),
    );
    const stored = await item(deliveryId);
    expect(stored?.status).toBe('Failed');
    expect(((stored?.outbox ?? []) as OutboxEntry[]).at(-1)?.message).toMatchObject({
      type: 'DeliveryFailed',
      data: { reasonCode: 'FLIGHT_FAILED' },
    });
    expect(await world.drain(dlqUrl)).toEqual([]);
  });
});
