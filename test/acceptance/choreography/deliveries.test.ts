/**
 * Black-box acceptance scenarios of the drone delivery choreography (stack DroneDelivery). They talk
 * to the delivery API, read the services' tables (each service's state item and change log), send
 * messages to consumer queues (duplicates, late and reordered reports, poison), read the operator
 * alert inbox and subscribe an unknown consumer to the delivery bus through the EventBridge API.
 * Everything goes through the target description (test/acceptance/target.ts, DELIVERIES_APP).
 *
 * Where it runs:
 *   - the local runtime (npm test, or ACCEPTANCE_TARGET=.local/target.json): every scenario.
 *   - LocalStack and AWS (npm run test:localstack | test:aws): every scenario but the
 *     `npm run deliveries -- show` check, skipped there because the CLI reads the local runtime's
 *     target description. The caller needs, besides the API key, rights to read the five service
 *     tables, send to the package and delivery queues, receive from the alert inbox, create and
 *     delete an SQS queue and put/remove a rule and its target on the delivery bus. With the
 *     default profile a flight takes 4 minutes and the no-drone ladder about 7 (back-off 60, 120,
 *     240 s), within ACCEPTANCE_PROFILE=default's bounds. Neither was run for this suite yet.
 * The scenarios rely on the drones' limits (5 kg payload, 15 km range in every profile): too heavy
 * is 125 kg, out of range is Seattle to Sydney. The API refuses both (400 naming packages or
 * dropoff); the services' own checks are reached with deliveries accepted past the door
 * (system.acceptPastTheDoor: submit-delivery's adapter writing to the ingestion table, as a
 * delivery accepted before the limits shrank), so the caller also needs PutItem on that table.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import {
  type DeliveryDetailBody,
  type DeliveryListBody,
  EventType,
  OperatorDeliveryRoute,
  ServiceName,
  type SubmitDeliveryRequest,
} from '../../../lambdas/choreography/contracts';
import { acceptanceTarget, scenarioTimeoutMs, TARGET_ENV } from '../setup';
import { DELIVERIES_APP } from '../target';
import { type ChangeLogEntry, DeliverySystemClient, ServiceTable, type Watcher } from './system-client';

const runId = randomUUID().slice(0, 8);
const deliveryIdOf = (name: string) => `acc-${runId}-${name}`;
// About 2 km apart in Seattle: within any drone's range.
const SEATTLE = { lat: 47.6062, lon: -122.3321 };
const NEARBY = { lat: 47.6205, lon: -122.3493 };
// Sydney: about 12,500 km from Seattle, beyond any drone's range (NO_DRONE_AVAILABLE).
const SYDNEY = { lat: -33.8688, lon: 151.2093 };

const delivery = (id: string, overrides: Record<string, unknown> = {}) => ({
  deliveryId: id,
  ownerId: 'owner-42',
  pickup: SEATTLE,
  dropoff: NEARBY,
  packages: [{ packageId: 'parcel-1', weightGrams: 1200, size: 'SMALL' }],
  ...overrides,
});
// Five packages of the heaviest weight the API accepts (125 kg): more than any drone carries.
const TOO_HEAVY = Array.from({ length: 5 }, (_, index) => ({
  packageId: `crate-${index + 1}`,
  weightGrams: 25_000,
  size: 'LARGE',
}));

interface HistoryEntry {
  readonly type: string;
  readonly producer: string;
  readonly sequence: number;
  readonly schemaVersion: number;
  readonly occurredAt: string;
  readonly reasonCode?: string;
}

const history = (body: { history: readonly HistoryEntry[] }) =>
  body.history.map(({ type, producer, sequence, reasonCode }) => ({
    type,
    producer,
    sequence,
    ...(reasonCode ? { reasonCode } : {}),
  }));
const typesOf = (log: readonly ChangeLogEntry[]) => log.map((entry) => entry.message.type);
const ofDelivery = (events: readonly Record<string, unknown>[], id: string) =>
  events.filter((event) => event.deliveryId === id);

/**
 * What a consumer of the bus makes of one delivery's events, as the README tells it to: drop copies
 * by event id, order by the sequence number (EventBridge promises no delivery order, so two events
 * published together may arrive either way round).
 */
