/** The delivery's swimlane data (console/src/delivery-swimlane.ts): lanes and marks from the trail the Deliveries tab reads. */
import type { DeliveryDetailBody, DeliveryTrailEntry } from '../../../console/contract/console-api';
import { deliverySwimlaneOf } from '../../../console/src/delivery-swimlane';

const t = (second: number) => new Date(Date.UTC(2026, 0, 1, 10, 0, second)).toISOString();
const at = (second: number) => Date.parse(t(second));

const event = (second: number, service: string, what: string, sequence: number): DeliveryTrailEntry => ({
  at: t(second),
  service,
  kind: 'event',
  what,
  sequence,
  detail: '',
  correlationId: 'corr-1',
});

/** A delivery no drone can reach: requested, packaged, dead-lettered by the scheduler, given up on. */
const farDelivery: DeliveryDetailBody = {
  deliveryId: 'd-far',
  trail: [
    event(0, 'ingestion', 'DeliveryRequested', 1),
    event(1, 'package', 'PackageCreated', 1),
    {
      at: t(5),
      service: 'remediation',
      kind: 'dead-letter',
      what: 'NO_DRONE_AVAILABLE',
      detail: 'from drone-scheduler (occurrence 1): decided GIVE_UP',
      source: 'drone-scheduler',
      decision: 'GIVE_UP',
    },
    { ...event(5, 'remediation', 'RemediationDecided', 1), detail: 'decision=GIVE_UP' },
    {
      at: t(5),
      service: 'remediation',
      kind: 'alert',
      what: 'DeliveryNeedsOperator',
      detail: 'look',
      correlationId: 'corr-1',
    },
    event(6, 'delivery', 'DeliveryFailed', 2),
  ],
};

describe('delivery swimlane', () => {
  it('has one lane per service in the flow order, empty ones kept', () => {
    const swimlane = deliverySwimlaneOf({ deliveryId: 'd-0', trail: [] });
    expect(swimlane.lanes.map((lane) => [lane.id, lane.label, lane.marks.length])).toEqual([
      ['ingestion', 'Ingestion', 0],
      ['package', 'Package', 0],
      ['drone-scheduler', 'Drone scheduler', 0],
      ['delivery', 'Delivery', 0],
      ['remediation', 'Remediation', 0],
    ]);
    expect(swimlane.spans).toEqual([]);
  });

  it('marks each published event at its time on its service, with its type, sequence and correlation id', () => {
    const lanes = deliverySwimlaneOf(farDelivery).lanes;
    expect(lanes[0]?.marks).toEqual([
      {
        id: 'trail-0',
        kind: 'event',
        at: at(0),
        detail: `DeliveryRequested from ingestion at ${t(0)}; sequence 1; correlation id corr-1`,
      },
    ]);
    expect(lanes.map((lane) => lane.marks.map((mark) => [mark.kind, mark.at]))).toEqual([
      [['event', at(0)]],
      [['event', at(1)]],
      [['dead-letter', at(5)]],
      [['event', at(6)]],
      [
        ['decision', at(5)],
        ['alert', at(5)],
      ],
    ]);
  });

  it('puts a dead letter on the lane of the service that dead-lettered it, saying what remediation decided', () => {
    const scheduler = deliverySwimlaneOf(farDelivery).lanes[2];
    expect(scheduler?.marks[0]?.detail).toBe(
      `Dead letter NO_DRONE_AVAILABLE at ${t(5)}; correlation id —; from drone-scheduler (occurrence 1): decided GIVE_UP`,
    );
    const decision = deliverySwimlaneOf(farDelivery).lanes[4]?.marks[0];
    expect(decision?.detail).toBe(
      `RemediationDecided from remediation at ${t(5)}; sequence 1; correlation id corr-1; decision=GIVE_UP`,
    );
  });

  it('gives the axis every instant, and leaves an entry without a readable time to the table', () => {
    const swimlane = deliverySwimlaneOf({
      deliveryId: 'd-1',
      trail: [
        event(0, 'ingestion', 'DeliveryRequested', 1),
        { ...event(0, 'package', 'PackageCreated', 1), at: '' },
      ],
    });
    expect(swimlane.spans).toEqual([[at(0), at(0)]]);
    expect(swimlane.lanes[1]?.marks).toEqual([]);
  });
});
