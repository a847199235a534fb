import {
  CONSUMED_EVENT_TYPES,
  type DeliveryEvent,
  type DeliverySettings,
  type FlightStage,
  type RemediationDecision,
} from '../../../lambdas/choreography/contracts';
import type { Decision } from '../../../lambdas/choreography/domain/decision';
import {
  DELIVERY_CONSUMED_TYPES,
  type DeliveryConsumedType,
  type DeliveryState,
  reactToDeliveryEvent,
} from '../../../lambdas/choreography/domain/delivery';
import { envelope, T0 } from './events';

const settings: DeliverySettings = {
  maxReceiveAttempts: 3,
  processedMessageTtlSeconds: 3600,
  expectedFlightSeconds: 900,
};
const window = { start: '2030-01-01T10:00:00.000Z', end: '2030-01-01T10:10:00.000Z' };

const packageReady = (sequence = 1) =>
  envelope(
    'PackageReady',
    { packages: [{ packageId: 'p1', weightGrams: 1200, size: 'SMALL' }], totalWeightGrams: 1200 },
    { producer: 'package', sequence },
  );
const packageRejected = (sequence = 1) =>
  envelope(
    'PackageRejected',
    { reasonCode: 'PACKAGE_TOO_HEAVY', detail: 'too heavy' },
    { producer: 'package', sequence },
  );
const droneScheduled = (sequence = 1, droneId = 'drone-a') =>
  envelope(
    'DroneScheduled',
    { droneId, window, attempt: sequence },
    { producer: 'drone-scheduler', sequence },
  );
const droneUnavailable = (sequence = 1) =>
  envelope(
    'DroneUnavailable',
    { reasonCode: 'NO_DRONE_AVAILABLE', detail: 'busy', attempt: sequence },
    { producer: 'drone-scheduler', sequence },
  );
const droneReleased = (sequence: number) =>
  envelope(
    'DroneReleased',
    { droneId: 'drone-a', reasonCode: 'PACKAGE_TOO_HEAVY' },
    { producer: 'drone-scheduler', sequence },
  );
const flight = (stage: FlightStage, sequence: number) =>
  envelope(
    'FlightProgress',
    { droneId: 'drone-a', stage, ...(stage === 'FAILED' && { reasonCode: 'FLIGHT_FAILED' as const }) },
    { producer: 'drone-fleet', sequence },
  );
const decided = (
  decision: RemediationDecision,
  extra: { source?: 'delivery' | 'package'; retryOf?: object } = {},
) =>
  envelope(
    'RemediationDecided',
    {
      decision,
      reasonCode: 'PACKAGE_TOO_HEAVY',
      source: extra.source ?? 'package',
      occurrence: 1,
      deadLetteredEventId: 'package:delivery-1:1',
      detail: 'remediation said so',
      ...(extra.retryOf && { retryOf: extra.retryOf as Record<string, unknown> }),
    },
    { producer: 'remediation' },
  );

const react = (state: DeliveryState | undefined, event: DeliveryEvent<DeliveryConsumedType>, now = T0) =>
  reactToDeliveryEvent({ state, event, now, settings });

/** Feeds events in order, each on the state the previous one left; returns the state and everything emitted. */
function run(events: readonly DeliveryEvent<DeliveryConsumedType>[], from?: DeliveryState) {
  let state = from;
  const emitted: { type: string; data: unknown }[] = [];
  const reactions: Decision<DeliveryState>[] = [];
  for (const event of events) {
    const reaction = react(state, event);
    reactions.push(reaction);
    if (reaction.kind === 'change') {
      state = reaction.state;
      emitted.push(...reaction.emissions.map(({ type, data }) => ({ type, data })));
      expect(reaction.deadLetter).toBeUndefined();
    }
  }
  return { state, emitted, reactions };
}

const types = (emitted: readonly { type: string }[]) => emitted.map(({ type }) => type);

describe('Delivery service: correlation', () => {
  it('consumes exactly the contract types', () => {
    expect([...DELIVERY_CONSUMED_TYPES].sort()).toEqual([...CONSUMED_EVENT_TYPES.delivery].sort());
  });

  it.each([
    ['package first', [packageReady(), droneScheduled()]],
    ['drone first', [droneScheduled(), packageReady()]],
  ])(
    'schedules once both replies are good (%s), with DeliveryScheduled v2 and its estimated arrival',
    (_, events) => {
      const { state, emitted } = run(events);
      expect(state?.status).toBe('Scheduled');
      expect(emitted).toEqual([
        {
          type: 'DeliveryScheduled',
          data: { droneId: 'drone-a', window, estimatedArrival: '2030-01-01T10:15:00.000Z' },
        },
      ]);
    },
  );

  it('emits to the delivery bus', () => {
    const first = run([packageReady()]).state;
    const reaction = react(first, droneScheduled());
    expect(reaction.kind === 'change' && reaction.emissions[0]?.destination).toBe('delivery-bus');
  });

  it('waits in Correlating after one reply, recording it with its sequence', () => {
    const reaction = react(undefined, packageReady());
    expect(reaction).toEqual({
      kind: 'change',
      state: {
        deliveryId: 'delivery-1',
        correlationId: 'corr-delivery-1',
        status: 'Correlating',
        package: { outcome: 'READY', eventId: 'package:delivery-1:1', sequence: 1 },
        updatedAt: T0.toISOString(),
      },
      emissions: [],
    });
  });

  it('a duplicate or redelivered reply changes nothing and never schedules twice', () => {
    const { emitted, reactions } = run([packageReady(), droneScheduled(), droneScheduled(), packageReady()]);
    expect(types(emitted)).toEqual(['DeliveryScheduled']);
    expect(reactions.slice(2).map((reaction) => reaction.kind)).toEqual(['ignore', 'ignore']);
  });

  it('an older reply never overwrites a newer one (by producer sequence)', () => {
    const { state, emitted } = run([droneScheduled(2), droneUnavailable(1), packageReady()]);
    expect(state?.drone).toMatchObject({ outcome: 'SCHEDULED', sequence: 2 });
    expect(types(emitted)).toEqual(['DeliveryScheduled']);
  });

  it('a rejection or an unavailable drone alone changes no status; a newer good reply then schedules', () => {
    const waiting = run([packageReady(), droneUnavailable(1)]);
    expect(waiting.state?.status).toBe('Correlating');
    expect(waiting.emitted).toEqual([]);
    const rejected = run([packageRejected(), droneScheduled()]);
    expect(rejected.state?.status).toBe('Correlating');
    expect(rejected.state?.package).toMatchObject({ outcome: 'REJECTED', reasonCode: 'PACKAGE_TOO_HEAVY' });
    expect(types(run([droneScheduled(2)], waiting.state).emitted)).toEqual(['DeliveryScheduled']);
  });

  it('a released drone is recorded but changes no status', () => {
    const { state, emitted } = run([packageReady(), droneScheduled(1), droneReleased(2)]);
    expect(state?.status).toBe('Scheduled');
    expect(state?.drone).toMatchObject({ outcome: 'RELEASED', sequence: 2 });
    expect(types(emitted)).toEqual(['DeliveryScheduled']);
  });
});