const resequenced = (events: readonly Record<string, unknown>[], id: string) => {
  const byEventId = new Map(ofDelivery(events, id).map((event) => [event.eventId, event]));
  return [...byEventId.values()].sort((a, b) => Number(a.sequence) - Number(b.sequence));
};

/** Whether the consumer holds every event up to one of `types`, with no gap in the sequence. */
const complete = (events: readonly Record<string, unknown>[], types: readonly string[]) =>
  events.some((event) => types.includes(String(event.type))) &&
  events.every((event, index) => event.sequence === index + 1);

/**
 * A drone's FlightProgress report as the fake fleet sends it (event id `drone-fleet:<id>:<n>`),
 * sent by a test straight to the Delivery service's queue: early, late or out of order.
 */
const flightReport = (
  id: string,
  sequence: number,
  data: { droneId: string; stage: 'PICKED_UP' | 'DELIVERED' | 'FAILED'; reasonCode?: string },
  correlationId: string,
  eventId = `drone-fleet:${id}:${sequence}`,
) =>
  JSON.stringify({
    type: EventType.FlightProgress,
    schemaVersion: 1,
    eventId,
    deliveryId: id,
    correlationId,
    sequence,
    producer: ServiceName.DroneFleet,
    occurredAt: new Date().toISOString(),
    data,
  });

/** Statuses a delivery ends in; a scenario waits for any of them, then says which it expects. */
const ENDED = ['Delivered', 'Failed', 'Cancelled'];
const REQUESTED = { type: EventType.DeliveryRequested, producer: ServiceName.Ingestion, sequence: 1 };
/** The one lifecycle event of a delivery that ended before it was scheduled. */
const endedBefore = (type: string, reasonCode: string) => ({
  type,
  producer: ServiceName.Delivery,
  sequence: 1,
  reasonCode,
});

let system: DeliverySystemClient;
let watcher: Watcher;
beforeAll(async () => {
  system = new DeliverySystemClient(acceptanceTarget(DELIVERIES_APP));
  // Subscribed before any delivery is submitted, at run time, without a deployment.
  watcher = await system.subscribeWatcher(`acc-${runId}-watcher`);
});
afterAll(async () => {
  await watcher?.remove();
  system?.close();
});

