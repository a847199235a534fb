/**
 * The contracts' own logic: how a message body is classified (the reason code a consumer
 * dead-letters it with), the remediation ladder, and the change log entries a reaction's emissions
 * become.
 */
import {
  currentVersion,
  EVENT_DATA_SCHEMAS,
  EventType,
  knownVersions,
  OutboxDestination,
  parseEvent,
  REASON_CODE_DEFINITIONS,
  REASON_CODES,
  ReasonCode,
  RemediationDecision,
  remediationFor,
  ServiceName,
} from '../../../lambdas/choreography/contracts';
import { emission, toOutboxEntries } from '../../../lambdas/choreography/domain/envelope';

const now = '2026-12-01T00:00:00.000Z';
const scheduled = {
  type: EventType.DeliveryScheduled,
  schemaVersion: 1,
  eventId: 'delivery:d-1:1',
  deliveryId: 'd-1',
  correlationId: 'corr-1',
  sequence: 1,
  producer: ServiceName.Delivery,
  occurredAt: now,
  data: { droneId: 'drone-1', window: { start: now, end: now } },
};
const text = (value: unknown) => JSON.stringify(value);

describe('parseEvent', () => {
  it('accepts an event of an accepted type and known version, keeping unknown fields', () => {
    const outcome = parseEvent(text({ ...scheduled, data: { ...scheduled.data, futureField: 1 } }), [
      EventType.DeliveryScheduled,
    ]);
    expect(outcome.ok).toBe(true);
    if (outcome.ok) expect(outcome.event.data).toMatchObject({ droneId: 'drone-1', futureField: 1 });
  });

  it('reads a v2 event with a v1 consumer in mind: v2 only adds optional fields', () => {
    const v2 = { ...scheduled, schemaVersion: 2, data: { ...scheduled.data, estimatedArrival: now } };
    expect(EVENT_DATA_SCHEMAS.DeliveryScheduled[1].safeParse(v2.data).success).toBe(true);
    expect(parseEvent(text(v2), [EventType.DeliveryScheduled]).ok).toBe(true);
  });

  it.each([
    ['not JSON', 'nope', ReasonCode.Poison],
    ['a JSON array', '[1,2]', ReasonCode.Poison],
    ['no delivery id', text({ ...scheduled, deliveryId: undefined }), ReasonCode.Poison],
    ['a delivery id outside the pattern', text({ ...scheduled, deliveryId: 'a b' }), ReasonCode.Poison],
    ['an envelope field missing', text({ ...scheduled, correlationId: undefined }), ReasonCode.SchemaInvalid],
    ['data that does not fit', text({ ...scheduled, data: { droneId: 7 } }), ReasonCode.SchemaInvalid],
    [
      'a version the contracts do not list',
      text({ ...scheduled, schemaVersion: 99 }),
      ReasonCode.UnknownVersion,
    ],
  ])('dead-letters %s as its reason code', (_case, body, reasonCode) => {
    const outcome = parseEvent(body, [EventType.DeliveryScheduled]);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.reasonCode).toBe(reasonCode);
  });

  it('refuses a type the consumer does not accept, naming what it accepts, and keeps the routing fields', () => {
    const outcome = parseEvent(text(scheduled), [EventType.DeliveryRequested]);
    expect(outcome).toMatchObject({
      ok: false,
      reasonCode: ReasonCode.SchemaInvalid,
      deliveryId: 'd-1',
      correlationId: 'corr-1',
      eventId: 'delivery:d-1:1',
    });
    if (!outcome.ok) expect(outcome.detail).toContain('DeliveryRequested');
  });
});

describe('versions', () => {
  it('numbers every type 1, 2, … without gaps; producers write the newest', () => {
    for (const type of Object.values(EventType)) {
      const versions = knownVersions(type);
      expect(versions).toEqual(versions.map((_, index) => index + 1));
      expect(currentVersion(type)).toBe(versions.at(-1));
    }
  });
});

describe('remediation ladder', () => {
  it('walks one rung per occurrence and holds the last', () => {
    expect([1, 2, 3, 4, 5].map((n) => remediationFor(ReasonCode.NoDroneAvailable, n))).toEqual([
      RemediationDecision.Retry,
      RemediationDecision.Retry,
      RemediationDecision.Pivot,
      RemediationDecision.GiveUp,
      RemediationDecision.GiveUp,
    ]);
    expect(remediationFor(ReasonCode.PackageTooHeavy, 1)).toBe(RemediationDecision.Compensate);
    expect(remediationFor(ReasonCode.Poison, 3)).toBe(RemediationDecision.Alert);
  });

  it('gives every dead-lettered code a ladder and none to the others', () => {
    for (const code of REASON_CODES) {
      const definition = REASON_CODE_DEFINITIONS[code];
      expect(definition.remediation.length > 0).toBe(definition.deadLettered);
      expect(remediationFor(code, 1) === undefined).toBe(!definition.deadLettered);
    }
  });
});

describe('change log entries', () => {
  it('numbers emissions after the last sequence, with ids derived from producer, delivery and sequence', () => {
    const entries = toOutboxEntries(
      {
        producer: ServiceName.Delivery,
        deliveryId: 'd-1',
        correlationId: 'corr-1',
        lastSequence: 2,
        now: new Date(now),
      },
      [
        emission(OutboxDestination.DeliveryBus, EventType.PickedUp, { droneId: 'drone-1' }),
        emission(OutboxDestination.DeliveryBus, EventType.Delivered, { droneId: 'drone-1' }),
      ],
    );
    expect(entries.map((entry) => [entry.id, entry.message.sequence, entry.message.schemaVersion])).toEqual([
      ['delivery:d-1:3', 3, 1],
      ['delivery:d-1:4', 4, 1],
    ]);
    expect(
      entries.every(
        (entry) => parseEvent(JSON.stringify(entry.message), [EventType.PickedUp, EventType.Delivered]).ok,
      ),
    ).toBe(true);
  });
});
