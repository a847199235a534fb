import { DELIVERY_FAULT_KINDS, DeliveryFaultKind } from '../../../../lib/chaos/deliveries/faults';
import {
  checkDeliveryCampaign,
  type DeliveryCampaignSnapshot,
  type DeliveryCheckResult,
  type DeliveryInvariantId,
  type RequesterReadProbe,
} from '../../../../lib/chaos/deliveries/invariants';
import type { ObservedEvent } from '../../../../lib/harness/deliveries-snapshots';

const W1 = { start: '2030-01-01T10:00:00.000Z', end: '2030-01-01T10:10:00.000Z' };
const W2 = { start: '2030-01-01T10:05:00.000Z', end: '2030-01-01T10:15:00.000Z' };

function event(deliveryId: string, sequence: number, type: string): ObservedEvent {
  return { deliveryId, eventId: `delivery:${deliveryId}:${sequence}`, type, sequence, producer: 'delivery' };
}

const deliveredEvents = (id: string) => [
  event(id, 1, 'DeliveryScheduled'),
  event(id, 2, 'PickedUp'),
  event(id, 3, 'Delivered'),
];

/** A healthy run: one delivered (drone-1), one cancelled (too heavy) with its dead letter resolved. */
function healthy(): DeliveryCampaignSnapshot {
  return {
    terminalBoundMillis: 100_000,
    appDenials: [],
    deliveries: [
      {
        deliveryId: 'a',
        scenario: 'happy',
        allowedOutcomes: ['Delivered', 'Failed'],
        acceptedAt: 0,
        terminalAt: 9_000,
      },
      {
        deliveryId: 'b',
        scenario: 'too-heavy',
        allowedOutcomes: ['Cancelled'],
        acceptedAt: 0,
        terminalAt: 5_000,
      },
    ],
    deliveryItems: [
      {
        deliveryId: 'a',
        status: 'Delivered',
        sequence: 3,
        droneId: 'drone-1',
        outbox: [{ id: 'delivery:a:3', destination: 'delivery-bus', type: 'Delivered', sequence: 3 }],
      },
      { deliveryId: 'b', status: 'Cancelled', sequence: 1, outbox: [] },
    ],
    ingestionItems: [
      {
        deliveryId: 'a',
        status: 'Delivered',
        history: [
          { type: 'DeliveryRequested', sequence: 1, producer: 'ingestion' },
          ...deliveredEvents('a').map((entry) => ({
            type: entry.type,
            sequence: entry.sequence,
            producer: 'delivery',
          })),
        ],
      },
      {
        deliveryId: 'b',
        status: 'Cancelled',
        history: [{ type: 'DeliveryCancelled', sequence: 1, producer: 'delivery' }],
      },
    ],
    lifecycleEvents: [
      ...deliveredEvents('a'),
      event('a', 2, 'PickedUp'), // a redelivered duplicate: the de-duplicating subscriber drops it
      event('b', 1, 'DeliveryCancelled'),
    ],
    assignments: [
      { deliveryId: 'a', status: 'SCHEDULED', droneId: 'drone-1', window: W1 },
      { deliveryId: 'b', status: 'RELEASED' },
    ],
    assignmentSamples: [
      { at: 2_500, scheduled: [{ deliveryId: 'a', status: 'SCHEDULED', droneId: 'drone-1', window: W1 }] },
    ],
    droneSamples: [{ droneId: 'drone-1', at: 3_000, assignments: [{ deliveryId: 'a', ...W1 }] }],
    deadLettersSent: [
      { service: 'package', key: 'k1', deliveryId: 'b', reasonCode: 'PACKAGE_TOO_HEAVY' },
      { service: 'package', key: 'k1', deliveryId: 'b', reasonCode: 'PACKAGE_TOO_HEAVY' },
    ],
    deadLetterMarkers: [{ key: 'k1', deliveryId: 'b' }],
    remediationDecisions: [
      {
        deliveryId: 'b',
        deadLetterKey: 'k1',
        decision: 'COMPENSATE',
        reasonCode: 'PACKAGE_TOO_HEAVY',
        source: 'package',
      },
    ],
    faults: DELIVERY_FAULT_KINDS.map((kind) => ({ kind, at: 1_000, deliveryIds: ['a'] })),
    enabledKinds: DELIVERY_FAULT_KINDS,
    restarts: [],
    minDeliveredShare: 0.5,
    requesterIsolation: {
      requesters: ['pharmacy', 'bakery'],
      probes: [
        { reader: 'pharmacy', owner: 'pharmacy', deliveryId: 'a', status: 200 },
        { reader: 'bakery', owner: 'pharmacy', deliveryId: 'a', status: 404 },
        { reader: 'pharmacy', owner: 'bakery', deliveryId: 'b', status: 404 },
        { reader: 'bakery', owner: 'bakery', deliveryId: 'b', status: 200 },
      ],
    },
  };
}