describe('a delivery that goes well', () => {
  const id = deliveryIdOf('happy');
  const correlationId = `corr-${runId}-happy`;

  it('is accepted with 202, status Requested and the correlation id it was sent with', async () => {
    const response = await system.submit(delivery(id), { 'x-correlation-id': correlationId });
    expect(response.status).toBe(202);
    expect(response.headers.get('x-correlation-id')).toBe(correlationId);
    expect(response.body).toMatchObject({ deliveryId: id, status: 'Requested', correlationId });
    expect(history(response.body as { history: HistoryEntry[] })).toEqual([REQUESTED]);
  });

  it('reaches Delivered; GET shows DeliveryRequested, DeliveryScheduled, PickedUp, Delivered in sequence', async () => {
    const body = await system.waitForStatus(id, ENDED, scenarioTimeoutMs.normal);
    expect(body.status).toBe('Delivered');
    expect(body.correlationId).toBe(correlationId);
    expect(history(body)).toEqual([
      REQUESTED,
      { type: EventType.DeliveryScheduled, producer: ServiceName.Delivery, sequence: 1 },
      { type: EventType.PickedUp, producer: ServiceName.Delivery, sequence: 2 },
      { type: EventType.Delivered, producer: ServiceName.Delivery, sequence: 3 },
    ]);
    const times = body.history.map((entry) => entry.occurredAt);
    expect([...times].sort()).toEqual(times);
  });

  it('each service recorded its part once, under the same correlation id', async () => {
    const packages = await system.item(ServiceTable.Package, `PACKAGES#${id}`);
    expect(packages).toMatchObject({ outcome: 'READY', totalWeightGrams: 1200, correlationId });
    expect(typesOf(await system.changeLog(ServiceTable.Package, `PACKAGES#${id}`))).toEqual([
      EventType.PackageReady,
    ]);
    const assignment = await system.item(ServiceTable.DroneScheduler, `ASSIGNMENT#${id}`);
    expect(assignment).toMatchObject({ status: 'SCHEDULED', correlationId });
    expect(typeof assignment?.droneId).toBe('string');
    const deliveryLog = await system.changeLog(ServiceTable.Delivery, `DELIVERY#${id}`);
    expect(deliveryLog.map((entry) => [entry.message.type, entry.message.sequence])).toEqual([
      [EventType.DeliveryScheduled, 1],
      [EventType.PickedUp, 2],
      [EventType.Delivered, 3],
    ]);
    for (const entry of deliveryLog) expect(entry.message.correlationId).toBe(correlationId);
    // DeliveryScheduled is published at its newest version, v2, with the estimated arrival.
    expect(deliveryLog[0]?.message.schemaVersion).toBe(2);
    expect(typeof deliveryLog[0]?.message.data?.estimatedArrival).toBe('string');
  });

  it('an unknown consumer subscribed at run time heard every state change, in sequence', async () => {
    const heard = await system.eventually(
      'the watcher hears every event up to Delivered',
      async () => resequenced(await watcher.drain(), id),
      (events) => complete(events, [EventType.Delivered]),
      scenarioTimeoutMs.normal,
    );
    // Nothing heard twice under two event ids: every sequence number once.
    expect(new Set(ofDelivery(await watcher.drain(), id).map((event) => event.sequence)).size).toBe(
      heard.length,
    );
    expect(heard.map((event) => [event.type, event.sequence, event.correlationId])).toEqual([
      [EventType.DeliveryScheduled, 1, correlationId],
      [EventType.PickedUp, 2, correlationId],
      [EventType.Delivered, 3, correlationId],
    ]);
  });

  it('resubmitted with identical data answers 200 with the current status and changes nothing', async () => {
    const before = await system.item(ServiceTable.Ingestion, `DELIVERY#${id}`);
    const response = await system.submit(delivery(id));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ deliveryId: id, status: 'Delivered', correlationId });
    expect(await system.item(ServiceTable.Ingestion, `DELIVERY#${id}`)).toEqual(before);
  });

  it('resubmitted with conflicting data answers 409 naming the differing fields, and stores nothing', async () => {
    const before = await system.item(ServiceTable.Ingestion, `DELIVERY#${id}`);
    const response = await system.submit(
      delivery(id, {
        ownerId: 'someone-else',
        packages: [{ packageId: 'p-9', weightGrams: 10, size: 'SMALL' }],
      }),
    );
    expect(response.status).toBe(409);
    expect(response.text).toContain('ownerId');
    expect(response.text).toContain('packages');
    expect(response.text).not.toContain('pickup');
    expect(await system.item(ServiceTable.Ingestion, `DELIVERY#${id}`)).toEqual(before);
  });

  it('duplicated messages (copies of real events sent again to consumer queues) change nothing', async () => {
    const snapshot = async () => ({
      ingestion: await system.item(ServiceTable.Ingestion, `DELIVERY#${id}`),
      packages: await system.item(ServiceTable.Package, `PACKAGES#${id}`),
      assignment: await system.item(ServiceTable.DroneScheduler, `ASSIGNMENT#${id}`),
      delivery: await system.item(ServiceTable.Delivery, `DELIVERY#${id}`),
    });
    const before = await snapshot();
    const requested = (await system.changeLog(ServiceTable.Ingestion, `DELIVERY#${id}`))[0];
    const ready = (await system.changeLog(ServiceTable.Package, `PACKAGES#${id}`))[0];
    const scheduled = (await system.changeLog(ServiceTable.DroneScheduler, `ASSIGNMENT#${id}`))[0];
    expect([requested?.message.type, ready?.message.type, scheduled?.message.type]).toEqual([
      EventType.DeliveryRequested,
      EventType.PackageReady,
      EventType.DroneScheduled,
    ]);
    // New deduplication ids: the copies get past the queues' FIFO de-duplication to the consumers.
    const copy = { groupId: id, deduplicationId: `copy-${randomUUID()}` };
    await system.sendToQueue('PackageQueueUrl', JSON.stringify(requested?.message), copy);
    await system.sendToQueue('PackageQueueUrl', JSON.stringify(requested?.message), {
      ...copy,
      deduplicationId: `copy-${randomUUID()}`,
    });
    for (const entry of [ready, scheduled]) {
      await system.sendToQueue('DeliveryQueueUrl', JSON.stringify(entry?.message), {
        groupId: id,
        deduplicationId: `copy-${randomUUID()}`,
      });
    }
    await system.waitForQueuesDrained(['PackageQueueUrl', 'DeliveryQueueUrl'], scenarioTimeoutMs.normal);
    expect(await snapshot()).toEqual(before);
    expect(ofDelivery(await watcher.drain(), id)).toHaveLength(3);
  });

  it('a late flight report contradicting the delivered status changes nothing', async () => {
    const before = await system.item(ServiceTable.Delivery, `DELIVERY#${id}`);
    const assignment = await system.item(ServiceTable.DroneScheduler, `ASSIGNMENT#${id}`);
    const late = flightReport(
      id,
      3,
      { droneId: String(assignment?.droneId), stage: 'FAILED', reasonCode: 'FLIGHT_FAILED' },
      correlationId,
      `drone-fleet:${id}:late-${runId}`,
    );
    await system.sendToQueue('DeliveryQueueUrl', late, { groupId: id });
    await system.waitForQueuesDrained(['DeliveryQueueUrl'], scenarioTimeoutMs.normal);
    const after = await system.item(ServiceTable.Delivery, `DELIVERY#${id}`);
    expect(after?.status).toBe('Delivered');
    expect(after?.sequence).toBe(before?.sequence);
    expect(after?.outbox).toEqual(before?.outbox);
    expect((await system.waitForStatus(id, ['Delivered'], 5_000)).history).toHaveLength(4);
    expect(ofDelivery(await watcher.drain(), id)).toHaveLength(3);
  });
});

