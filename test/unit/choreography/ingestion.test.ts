/** Ingestion's rules: request validation, conflicts, and the read model's projection. */

import type { DeliveryEvent } from '../../../lambdas/choreography/contracts';
import {
  DELIVERIES_BY_STATUS_INDEX,
  DeliveryMetric,
  EventType,
  ServiceName,
  STATUS_DIMENSION,
} from '../../../lambdas/choreography/contracts';
import { distanceKm } from '../../../lambdas/choreography/domain/distance-km';
import {
  conflictingFields,
  newDelivery,
  parseDeliveryRequestBody,
  projectLifecycleEvent,
  statusEntered,
} from '../../../lambdas/choreography/domain/ingestion';

const NOW = new Date('2030-01-01T00:00:00Z');
const REQUEST = {
  deliveryId: 'd1',
  ownerId: 'owner',
  pickup: { lat: 1, lon: 1 },
  dropoff: { lat: 1.05, lon: 1 },
  packages: [{ packageId: 'p1', weightGrams: 100, size: 'SMALL' as const }],
};
const LIMITS = { maxRangeKm: 15, maxPayloadGrams: 5_000 };
const parse = (body: unknown, limits = LIMITS) =>
  parseDeliveryRequestBody(JSON.stringify(body), false, NOW, limits);