describe('Delivery service: flight', () => {
  const scheduled = () => run([packageReady(), droneScheduled()]).state;

  it('PICKED_UP then DELIVERED: PickedUp then Delivered', () => {
    const { state, emitted } = run([flight('PICKED_UP', 1), flight('DELIVERED', 2)], scheduled());
    expect(state?.status).toBe('Delivered');
    expect(emitted).toEqual([
      { type: 'PickedUp', data: { droneId: 'drone-a' } },
      { type: 'Delivered', data: { droneId: 'drone-a' } },
    ]);
  });

  it('DELIVERED before PICKED_UP still tells PickedUp first, and the late PICKED_UP changes nothing', () => {
    const { state, emitted, reactions } = run([flight('DELIVERED', 2), flight('PICKED_UP', 1)], scheduled());
    expect(state?.status).toBe('Delivered');
    expect(types(emitted)).toEqual(['PickedUp', 'Delivered']);
    expect(reactions[1]?.kind).toBe('ignore');
  });

  it('FAILED: DeliveryFailed with FLIGHT_FAILED', () => {
    const { state, emitted } = run([flight('PICKED_UP', 1), flight('FAILED', 2)], scheduled());
    expect(state?.status).toBe('Failed');
    expect(emitted[1]).toEqual({
      type: 'DeliveryFailed',
      data: { reasonCode: 'FLIGHT_FAILED', detail: expect.stringContaining('drone-a') },
    });
  });

  it('flight progress before the delivery is scheduled changes nothing', () => {
    expect(react(run([packageReady()]).state, flight('PICKED_UP', 1)).kind).toBe('ignore');
  });
});

describe('Delivery service: remediation decisions and terminal statuses', () => {
  it('COMPENSATE cancels with the decision reason; GIVE_UP fails with it', () => {
    const cancelled = run([packageRejected(), decided('COMPENSATE')]);
    expect(cancelled.state?.status).toBe('Cancelled');
    expect(cancelled.emitted).toEqual([
      { type: 'DeliveryCancelled', data: { reasonCode: 'PACKAGE_TOO_HEAVY', detail: 'remediation said so' } },
    ]);
    const failed = run([droneUnavailable(), decided('GIVE_UP')]);
    expect(failed.state?.status).toBe('Failed');
    expect(types(failed.emitted)).toEqual(['DeliveryFailed']);
  });

  it('a terminal status never changes, whatever comes later', () => {
    const { state, emitted, reactions } = run([
      packageRejected(),
      decided('COMPENSATE'),
      packageReady(2),
      droneScheduled(),
      decided('GIVE_UP'),
    ]);
    expect(state?.status).toBe('Cancelled');
    expect(types(emitted)).toEqual(['DeliveryCancelled']);
    expect(reactions.slice(2).every((reaction) => reaction.kind === 'ignore')).toBe(true);
    const delivered = run([packageReady(), droneScheduled(), flight('DELIVERED', 2), decided('COMPENSATE')]);
    expect(delivered.state?.status).toBe('Delivered');
  });

  it('a RETRY of the Delivery service repeats the dead-lettered message', () => {
    const retried = decided('RETRY', { source: 'delivery', retryOf: droneScheduled() });
    const { state, emitted } = run([packageReady(), retried]);
    expect(state?.status).toBe('Scheduled');
    expect(types(emitted)).toEqual(['DeliveryScheduled']);
  });

  it('ignores retries of other services, alerts, and retries without a message', () => {
    expect(react(undefined, decided('RETRY', { source: 'package', retryOf: packageReady() })).kind).toBe(
      'ignore',
    );
    expect(react(undefined, decided('RETRY', { source: 'delivery' })).kind).toBe('ignore');
    expect(react(undefined, decided('ALERT')).kind).toBe('ignore');
  });

  it('a full happy delivery emits the lifecycle in order: Scheduled, PickedUp, Delivered', () => {
    const { emitted } = run([
      droneScheduled(),
      packageReady(),
      flight('PICKED_UP', 1),
      flight('DELIVERED', 2),
    ]);
    expect(types(emitted)).toEqual(['DeliveryScheduled', 'PickedUp', 'Delivered']);
  });
});