describe('flight reports arriving out of order', () => {
  const id = deliveryIdOf('reordered');

  it('DELIVERED before PICKED_UP still ends Delivered with the same lifecycle, in sequence', async () => {
    expect((await system.submit(delivery(id))).status).toBe(202);
    // As soon as the delivery is Scheduled, the drone's DELIVERED report (the fleet's own event id
    // and sequence) reaches the Delivery service ahead of the fleet's PICKED_UP, which then arrives
    // late, and the fleet's DELIVERED after it as a duplicate. When the fleet is quicker than this
    // poll the reports arrive in order instead; the outcome asserted is the same either way.
    const scheduled = await system.eventually(
      'the Delivery service records Scheduled',
      () => system.item(ServiceTable.Delivery, `DELIVERY#${id}`),
      (item) => item?.status !== undefined && item.status !== 'Requested' && item.status !== 'Correlating',
      scenarioTimeoutMs.normal,
      50,
    );
    const assignment = await system.item(ServiceTable.DroneScheduler, `ASSIGNMENT#${id}`);
    const early = flightReport(
      id,
      2,
      { droneId: String(assignment?.droneId), stage: 'DELIVERED' },
      String(scheduled?.correlationId),
    );
    await system.sendToQueue('DeliveryQueueUrl', early, {
      groupId: id,
      deduplicationId: `early-${randomUUID()}`,
    });
    const body = await system.waitForStatus(id, ENDED, scenarioTimeoutMs.normal);
    expect(body.status).toBe('Delivered');
    // Let the fleet's own reports arrive (late PICKED_UP, duplicate DELIVERED): they change nothing.
    await system.waitForQueuesDrained(['DeliveryQueueUrl'], scenarioTimeoutMs.normal);
    const final = await system.waitForStatus(id, ['Delivered'], 5_000);
    expect(history(final)).toEqual([
      REQUESTED,
      { type: EventType.DeliveryScheduled, producer: ServiceName.Delivery, sequence: 1 },
      { type: EventType.PickedUp, producer: ServiceName.Delivery, sequence: 2 },
      { type: EventType.Delivered, producer: ServiceName.Delivery, sequence: 3 },
    ]);
    const heard = await system.eventually(
      'the watcher hears every event up to Delivered',
      async () => resequenced(await watcher.drain(), id),
      (events) => complete(events, [EventType.Delivered]),
      scenarioTimeoutMs.normal,
    );
    expect(heard.map((event) => [event.type, event.sequence])).toEqual([
      [EventType.DeliveryScheduled, 1],
      [EventType.PickedUp, 2],
      [EventType.Delivered, 3],
    ]);
  });
});

