/**
 * The Drone Scheduler, the Delivery service and remediation handing work to each other through their
 * change logs and the scheduler's real dead-letter queue (DynamoDB Local, the SQS service), with the
 * relay's part played by the test: each change log entry is delivered as the body of a record, as
 * the relay publishes it. A busy fleet → NO_DRONE_AVAILABLE → RETRY → scheduled once the drone is
 * released; the contracts between the three services are what is under test.
 */
import { randomUUID } from 'node:crypto';
import {
  ChoreographyEnvKey,
  EventType,
  type OutboxEntry,
  ServiceName,
} from '../../../lambdas/choreography/contracts';
import { envelope, provisionService, sqsRecord, useChoreographyWorld } from './harness';
import {
  deliveryRequested,
  invoke,
  loadSqsHandler,
  receiveRecords,
  type SqsHandler,
} from './service-handlers';

const CONSUMER = { maxReceiveAttempts: 3, processedMessageTtlSeconds: 3600 };

describe('drone saga across the scheduler, the Delivery service and remediation', () => {
  const world = useChoreographyWorld();
  const tables: Record<string, string> = {};
  let schedulerDlq: string;
  let scheduler: SqsHandler;
  let delivery: SqsHandler;
  let remediation: SqsHandler;

  beforeAll(async () => {
    const droneScheduler = await provisionService(world, ServiceName.DroneScheduler, {
      ...CONSUMER,
      drones: ['drone-a'],
      maxRangeKm: 20,
      assignmentSeconds: 3600,
      pivotDelaySeconds: 0,
    });
    tables.scheduler = droneScheduler.tableName;
    schedulerDlq = droneScheduler.dlqUrl;
    scheduler = await loadSqsHandler(() => import('../../../lambdas/choreography/handlers/drone-scheduler'));
    tables.delivery = (
      await provisionService(world, ServiceName.Delivery, { ...CONSUMER, expectedFlightSeconds: 600 })
    ).tableName;
    delivery = await loadSqsHandler(() => import('../../../lambdas/choreography/handlers/delivery-service'));
    tables.remediation = (
      await provisionService(world, ServiceName.Remediation, {
        ...CONSUMER,
        // No back-off: the decision is taken on the first receive.
        retryBaseSeconds: 0,
        retryMaxSeconds: 0,
      })
    ).tableName;
    process.env[ChoreographyEnvKey.DeadLetterQueueUrls] = JSON.stringify({
      [ServiceName.DroneScheduler]: schedulerDlq,
    });
    remediation = await loadSqsHandler(() => import('../../../lambdas/choreography/handlers/remediation'));
  });

  const outboxOf = async (table: string, key: string) =>
    ((await world.getItem(tables[table] as string, key))?.outbox ?? []) as OutboxEntry[];
  /** Delivers change log entries as the relay would: each message as a record body, in order. */
  const relay = async (handler: SqsHandler, entries: readonly OutboxEntry[]) => {
    for (const entry of entries) {
      const body = JSON.stringify(entry.message);
      expect(await invoke(handler, [sqsRecord(body, { groupId: String(entry.message.deliveryId) })])).toEqual(
        [],
      );
    }
  };
  const asEntry = (message: Record<string, unknown>): OutboxEntry => ({
    id: String(message.eventId),
    destination: 'requests-topic',
    message,
  });
  const packageReady = (deliveryId: string) =>
    asEntry(
      envelope(
        EventType.PackageReady,
        { packages: [{ packageId: 'p1', weightGrams: 1200, size: 'SMALL' }], totalWeightGrams: 1200 },
        { deliveryId, producer: ServiceName.Package },
      ),
    );

  it('NO_DRONE_AVAILABLE → RETRY → scheduled after the drone is released', async () => {
    const first = `first-${randomUUID().slice(0, 6)}`;
    const second = `second-${randomUUID().slice(0, 6)}`;
    await relay(scheduler, [asEntry(deliveryRequested(first)), asEntry(deliveryRequested(second))]);

    // The second finds the one drone busy: unavailable for the Delivery service, dead-lettered.
    await relay(delivery, [packageReady(second), ...(await outboxOf('scheduler', `ASSIGNMENT#${second}`))]);
    expect(await world.getItem(tables.delivery as string, `DELIVERY#${second}`)).toMatchObject({
      status: 'Correlating',
      drone: { outcome: 'UNAVAILABLE' },
    });
    const letters = await receiveRecords(world, schedulerDlq);
    expect(letters).toHaveLength(1);

    // Remediation decides RETRY (first rung of NO_DRONE_AVAILABLE) for the scheduler.
    expect(await invoke(remediation, letters)).toEqual([]);
    const decisions = await outboxOf('remediation', `REMEDIATION#${second}`);
    expect(decisions.map((entry) => entry.message.data)).toEqual([
      expect.objectContaining({ decision: 'RETRY', source: 'drone-scheduler', occurrence: 1 }),
    ]);

    // The first delivery is compensated: its drone is released, then the retry finds it free.
    await relay(scheduler, [
      asEntry(
        envelope(
          EventType.RemediationDecided,
          {
            decision: 'COMPENSATE',
            reasonCode: 'PACKAGE_TOO_HEAVY',
            source: 'package',
            occurrence: 1,
            deadLetteredEventId: `ingestion:${first}:1`,
            detail: 'too heavy',
          },
          { deliveryId: first, producer: ServiceName.Remediation },
        ),
      ),
    ]);
    await relay(scheduler, decisions);
    const scheduledEntries = await outboxOf('scheduler', `ASSIGNMENT#${second}`);
    expect(scheduledEntries.map((entry) => [entry.message.type, entry.message.sequence])).toEqual([
      ['DroneUnavailable', 1],
      ['DroneScheduled', 2],
    ]);

    // The newer drone reply schedules the delivery.
    await relay(delivery, scheduledEntries.slice(1));
    const stored = await world.getItem(tables.delivery as string, `DELIVERY#${second}`);
    expect(stored).toMatchObject({
      status: 'Scheduled',
      drone: { outcome: 'SCHEDULED', droneId: 'drone-a' },
    });
    expect(((stored?.outbox ?? []) as OutboxEntry[]).map((entry) => entry.message.type)).toEqual([
      'DeliveryScheduled',
    ]);
  });
});