describe('POST /deliveries validation', () => {
  it('accepts a valid request', () => {
    expect(parse({ ...REQUEST, deadline: '2030-01-02T00:00:00Z' })).toMatchObject({ ok: true });
  });

  it('names each bad field (400)', () => {
    const result = parse({ ...REQUEST, ownerId: '', pickup: { lat: 100, lon: 1 }, extra: 1 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.statusCode).toBe(400);
    expect(result.errors.map((error) => error.path).sort()).toEqual(['extra', 'ownerId', 'pickup.lat']);
  });

  it('refuses a deadline in the past', () => {
    expect(parse({ ...REQUEST, deadline: '2029-12-31T00:00:00Z' })).toMatchObject({
      ok: false,
      statusCode: 400,
      errors: [{ path: 'deadline', message: 'must be in the future' }],
    });
  });

  it('accepts a drop-off exactly at the fleet range, refuses one beyond it naming dropoff (400)', () => {
    const atRange = { maxRangeKm: distanceKm(REQUEST.pickup, REQUEST.dropoff), maxPayloadGrams: 5_000 };
    expect(parse(REQUEST, atRange)).toMatchObject({ ok: true });
    const result = parse(REQUEST, { ...atRange, maxRangeKm: atRange.maxRangeKm - 0.01 });
    expect(result).toMatchObject({ ok: false, statusCode: 400, errors: [{ path: 'dropoff' }] });
    if (!result.ok) expect(result.errors).toHaveLength(1);
    // A real far drop-off: about 111 km north of the pickup, with the profiles' 15 km range.
    const far = parse({ ...REQUEST, dropoff: { lat: 2, lon: 1 } });
    expect(far).toMatchObject({
      ok: false,
      errors: [{ path: 'dropoff', message: expect.stringMatching(/111\.\d km .* at most 15 km/) }],
    });
  });

  it('accepts packages weighing exactly the payload in all, refuses heavier naming packages (400)', () => {
    const packages = (...grams: number[]) =>
      grams.map((weightGrams, index) => ({ packageId: `p${index}`, weightGrams, size: 'SMALL' as const }));
    expect(parse({ ...REQUEST, packages: packages(2_500, 2_500) })).toMatchObject({ ok: true });
    const result = parse({ ...REQUEST, packages: packages(2_500, 2_501) });
    expect(result).toMatchObject({
      ok: false,
      statusCode: 400,
      errors: [{ path: 'packages', message: expect.stringContaining('5001 g in all') }],
    });
    if (!result.ok) expect(result.errors).toHaveLength(1);
  });

  it('names every undeliverable field at once, with the other bad fields', () => {
    const result = parse({
      ...REQUEST,
      dropoff: { lat: 2, lon: 1 },
      packages: [{ packageId: 'p1', weightGrams: 8_000, size: 'LARGE' }],
      deadline: '2029-12-31T00:00:00Z',
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((error) => error.path)).toEqual(['deadline', 'dropoff', 'packages']);
  });

  it('refuses a body over the limit before parsing it (413)', () => {
    expect(parseDeliveryRequestBody('x'.repeat(9000), false, NOW, LIMITS)).toMatchObject({
      ok: false,
      statusCode: 413,
    });
  });

  it('names the fields a conflicting resubmission changes', () => {
    expect(
      conflictingFields(REQUEST, { ...REQUEST, ownerId: 'other', dropoff: { lon: 1, lat: 1.05 } }),
    ).toEqual(['ownerId']);
    expect(conflictingFields(REQUEST, { ...REQUEST, deadline: '2030-01-02T00:00:00Z' })).toEqual([
      'deadline',
    ]);
  });
});

describe('ingestion read model', () => {
  const { record } = newDelivery(REQUEST, 'c1', NOW, 'pharmacy');
  const item = { key: 'DELIVERY#d1', version: 1, sequence: 1, outbox: [], state: { ...record } };
  const lifecycle = (type: EventType, sequence: number) =>
    ({
      type,
      schemaVersion: 1,
      eventId: `delivery:d1:${sequence}`,
      deliveryId: 'd1',
      correlationId: 'c1',
      sequence,
      producer: ServiceName.Delivery,
      occurredAt: new Date(NOW.getTime() + sequence * 1000).toISOString(),
      data: { droneId: 'drone-1' },
    }) as unknown as DeliveryEvent;

  it("carries the deliveries-by-status index's keys and projected attributes as text (the operators' list reads them)", () => {
    const { partitionKey, sortKey, projectedAttributes } = DELIVERIES_BY_STATUS_INDEX;
    const fields: Record<string, unknown> = { ...record };
    for (const name of [partitionKey, sortKey, ...projectedAttributes]) {
      expect([name, typeof fields[name]]).toEqual([name, 'string']);
    }
    expect(fields[partitionKey]).toBe('Requested');
    expect(fields[sortKey]).toBe(NOW.toISOString());
  });

  it('starts Requested with its own DeliveryRequested in the history', () => {
    expect(record.status).toBe('Requested');
    expect(record.history).toEqual([
      expect.objectContaining({ type: EventType.DeliveryRequested, sequence: 1 }),
    ]);
  });

  it('moves the status with a newer lifecycle event and records it once', () => {
    const reaction = projectLifecycleEvent(item, lifecycle(EventType.PickedUp, 2), NOW);
    expect(reaction).toMatchObject({ kind: 'change', state: { status: 'PickedUp', statusSequence: 2 } });
    if (reaction.kind !== 'change') return;
    const after = { ...item, state: reaction.state };
    expect(projectLifecycleEvent(after, lifecycle(EventType.PickedUp, 2), NOW).kind).toBe('ignore');
  });

  it('never lets an older event overwrite a newer status, but keeps it in the history', () => {
    const after = { ...item, state: { ...record, status: 'PickedUp', statusSequence: 2 } };
    const reaction = projectLifecycleEvent(after, lifecycle(EventType.DeliveryScheduled, 1), NOW);
    expect(reaction).toMatchObject({ kind: 'change', state: { status: 'PickedUp', statusSequence: 2 } });
    if (reaction.kind !== 'change') return;
    expect((reaction.state.history as { type: string }[]).map((entry) => entry.type)).toEqual([
      EventType.DeliveryRequested,
      EventType.DeliveryScheduled,
    ]);
  });

  it('ignores events of unknown deliveries and non-lifecycle events', () => {
    expect(projectLifecycleEvent(undefined, lifecycle(EventType.PickedUp, 1), NOW).kind).toBe('ignore');
    expect(projectLifecycleEvent(item, lifecycle(EventType.RemediationDecided, 1), NOW).kind).toBe('ignore');
  });

  describe('counts each real change of the status once (DeliveriesEnteredStatus)', () => {
    const entered = (status: string) => [
      {
        metric: DeliveryMetric.DeliveriesEnteredStatus,
        dimension: { name: STATUS_DIMENSION, value: status },
      },
    ];

    it('counts the status a newer event moves the delivery into', () => {
      const reaction = projectLifecycleEvent(item, lifecycle(EventType.DeliveryScheduled, 1), NOW);
      expect(reaction).toMatchObject({ kind: 'change', counts: entered('Scheduled') });
      if (reaction.kind !== 'change') return;
      const scheduled = { ...item, state: reaction.state };
      expect(projectLifecycleEvent(scheduled, lifecycle(EventType.PickedUp, 2), NOW)).toMatchObject({
        counts: entered('PickedUp'),
      });
    });

    it('counts nothing for a duplicate, an older reply kept only in the history, or the same status again', () => {
      const picked = { ...item, state: { ...record, status: 'PickedUp', statusSequence: 2 } };
      const duplicate = projectLifecycleEvent(
        {
          ...picked,
          state: { ...picked.state, history: [...record.history, { producer: 'delivery', sequence: 2 }] },
        },
        lifecycle(EventType.PickedUp, 2),
        NOW,
      );
      expect(duplicate.kind).toBe('ignore');
      const older = projectLifecycleEvent(picked, lifecycle(EventType.DeliveryScheduled, 1), NOW);
      expect(older).toMatchObject({ kind: 'change' });
      expect(older).not.toHaveProperty('counts');
      const scheduled = { ...item, state: { ...record, status: 'Scheduled', statusSequence: 1 } };
      const again = projectLifecycleEvent(scheduled, lifecycle(EventType.DeliveryScheduled, 3), NOW);
      expect(again).toMatchObject({ kind: 'change', state: { status: 'Scheduled', statusSequence: 3 } });
      expect(again).not.toHaveProperty('counts');
    });

    it('is counted as Requested when ingestion accepts a delivery', () => {
      expect([statusEntered(record.status)]).toEqual(entered('Requested'));
    });
  });
});