describe('a package too heavy for a drone', () => {
  const id = deliveryIdOf('heavy');

  it('accepted before the payload shrank (the API now refuses it, 400)', async () => {
    const outcome = await system.acceptPastTheDoor(
      delivery(id, { packages: TOO_HEAVY }) as SubmitDeliveryRequest,
    );
    expect(outcome.kind).toBe('accepted');
  });

  it('is rejected by the Package service, compensated by remediation, and ends Cancelled', async () => {
    const body = await system.waitForStatus(id, ENDED, scenarioTimeoutMs.recovery);
    expect(body.status).toBe('Cancelled');
    expect(history(body)).toEqual([REQUESTED, endedBefore(EventType.DeliveryCancelled, 'PACKAGE_TOO_HEAVY')]);
    expect(await system.item(ServiceTable.Package, `PACKAGES#${id}`)).toMatchObject({
      outcome: 'REJECTED',
      reasonCode: 'PACKAGE_TOO_HEAVY',
      totalWeightGrams: 125_000,
    });
    const remediation = await system.item(ServiceTable.Remediation, `REMEDIATION#${id}`);
    expect(remediation?.decisions).toEqual([
      expect.objectContaining({
        decision: 'COMPENSATE',
        reasonCode: 'PACKAGE_TOO_HEAVY',
        source: ServiceName.Package,
        occurrence: 1,
      }),
    ]);
  });

  it('releases the drone (the drone scheduler records RELEASED and publishes DroneReleased)', async () => {
    const assignment = await system.eventually(
      'the assignment is released',
      () => system.item(ServiceTable.DroneScheduler, `ASSIGNMENT#${id}`),
      (item) => item?.status === 'RELEASED',
      scenarioTimeoutMs.normal,
    );
    const log = (assignment?.outbox ?? []) as ChangeLogEntry[];
    expect(typesOf(log).at(-1)).toBe(EventType.DroneReleased);
    if (typeof assignment?.droneId === 'string') {
      const drone = await system.item(ServiceTable.DroneScheduler, `DRONE#${assignment.droneId}`);
      const held = ((drone?.assignments ?? []) as { deliveryId: string }[]).map((a) => a.deliveryId);
      expect(held).not.toContain(id);
    }
  });

  it('late flight reports for the cancelled delivery (out of order, never scheduled) change nothing', async () => {
    const before = await system.item(ServiceTable.Delivery, `DELIVERY#${id}`);
    // DELIVERED first, then PICKED_UP: reordered as well as late.
    for (const [sequence, stage] of [
      [2, 'DELIVERED'],
      [1, 'PICKED_UP'],
    ] as const) {
      const report = flightReport(id, sequence, { droneId: 'drone-x', stage }, String(before?.correlationId));
      await system.sendToQueue('DeliveryQueueUrl', report, { groupId: id });
    }
    await system.waitForQueuesDrained(['DeliveryQueueUrl'], scenarioTimeoutMs.normal);
    const after = await system.item(ServiceTable.Delivery, `DELIVERY#${id}`);
    expect(after?.status).toBe('Cancelled');
    expect(after?.outbox).toEqual(before?.outbox);
    expect((await system.waitForStatus(id, ['Cancelled'], 5_000)).history).toHaveLength(2);
  });

  it('the operator routes (AWS_IAM, signed) list it and show its trail: the dead letter, its reason code and the decision', async () => {
    const listed = await system.operatorGet(OperatorDeliveryRoute.deliveries, { status: 'Cancelled' });
    expect(listed.status).toBe(200);
    expect((listed.body as DeliveryListBody).items).toContainEqual(
      expect.objectContaining({ deliveryId: id, status: 'Cancelled' }),
    );
    const shown = await system.operatorGet(OperatorDeliveryRoute.delivery(id));
    expect(shown.status).toBe(200);
    const detail = shown.body as DeliveryDetailBody;
    expect(detail.status?.status).toBe('Cancelled');
    expect(detail.trail).toContainEqual(
      expect.objectContaining({
        service: ServiceName.Remediation,
        kind: 'dead-letter',
        what: 'PACKAGE_TOO_HEAVY',
        detail: 'from package (occurrence 1): decided COMPENSATE',
      }),
    );
    // Unsigned, the gateway refuses before any function runs (the API key is no operator's pass either).
    const unsigned = await system.request('GET', OperatorDeliveryRoute.delivery(id));
    expect(unsigned.status).toBe(403);
  });

  it('the unknown consumer heard DeliveryCancelled only', async () => {
    const heard = ofDelivery(await watcher.drain(), id);
    expect(heard.map((event) => [event.type, event.sequence])).toEqual([[EventType.DeliveryCancelled, 1]]);
  });
});