function failing(result: DeliveryCheckResult): Record<string, readonly string[]> {
  return Object.fromEntries(
    [...result.invariants, ...result.guards]
      .filter((entry) => entry.violations.length > 0)
      .map((entry) => [entry.id, entry.violations]),
  );
}

function expectOnly(snapshot: DeliveryCampaignSnapshot, id: DeliveryInvariantId | string, pattern: RegExp) {
  const result = checkDeliveryCampaign(snapshot);
  const failed = failing(result);
  expect(Object.keys(failed)).toEqual([id]);
  expect(failed[id]).toEqual(expect.arrayContaining([expect.stringMatching(pattern)]));
  expect(result.passed).toBe(false);
}

describe('delivery campaign checker', () => {
  it('passes a healthy run (a duplicate copy on the bus is de-duplicated)', () => {
    const result = checkDeliveryCampaign(healthy());
    expect(failing(result)).toEqual({});
    expect(result.passed).toBe(true);
  });

  it("app-not-denied: a request of the app's roles IAM denied fails the run", () => {
    const result = checkDeliveryCampaign({
      ...healthy(),
      appDenials: ['User: x is not authorized to perform: sns:Publish'],
    });
    expect(result.invariants.find((entry) => entry.id === 'app-not-denied')?.violations).toEqual([
      'User: x is not authorized to perform: sns:Publish',
    ]);
    expect(result.passed).toBe(false);
  });

  it('terminal-within-bound: a delivery still in flight, and one terminal too late', () => {
    const stuck = healthy();
    expectOnly(
      {
        ...stuck,
        deliveries: stuck.deliveries.map((delivery) =>
          delivery.deliveryId === 'a' ? { ...delivery, terminalAt: 150_000 } : delivery,
        ),
      },
      'terminal-within-bound',
      /^a: Delivered after 150000 ms, bound 100000 ms$/,
    );
    // A restart in the delivery's window extends its bound by the downtime.
    expect(
      checkDeliveryCampaign({
        ...stuck,
        restarts: [{ lastDrainAt: 10_000, stoppedAt: 11_000, readyAt: 70_000 }],
        deliveries: stuck.deliveries.map((delivery) =>
          delivery.deliveryId === 'a' ? { ...delivery, terminalAt: 150_000 } : delivery,
        ),
      }).passed,
    ).toBe(true);
  });

  it('no-drone-double-booked: two scheduled assignments of one drone overlap', () => {
    const snapshot = healthy();
    expectOnly(
      {
        ...snapshot,
        assignments: [
          ...snapshot.assignments,
          { deliveryId: 'c', status: 'SCHEDULED', droneId: 'drone-1', window: W2 },
        ],
      },
      'no-drone-double-booked',
      /^drone-1: a and c overlap \(ASSIGNMENT items\)$/,
    );
  });

  it('no-drone-double-booked: two sampled scheduled assignments overlapped, one released later', () => {
    const snapshot = healthy();
    expectOnly(
      {
        ...snapshot,
        assignmentSamples: [
          {
            at: 2_600,
            scheduled: [
              { deliveryId: 'a', status: 'SCHEDULED', droneId: 'drone-1', window: W1 },
              { deliveryId: 'b', status: 'SCHEDULED', droneId: 'drone-1', window: W2 },
            ],
          },
        ],
      },
      'no-drone-double-booked',
      /^drone-1: a and b overlap \(ASSIGNMENT items\)$/,
    );
  });

  it('no-drone-double-booked: a sampled DRONE item held overlapping windows', () => {
    const snapshot = healthy();
    expectOnly(
      {
        ...snapshot,
        droneSamples: [
          {
            droneId: 'drone-2',
            at: 4_000,
            assignments: [
              { deliveryId: 'x', ...W1 },
              { deliveryId: 'y', ...W2 },
            ],
          },
        ],
      },
      'no-drone-double-booked',
      /^drone-2: x and y overlap \(DRONE item\)$/,
    );
  });

  it('lifecycle-in-sequence: events arrive out of order', () => {
    const snapshot = healthy();
    const [scheduled, picked, delivered] = deliveredEvents('a');
    expectOnly(
      {
        ...snapshot,
        lifecycleEvents: [
          scheduled,
          delivered,
          picked,
          event('b', 1, 'DeliveryCancelled'),
        ] as ObservedEvent[],
      },
      'lifecycle-in-sequence',
      /^a: Delivered #3 arrived where #2 was due \(gap\)$/,
    );
  });

  it('lifecycle-in-sequence: two distinct events with one sequence (a consumer that does not de-duplicate emits twice)', () => {
    const snapshot = healthy();
    const result = checkDeliveryCampaign({
      ...snapshot,
      lifecycleEvents: [
        ...snapshot.lifecycleEvents,
        { ...event('b', 1, 'DeliveryCancelled'), eventId: 'other-id' },
      ],
    });
    // The second copy also puts the read model's history out of step with what the bus carried.
    expect(Object.keys(failing(result))).toEqual(['lifecycle-in-sequence', 'state-matches-events']);
    expect(failing(result)['lifecycle-in-sequence']).toEqual([
      'b: 2 distinct events with sequence 1',
      'b: DeliveryCancelled #1 after the terminal DeliveryCancelled #1',
    ]);
  });

  it('state-matches-events: the record says Delivered but the last event seen is PickedUp', () => {
    const snapshot = healthy();
    const result = checkDeliveryCampaign({
      ...snapshot,
      lifecycleEvents: snapshot.lifecycleEvents.filter((entry) => entry.type !== 'Delivered'),
    });
    expect(Object.keys(failing(result))).toEqual(['state-matches-events']);
    expect(failing(result)['state-matches-events']).toEqual(
      expect.arrayContaining([
        'a: lifecycle event #3 emitted (sequence 3) but never seen',
        'a: status Delivered but its last event PickedUp leaves PickedUp',
      ]),
    );
  });

  it('state-matches-events: the read model disagrees with the Delivery service', () => {
    const snapshot = healthy();
    expectOnly(
      {
        ...snapshot,
        ingestionItems: snapshot.ingestionItems.map((item) =>
          item.deliveryId === 'b' ? { ...item, status: 'Failed' } : item,
        ),
      },
      'state-matches-events',
      /^b: read model says Failed, the Delivery service Cancelled$/,
    );
  });

  it('state-matches-events: the Delivery record names another drone than the drone scheduler', () => {
    const snapshot = healthy();
    expectOnly(
      {
        ...snapshot,
        deliveryItems: snapshot.deliveryItems.map((item) =>
          item.deliveryId === 'a' ? { ...item, droneId: 'drone-9' } : item,
        ),
      },
      'state-matches-events',
      /^a: Delivered with drone drone-9 but the drone scheduler holds SCHEDULED drone-1$/,
    );
  });

  it('dead-letters-resolved-once: a dead letter without a reason code', () => {
    const snapshot = healthy();
    expectOnly(
      {
        ...snapshot,
        deadLettersSent: [...snapshot.deadLettersSent, { service: 'delivery', key: 'k1', deliveryId: 'b' }],
      },
      'dead-letters-resolved-once',
      /^b: dead-lettered by delivery with reason code \(none\)$/,
    );
  });

  it('dead-letters-resolved-once: one dead letter decided twice, another never', () => {
    const snapshot = healthy();
    const twice = checkDeliveryCampaign({
      ...snapshot,
      remediationDecisions: [...snapshot.remediationDecisions, ...snapshot.remediationDecisions],
    });
    expect(failing(twice)).toEqual({
      'dead-letters-resolved-once': ['b PACKAGE_TOO_HEAVY from package: 2 decisions'],
    });
    expectOnly(
      {
        ...snapshot,
        deadLettersSent: [
          ...snapshot.deadLettersSent,
          { service: 'drone-scheduler', key: 'k2', deliveryId: 'a', reasonCode: 'NO_DRONE_AVAILABLE' },
        ],
      },
      'dead-letters-resolved-once',
      /^a NO_DRONE_AVAILABLE from drone-scheduler: 0 DEADLETTER markers$/,
    );
  });

  it('planned-outcomes: a too-heavy delivery Delivered', () => {
    const snapshot = healthy();
    expectOnly(
      {
        ...snapshot,
        deliveries: snapshot.deliveries.map((delivery) =>
          delivery.deliveryId === 'a'
            ? { ...delivery, scenario: 'too-heavy', allowedOutcomes: ['Cancelled'] }
            : delivery,
        ),
      },
      'planned-outcomes',
      /^a \(too-heavy\): Delivered, allowed Cancelled$/,
    );
  });

  it('guards: deliveries not accepted, too few delivered, a kind that never fired', () => {
    const snapshot = healthy();
    const result = checkDeliveryCampaign({
      ...snapshot,
      deliveries: [
        ...snapshot.deliveries,
        { deliveryId: 'z', scenario: 'happy', allowedOutcomes: ['Delivered', 'Failed'] },
      ],
      faults: snapshot.faults.filter((entry) => entry.kind !== DeliveryFaultKind.PoisonMessage),
      minDeliveredShare: 0.9,
    });
    expect(failing(result)).toEqual({
      'deliveries-accepted': ['1 of 3 deliveries never accepted (first: z)'],
      'delivered-share': ['only 1 of 2 happy deliveries Delivered (50.0%), need 90.0%'],
      'every-fault-kind-fired': ['poison-message never fired'],
    });
  });

  it("requester-isolation: a requester reads another's delivery (200), or its own is not found", () => {
    const snapshot = healthy();
    const [own, , , otherOwn] = snapshot.requesterIsolation.probes;
    expectOnly(
      {
        ...snapshot,
        requesterIsolation: {
          ...snapshot.requesterIsolation,
          probes: [
            { ...(own as RequesterReadProbe), status: 404 },
            { reader: 'bakery', owner: 'pharmacy', deliveryId: 'a', status: 200 },
            { reader: 'pharmacy', owner: 'bakery', deliveryId: 'b', status: 'fetch failed' },
            otherOwn as RequesterReadProbe,
          ],
        },
      },
      'requester-isolation',
      /bakery reading pharmacy's a: 200, not 404/,
    );
    const failed = failing(
      checkDeliveryCampaign({ ...snapshot, requesterIsolation: { requesters: ['pharmacy'], probes: [] } }),
    );
    expect(failed).toEqual({
      'requester-isolation': ['needs two requesters to probe, the Requesters output lists 1'],
    });
  });

  it('requester-isolation: no cross-requester read was made', () => {
    const snapshot = healthy();
    expectOnly(
      {
        ...snapshot,
        requesterIsolation: {
          ...snapshot.requesterIsolation,
          probes: snapshot.requesterIsolation.probes.filter((probe) => probe.reader === probe.owner),
        },
      },
      'requester-isolation',
      /no requester was ever answered 404/,
    );
  });
});
