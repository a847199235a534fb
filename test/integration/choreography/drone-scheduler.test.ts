/**
 * The Drone Scheduler handler against DynamoDB Local and the runtime's SQS service: its ASSIGNMENT#
 * and DRONE# items, its change log, its dead letters, and the rule that one drone never holds two
 * overlapping windows however many deliveries are scheduled at once.
 */
import { randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import {
  type DroneSchedulerSettings,
  EventType,
  MessageAttribute,
  type OutboxEntry,
  ServiceName,
} from '../../../lambdas/choreography/contracts';
import { overlaps } from '../../../lambdas/choreography/domain/drone-scheduler';
import { envelope, provisionService, sqsRecord, useChoreographyWorld } from './harness';
import { deliveryRequested, invoke, loadSqsHandler, type SqsHandler } from './service-handlers';

const requested = (deliveryId: string, dropoff?: { lat: number; lon: number }) =>
  JSON.stringify(deliveryRequested(deliveryId, dropoff));
const decided = (deliveryId: string, decision: string, sequence: number, retryOf?: string) =>
  JSON.stringify(
    envelope(
      EventType.RemediationDecided,
      {
        decision,
        reasonCode: 'NO_DRONE_AVAILABLE',
        source: ServiceName.DroneScheduler,
        occurrence: sequence,
        deadLetteredEventId: `ingestion:${deliveryId}:1`,
        detail: 'decided in a test',
        ...(retryOf ? { retryOf: JSON.parse(retryOf) } : {}),
      },
      { deliveryId, producer: ServiceName.Remediation, sequence },
    ),
  );

describe('Drone Scheduler handler (DynamoDB Local, SQS service)', () => {
  const world = useChoreographyWorld();

  async function scheduler(overrides: Partial<DroneSchedulerSettings> = {}) {
    const settings: DroneSchedulerSettings = {
      maxReceiveAttempts: 3,
      processedMessageTtlSeconds: 3600,
      drones: ['drone-a', 'drone-b'],
      maxRangeKm: 20,
      assignmentSeconds: 3600,
      pivotDelaySeconds: 7200,
      ...overrides,
    };
    const { tableName, dlqUrl } = await provisionService(world, ServiceName.DroneScheduler, settings);
    const handler: SqsHandler = await loadSqsHandler(
      () => import('../../../lambdas/choreography/handlers/drone-scheduler'),
    );
    const item = (key: string) => world.getItem(tableName, key);
    const outboxOf = async (deliveryId: string) =>
      ((await item(`ASSIGNMENT#${deliveryId}`))?.outbox ?? []) as OutboxEntry[];
    return { handler, tableName, dlqUrl, item, outboxOf, settings };
  }
  const id = () => `d-${randomUUID().slice(0, 8)}`;

  it('fails at cold start naming SERVICE_SETTINGS when the settings are bad', async () => {
    await provisionService(world, ServiceName.DroneScheduler, {
      maxReceiveAttempts: 3,
      processedMessageTtlSeconds: 3600,
      drones: [],
      maxRangeKm: -1,
    });
    await expect(
      loadSqsHandler(() => import('../../../lambdas/choreography/handlers/drone-scheduler')),
    ).rejects.toThrow(/SERVICE_SETTINGS is not valid: .*drones/);
  });

  it('schedules a drone: ASSIGNMENT# with the window, DRONE# booked, DroneScheduled in the change log', async () => {
    const s = await scheduler();
    const deliveryId = id();
    expect(await invoke(s.handler, [sqsRecord(requested(deliveryId), { groupId: deliveryId })])).toEqual([]);

    const assignment = await s.item(`ASSIGNMENT#${deliveryId}`);
    expect(assignment).toMatchObject({ status: 'SCHEDULED', droneId: 'drone-a', attempt: 1, sequence: 1 });
    const drone = await s.item('DRONE#drone-a');
    expect(drone).toMatchObject({
      version: 1,
      assignments: [{ deliveryId, ...(assignment?.window as object) }],
    });
    const [entry] = await s.outboxOf(deliveryId);
    expect(entry).toMatchObject({
      id: `drone-scheduler:${deliveryId}:1`,
      destination: 'delivery-queue',
      message: {
        type: 'DroneScheduled',
        sequence: 1,
        correlationId: `corr-${deliveryId}`,
        data: { droneId: 'drone-a' },
      },
    });
  });

  it('a redelivered request changes nothing', async () => {
    const s = await scheduler();
    const deliveryId = id();
    const record = sqsRecord(requested(deliveryId), { groupId: deliveryId });
    await invoke(s.handler, [record]);
    const before = await s.item(`ASSIGNMENT#${deliveryId}`);
    expect(await invoke(s.handler, [{ ...record, messageId: randomUUID() }])).toEqual([]);
    expect(await s.item(`ASSIGNMENT#${deliveryId}`)).toEqual(before);
    expect(await s.item('DRONE#drone-a')).toMatchObject({ version: 1 });
  });

  it('an out-of-range delivery is DroneUnavailable and dead-lettered NO_DRONE_AVAILABLE with its attempt', async () => {
    const s = await scheduler();
    const deliveryId = id();
    await invoke(s.handler, [
      sqsRecord(requested(deliveryId, { lat: 53.55, lon: 9.99 }), { groupId: deliveryId }),
    ]);
    expect(await s.item(`ASSIGNMENT#${deliveryId}`)).toMatchObject({ status: 'UNAVAILABLE', attempt: 1 });
    expect((await s.outboxOf(deliveryId))[0]?.message).toMatchObject({
      type: 'DroneUnavailable',
      data: { reasonCode: 'NO_DRONE_AVAILABLE', attempt: 1 },
    });
    const [letter, ...more] = await world.drain(s.dlqUrl);
    expect(more).toEqual([]);
    expect(JSON.parse(letter?.Body ?? '{}')).toMatchObject({ deliveryId, type: 'DeliveryRequested' });
    expect(letter?.MessageAttributes?.[MessageAttribute.ReasonCode]?.StringValue).toBe('NO_DRONE_AVAILABLE');
    expect(letter?.MessageAttributes?.[MessageAttribute.DeadLetteredBy]?.StringValue).toBe('drone-scheduler');
    expect(letter?.MessageAttributes?.[MessageAttribute.Attempt]?.StringValue).toBe('1');
  });

  it('a PIVOT books a later window on a drone that is busy now; COMPENSATE then frees it', async () => {
    const s = await scheduler({ drones: ['drone-a'] });
    const first = id();
    const second = id();
    await invoke(s.handler, [sqsRecord(requested(first), { groupId: first })]);
    await invoke(s.handler, [sqsRecord(requested(second), { groupId: second })]);
    expect(await s.item(`ASSIGNMENT#${second}`)).toMatchObject({ status: 'UNAVAILABLE', attempt: 1 });

    await invoke(s.handler, [sqsRecord(decided(second, 'PIVOT', 1, requested(second)), { groupId: second })]);
    const pivoted = await s.item(`ASSIGNMENT#${second}`);
    expect(pivoted).toMatchObject({ status: 'SCHEDULED', droneId: 'drone-a', attempt: 2 });
    expect((await s.item('DRONE#drone-a'))?.assignments).toHaveLength(2);

    await invoke(s.handler, [sqsRecord(decided(second, 'COMPENSATE', 2), { groupId: second })]);
    expect(await s.item(`ASSIGNMENT#${second}`)).toMatchObject({ status: 'RELEASED', droneId: 'drone-a' });
    expect((await s.item('DRONE#drone-a'))?.assignments).toEqual([
      expect.objectContaining({ deliveryId: first }),
    ]);
    expect((await s.outboxOf(second)).map((entry) => entry.message.type)).toEqual([
      'DroneUnavailable',
      'DroneScheduled',
      'DroneReleased',
    ]);
    // A request that comes after the release is refused as cancelled, and not dead-lettered.
    await world.drain(s.dlqUrl);
    const late = sqsRecord(decided(second, 'RETRY', 3, requested(second)), { groupId: second });
    await invoke(s.handler, [late]);
    expect((await s.outboxOf(second)).at(-1)?.message).toMatchObject({
      type: 'DroneUnavailable',
      data: { reasonCode: 'DELIVERY_CANCELLED' },
    });
    expect(await world.drain(s.dlqUrl)).toEqual([]);
  });

  it('never double-books a drone: many deliveries at once on a small fleet', async () => {
    const drones = ['drone-a', 'drone-b', 'drone-c'];
    // Long windows all starting now: every two of them overlap, so a drone can take one delivery.
    const s = await scheduler({ drones, maxReceiveAttempts: 10 });
    const deliveries = Array.from({ length: 12 }, id);
    let pending: SQSRecord[] = deliveries.map((deliveryId) =>
      sqsRecord(requested(deliveryId), { groupId: deliveryId }),
    );
    // One invocation per message group, all at once, as Lambda scales out over FIFO groups; a
    // record that lost the race too often is reported failed and comes back, as SQS would bring it.
    for (let round = 2; pending.length > 0; round += 1) {
      if (round > 10) throw new Error('records still failing after 10 receives');
      const failed = (await Promise.all(pending.map((record) => invoke(s.handler, [record])))).flat();
      pending = pending
        .filter((record) => failed.includes(record.messageId))
        .map((record) =>
          sqsRecord(record.body, { groupId: record.attributes.MessageGroupId, receiveCount: round }),
        );
    }

    const assignments = await Promise.all(deliveries.map((deliveryId) => s.item(`ASSIGNMENT#${deliveryId}`)));
    const scheduled = assignments.filter((assignment) => assignment?.status === 'SCHEDULED');
    expect(scheduled).toHaveLength(drones.length);
    expect(assignments.filter((assignment) => assignment?.status === 'UNAVAILABLE')).toHaveLength(
      deliveries.length - drones.length,
    );
    expect(new Set(scheduled.map((assignment) => assignment?.droneId)).size).toBe(drones.length);

    for (const droneId of drones) {
      const drone = await s.item(`DRONE#${droneId}`);
      const bookings = (drone?.assignments ?? []) as { deliveryId: string; start: string; end: string }[];
      for (const [index, booking] of bookings.entries()) {
        for (const other of bookings.slice(index + 1)) expect(overlaps(booking, other)).toBe(false);
      }
      // The DRONE# item and the ASSIGNMENT# items tell the same story.
      expect(bookings.map((booking) => booking.deliveryId)).toEqual(
        scheduled
          .filter((assignment) => assignment?.droneId === droneId)
          .map((assignment) => String(assignment?.pk).slice('ASSIGNMENT#'.length)),
      );
    }
    // Every refusal was dead-lettered once for remediation.
    expect(await world.drain(s.dlqUrl)).toHaveLength(deliveries.length - drones.length);
  });
});