describe('a delivery out of every drone’s range', () => {
  const id = deliveryIdOf('far');

  it('accepted before the range shrank (the API now refuses it, 400)', async () => {
    const outcome = await system.acceptPastTheDoor(
      delivery(id, { dropoff: SYDNEY }) as SubmitDeliveryRequest,
    );
    expect(outcome.kind).toBe('accepted');
  });

  it('remediation retries, pivots, then gives up: DeliveryFailed (NO_DRONE_AVAILABLE)', async () => {
    const body = await system.waitForStatus(id, ENDED, scenarioTimeoutMs.recovery);
    expect(body.status).toBe('Failed');
    expect(history(body)).toEqual([REQUESTED, endedBefore(EventType.DeliveryFailed, 'NO_DRONE_AVAILABLE')]);
    const remediation = await system.item(ServiceTable.Remediation, `REMEDIATION#${id}`);
    const decisions = (remediation?.decisions ?? []) as Record<string, unknown>[];
    expect(
      decisions.map(({ decision, occurrence, reasonCode, source }) => ({
        decision,
        occurrence,
        reasonCode,
        source,
      })),
    ).toEqual(
      (['RETRY', 'RETRY', 'PIVOT', 'GIVE_UP'] as const).map((decision, index) => ({
        decision,
        occurrence: index + 1,
        reasonCode: 'NO_DRONE_AVAILABLE',
        source: ServiceName.DroneScheduler,
      })),
    );
    const log = await system.changeLog(ServiceTable.DroneScheduler, `ASSIGNMENT#${id}`);
    const unavailable = log.filter((entry) => entry.message.type === EventType.DroneUnavailable);
    expect(unavailable.map((entry) => entry.message.data?.attempt)).toEqual([1, 2, 3, 4]);
  });

  it('raises an operator alert in the alert inbox', async () => {
    const alerts = await system.eventually(
      'an alert for the delivery',
      () => system.alertsFor(id),
      (found) => found.length > 0,
      scenarioTimeoutMs.normal,
    );
    expect(alerts).toEqual([
      expect.objectContaining({
        detail: expect.objectContaining({
          deliveryId: id,
          reasonCode: 'NO_DRONE_AVAILABLE',
          decision: 'GIVE_UP',
          source: ServiceName.DroneScheduler,
        }),
      }),
    ]);
  });

  // The CLI reads the local runtime's target description (like npm run orders): local runs only.
  const localOnly = ['aws', 'localstack'].includes(process.env.ACCEPTANCE_KIND ?? 'local') ? it.skip : it;
  localOnly('npm run deliveries -- show prints its whole trail across services, in time order', async () => {
    const root = resolve(__dirname, '../../..');
    // Asynchronously: the runtime (and its DynamoDB gateway, which the CLI calls) runs in this process.
    const { stdout: output } = await promisify(execFile)(
      resolve(root, 'node_modules/.bin/tsx'),
      [resolve(root, 'bin/deliveries.ts'), 'show', id, '--target', String(process.env[TARGET_ENV])],
      { cwd: root, encoding: 'utf8', timeout: 60_000 },
    );
    const lines = output.trimEnd().split('\n');
    const ingestion = await system.item(ServiceTable.Ingestion, `DELIVERY#${id}`);
    expect(lines[0]).toBe(`Delivery ${id}  status Failed  correlation ${String(ingestion?.correlationId)}`);
    const rows = lines.slice(2).map((line) => line.split(/\s{2,}/));
    const times = rows.map((row) => row[0] ?? '');
    expect([...times].sort()).toEqual(times);
    const whats = rows.map((row) => `${row[1]} ${row[2]} ${row[3]}`);
    const count = (what: string) => whats.filter((seen) => seen === what).length;
    expect(whats[0]).toBe('ingestion event DeliveryRequested');
    expect(count('drone-scheduler event DroneUnavailable')).toBe(4);
    expect(count('remediation dead-letter NO_DRONE_AVAILABLE')).toBe(4);
    expect(count('remediation event RemediationDecided')).toBe(4);
    expect(count('remediation alert DeliveryNeedsOperator')).toBe(1);
    expect(whats.indexOf('delivery event DeliveryFailed')).toBeGreaterThan(
      whats.lastIndexOf('remediation dead-letter NO_DRONE_AVAILABLE'),
    );
    expect(output).toMatch(/decided RETRY[\s\S]*decided RETRY[\s\S]*decided PIVOT[\s\S]*decided GIVE_UP/);
  });
});

describe('bad input answers 400 or 413 and stores nothing', () => {
  const expectNothingStored = async (id: string) => {
    expect((await system.getDelivery(id)).status).toBe(404);
    expect(await system.item(ServiceTable.Ingestion, `DELIVERY#${id}`)).toBeUndefined();
  };
  const errorPaths = (body: unknown) =>
    ((body as { errors?: { path: string }[] }).errors ?? []).map((error) => error.path);

  it('400 names each bad field', async () => {
    const id = deliveryIdOf('bad-fields');
    const response = await system.submit({
      deliveryId: id,
      ownerId: '',
      pickup: { lat: 91, lon: 0 },
      dropoff: { lat: 0 },
      packages: [{ packageId: 'p-1', weightGrams: 0, size: 'HUGE' }],
      colour: 'red',
    });
    expect(response.status).toBe(400);
    expect(typeof (response.body as { message?: unknown }).message).toBe('string');
    expect(errorPaths(response.body)).toEqual(
      expect.arrayContaining([
        'ownerId',
        'pickup.lat',
        'dropoff.lon',
        'packages[0].weightGrams',
        'packages[0].size',
        'colour',
      ]),
    );
    await expectNothingStored(id);
  });

  it('400 for a deadline in the past, naming it', async () => {
    const id = deliveryIdOf('bad-deadline');
    const response = await system.submit(delivery(id, { deadline: '2020-01-01T00:00:00Z' }));
    expect(response.status).toBe(400);
    expect(errorPaths(response.body)).toContain('deadline');
    await expectNothingStored(id);
  });

  it('400 for a drop-off beyond the fleet range, naming dropoff', async () => {
    const id = deliveryIdOf('bad-far');
    const response = await system.submit(delivery(id, { dropoff: SYDNEY }));
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      message: 'Request body is not a valid delivery',
      errors: [
        { path: 'dropoff', message: expect.stringMatching(/km from the pickup; a drone flies at most/) },
      ],
    });
    await expectNothingStored(id);
  });

  it('400 for packages heavier in all than a drone carries, naming packages', async () => {
    const id = deliveryIdOf('bad-heavy');
    const response = await system.submit(delivery(id, { packages: TOO_HEAVY }));
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      errors: [
        {
          path: 'packages',
          message: expect.stringMatching(/weigh 125000 g in all; a drone carries at most/),
        },
      ],
    });
    await expectNothingStored(id);
  });

  it.each([
    ['malformed JSON', '{"deliveryId": '],
    ['a JSON array', '[]'],
    ['an invalid delivery id', JSON.stringify(delivery('has spaces!'))],
  ])('400 for %s', async (_name, body) => {
    const response = await system.request('POST', '/deliveries', body);
    expect(response.status).toBe(400);
  });

  it('413 for a body over 8 KiB, before parsing it', async () => {
    const id = deliveryIdOf('bad-big');
    const response = await system.request(
      'POST',
      '/deliveries',
      JSON.stringify(delivery(id, { ownerId: 'x'.repeat(9 * 1024) })),
    );
    expect(response.status).toBe(413);
    await expectNothingStored(id);
  });

  it('an unknown delivery id answers 404', async () => {
    expect((await system.getDelivery(deliveryIdOf('never-submitted'))).status).toBe(404);
  });
});

describe('a poison message on a consumer queue', () => {
  it('is dead-lettered with reason POISON; remediation records ALERT and raises an operator alert', async () => {
    const unattributed = 'REMEDIATION#-unattributed';
    const before = ((await system.item(ServiceTable.Remediation, unattributed))?.decisions ??
      []) as unknown[];
    await system.sendToQueue('PackageQueueUrl', `not json at all ${runId}`, { groupId: `poison-${runId}` });
    // The decision's reasonCode comes from the dead letter's reasonCode attribute (absent, it would be
    // RETRIES_EXHAUSTED): POISON here shows the package service dead-lettered it with that reason.
    const item = await system.eventually(
      'remediation decides on the poison message',
      () => system.item(ServiceTable.Remediation, unattributed),
      (found) => ((found?.decisions ?? []) as unknown[]).length > before.length,
      scenarioTimeoutMs.normal,
    );
    const added = ((item?.decisions ?? []) as Record<string, unknown>[]).slice(before.length);
    expect(added).toEqual([
      expect.objectContaining({ decision: 'ALERT', reasonCode: 'POISON', source: ServiceName.Package }),
    ]);
    // The alert names the dead letter remediation decided on (not a time: the system's clock is
    // not the test's, which a virtual clock makes plain).
    const alertId = `remediation:${String(added[0]?.deadLetterKey)}`;
    const alerts = await system.eventually(
      'an operator alert for the poison message',
      () => system.alertsWhere((alert) => alert.detail.alertId === alertId),
      (found) => found.length > 0,
      scenarioTimeoutMs.normal,
    );
    expect(alerts[0]?.detail).toMatchObject({ decision: 'ALERT', reasonCode: 'POISON' });
    expect(alerts[0]?.detail.deliveryId).toBeUndefined();
  });
});
