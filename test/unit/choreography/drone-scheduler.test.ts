import {
  CONSUMED_EVENT_TYPES,
  type DroneSchedulerSettings,
  type RemediationDecision,
} from '../../../lambdas/choreography/contracts';
import type { Decision } from '../../../lambdas/choreography/domain/decision';
import {
  type AssignmentState,
  AssignmentStatus,
  type DroneState,
  firstFreeDrone,
  overlaps,
  reactToDroneEvent,
  SCHEDULER_CONSUMED_TYPES,
  type SchedulerChange,
  type SchedulerInput,
} from '../../../lambdas/choreography/domain/drone-scheduler';
import { envelope, FAR, requested, T0 } from './events';

const settings: DroneSchedulerSettings = {
  maxReceiveAttempts: 3,
  processedMessageTtlSeconds: 3600,
  drones: ['drone-a', 'drone-b'],
  maxRangeKm: 20,
  assignmentSeconds: 600,
  pivotDelaySeconds: 1800,
};

const at = (offsetSeconds: number) => new Date(T0.getTime() + offsetSeconds * 1000).toISOString();
const freeFleet = (): DroneState[] =>
  settings.drones.map((droneId) => ({ droneId, version: 0, assignments: [] }));
const busy = (droneId: string, from: number, to: number, version = 3): DroneState => ({
  droneId,
  version,
  assignments: [{ deliveryId: `other-${droneId}`, start: at(from), end: at(to) }],
});

/** An ASSIGNMENT# state of delivery-1 (attempt 1 unless said otherwise). */
const assignment = (status: AssignmentStatus, extra: Partial<AssignmentState> = {}): AssignmentState => ({
  deliveryId: 'delivery-1',
  correlationId: 'corr-delivery-1',
  status,
  attempt: 1,
  ...extra,
});

function decided(
  decision: RemediationDecision,
  options: {
    source?: 'drone-scheduler' | 'package';
    retryOf?: Record<string, unknown>;
    sequence?: number;
  } = {},
) {
  return envelope(
    'RemediationDecided',
    {
      decision,
      reasonCode: 'NO_DRONE_AVAILABLE',
      source: options.source ?? 'drone-scheduler',
      occurrence: 1,
      deadLetteredEventId: 'drone-scheduler:delivery-1:1',
      detail: 'test decision',
      ...(options.retryOf && { retryOf: options.retryOf }),
    },
    { producer: 'remediation', sequence: options.sequence ?? 1 },
  );
}

const react = (overrides: Partial<SchedulerInput>): Decision<SchedulerChange> =>
  reactToDroneEvent({
    assignment: undefined,
    drones: freeFleet(),
    event: requested(),
    now: T0,
    settings,
    ...overrides,
  });

function changed(reaction: Decision<SchedulerChange>) {
  if (reaction.kind !== 'change') throw new Error(`expected a change, got: ${reaction.reason}`);
  return reaction;
}

describe('overlaps and firstFreeDrone', () => {
  it('treats windows as half-open: one ending when the next starts does not overlap', () => {
    expect(overlaps({ start: at(0), end: at(10) }, { start: at(10), end: at(20) })).toBe(false);
    expect(overlaps({ start: at(0), end: at(11) }, { start: at(10), end: at(20) })).toBe(true);
    expect(overlaps({ start: at(5), end: at(6) }, { start: at(0), end: at(20) })).toBe(true);
  });

  it('skips a busy drone, and ignores bookings that have ended', () => {
    const window = { start: at(0), end: at(600) };
    expect(firstFreeDrone([busy('drone-a', -100, 100), ...freeFleet().slice(1)], window, T0)?.droneId).toBe(
      'drone-b',
    );
    expect(firstFreeDrone([busy('drone-a', -700, -100)], window, T0)?.droneId).toBe('drone-a');
    expect(firstFreeDrone([busy('drone-a', 0, 600), busy('drone-b', 599, 900)], window, T0)).toBeUndefined();
  });
});

describe('Drone Scheduler: DeliveryRequested', () => {
  it('schedules the first free drone for assignmentSeconds from now, conditional on its version', () => {
    const reaction = changed(react({ drones: [busy('drone-a', -60, 60, 7), busy('drone-b', -900, -1, 4)] }));
    expect(reaction.state.assignment).toEqual({
      deliveryId: 'delivery-1',
      correlationId: 'corr-delivery-1',
      status: AssignmentStatus.Scheduled,
      attempt: 1,
      droneId: 'drone-b',
      window: { start: at(0), end: at(600) },
    });
    // The ended booking of drone-b is pruned as the item is rewritten.
    expect(reaction.state.drone).toEqual({
      droneId: 'drone-b',
      expectedVersion: 4,
      assignments: [{ deliveryId: 'delivery-1', start: at(0), end: at(600) }],
    });
    expect(reaction.emissions).toEqual([
      {
        destination: 'delivery-queue',
        type: 'DroneScheduled',
        data: { droneId: 'drone-b', window: { start: at(0), end: at(600) }, attempt: 1 },
      },
    ]);
    expect(reaction.deadLetter).toBeUndefined();
  });

  it('keeps the other live bookings of the drone it books', () => {
    const reaction = changed(react({ drones: [busy('drone-a', 600, 1200, 2)] }));
    expect(reaction.state.drone?.assignments).toEqual([
      { deliveryId: 'other-drone-a', start: at(600), end: at(1200) },
      { deliveryId: 'delivery-1', start: at(0), end: at(600) },
    ]);
  });

  it('reports NO_DRONE_AVAILABLE and dead-letters when every drone is busy', () => {
    const reaction = changed(react({ drones: [busy('drone-a', -10, 10), busy('drone-b', 300, 900)] }));
    expect(reaction.state).toEqual({
      assignment: {
        deliveryId: 'delivery-1',
        correlationId: 'corr-delivery-1',
        status: AssignmentStatus.Unavailable,
        attempt: 1,
      },
    });
    expect(reaction.emissions).toEqual([
      expect.objectContaining({
        destination: 'delivery-queue',
        type: 'DroneUnavailable',
        data: expect.objectContaining({ reasonCode: 'NO_DRONE_AVAILABLE', attempt: 1 }),
      }),
    ]);
    expect(reaction.deadLetter).toEqual({
      reasonCode: 'NO_DRONE_AVAILABLE',
      detail: expect.any(String),
      attempt: 1,
    });
  });

  it('reports NO_DRONE_AVAILABLE when the dropoff is out of range, with free drones', () => {
    const reaction = changed(react({ event: requested({ dropoff: FAR }) }));
    expect(reaction.state.drone).toBeUndefined();
    expect(reaction.state.assignment.status).toBe(AssignmentStatus.Unavailable);
    expect(reaction.deadLetter?.reasonCode).toBe('NO_DRONE_AVAILABLE');
    expect(reaction.deadLetter?.detail).toMatch(/beyond the fleet's range of 20 km/);
  });

  it('is idempotent: a request for a delivery already decided changes nothing', () => {
    const scheduled: AssignmentState = assignment(AssignmentStatus.Scheduled, {
      droneId: 'drone-a',
      window: { start: at(0), end: at(600) },
    });
    expect(react({ assignment: scheduled }).kind).toBe('ignore');
    expect(react({ assignment: { ...scheduled, status: AssignmentStatus.Unavailable } }).kind).toBe('ignore');
  });

  it('refuses a request that arrives after the delivery was released: DELIVERY_CANCELLED, no dead letter', () => {
    const released: AssignmentState = assignment(AssignmentStatus.Released);
    const reaction = changed(react({ assignment: released }));
    expect(reaction.state).toEqual({ assignment: released });
    expect(reaction.emissions).toEqual([
      expect.objectContaining({
        type: 'DroneUnavailable',
        data: expect.objectContaining({ reasonCode: 'DELIVERY_CANCELLED' }),
      }),
    ]);
    expect(reaction.deadLetter).toBeUndefined();
  });
});

describe('Drone Scheduler: RETRY and PIVOT', () => {
  const unavailable: AssignmentState = assignment(AssignmentStatus.Unavailable, { attempt: 2 });
  const original = requested() as unknown as Record<string, unknown>;

  it('a RETRY schedules from now with the next attempt number', () => {
    const reaction = changed(
      react({ assignment: unavailable, event: decided('RETRY', { retryOf: original }) }),
    );
    expect(reaction.state.assignment).toMatchObject({
      status: 'SCHEDULED',
      attempt: 3,
      window: { start: at(0) },
    });
    expect(reaction.emissions[0]?.data).toMatchObject({ attempt: 3 });
  });

  it('a PIVOT looks for a window pivotDelaySeconds later, where a drone may be free', () => {
    const drones = [busy('drone-a', -10, 1000), busy('drone-b', -10, 1800)];
    expect(
      changed(react({ drones, event: decided('RETRY', { retryOf: original }) })).deadLetter,
    ).toBeDefined();
    const reaction = changed(react({ drones, event: decided('PIVOT', { retryOf: original }) }));
    expect(reaction.state.assignment).toMatchObject({
      status: 'SCHEDULED',
      attempt: 2,
      droneId: 'drone-a',
      window: { start: at(1800), end: at(2400) },
    });
  });

  it('finds the request inside a retried retry', () => {
    const inner = decided('RETRY', { retryOf: original, sequence: 1 }) as unknown as Record<string, unknown>;
    const reaction = changed(react({ event: decided('RETRY', { retryOf: inner, sequence: 2 }) }));
    expect(reaction.state.assignment.status).toBe('SCHEDULED');
  });

  it('a retry that fails again is NO_DRONE_AVAILABLE with its attempt number, dead-lettered again', () => {
    const reaction = changed(
      react({
        assignment: unavailable,
        drones: [busy('drone-a', 0, 600), busy('drone-b', 0, 600)],
        event: decided('RETRY', { retryOf: original }),
      }),
    );
    expect(reaction.state.assignment).toMatchObject({ status: 'UNAVAILABLE', attempt: 3 });
    expect(reaction.deadLetter?.reasonCode).toBe('NO_DRONE_AVAILABLE');
  });

  it('ignores a retry when the delivery is already scheduled, or when the retry is for another service', () => {
    const scheduled = { ...unavailable, status: AssignmentStatus.Scheduled, droneId: 'drone-a' };
    expect(react({ assignment: scheduled, event: decided('RETRY', { retryOf: original }) }).kind).toBe(
      'ignore',
    );
    expect(react({ event: decided('RETRY', { source: 'package', retryOf: original }) }).kind).toBe('ignore');
    expect(react({ event: decided('RETRY') }).kind).toBe('ignore');
  });

  it('refuses a retry of a released delivery with DELIVERY_CANCELLED', () => {
    const released = { ...unavailable, status: AssignmentStatus.Released };
    const reaction = changed(react({ assignment: released, event: decided('PIVOT', { retryOf: original }) }));
    expect(reaction.emissions[0]?.data).toMatchObject({ reasonCode: 'DELIVERY_CANCELLED' });
    expect(reaction.deadLetter).toBeUndefined();
  });
});

describe('Drone Scheduler: COMPENSATE and GIVE_UP release', () => {
  const scheduled: AssignmentState = assignment(AssignmentStatus.Scheduled, {
    droneId: 'drone-b',
    window: { start: at(0), end: at(600) },
  });
  const fleetHolding = (): DroneState[] => [
    busy('drone-a', 0, 600),
    {
      droneId: 'drone-b',
      version: 5,
      assignments: [
        { deliveryId: 'delivery-1', start: at(0), end: at(600) },
        { deliveryId: 'other', start: at(600), end: at(1200) },
      ],
    },
  ];

  it.each(['COMPENSATE', 'GIVE_UP'] as const)('%s frees the drone and records RELEASED', (decision) => {
    const reaction = changed(
      react({ assignment: scheduled, drones: fleetHolding(), event: decided(decision) }),
    );
    expect(reaction.state.assignment).toMatchObject({ status: 'RELEASED', droneId: 'drone-b', attempt: 1 });
    expect(reaction.state.drone).toEqual({
      droneId: 'drone-b',
      expectedVersion: 5,
      assignments: [{ deliveryId: 'other', start: at(600), end: at(1200) }],
    });
    expect(reaction.emissions).toEqual([
      {
        destination: 'delivery-queue',
        type: 'DroneReleased',
        data: { droneId: 'drone-b', reasonCode: 'NO_DRONE_AVAILABLE' },
      },
    ]);
    expect(reaction.deadLetter).toBeUndefined();
  });

  it('releases from any source, and leaves a tombstone when nothing was assigned', () => {
    const reaction = changed(react({ event: decided('COMPENSATE', { source: 'package' }) }));
    expect(reaction.state).toEqual({
      assignment: {
        deliveryId: 'delivery-1',
        correlationId: 'corr-delivery-1',
        status: 'RELEASED',
        attempt: 1,
      },
    });
    expect(reaction.emissions).toEqual([
      { destination: 'delivery-queue', type: 'DroneReleased', data: { reasonCode: 'NO_DRONE_AVAILABLE' } },
    ]);
  });

  it('releasing twice changes nothing', () => {
    const released = { ...scheduled, status: AssignmentStatus.Released };
    expect(react({ assignment: released, event: decided('GIVE_UP') }).kind).toBe('ignore');
  });

  it('an ALERT asks nothing of the scheduler', () => {
    expect(react({ assignment: scheduled, event: decided('ALERT') }).kind).toBe('ignore');
  });
});

describe('SCHEDULER_CONSUMED_TYPES', () => {
  it('is the contract list of the scheduler', () => {
    expect([...SCHEDULER_CONSUMED_TYPES].sort()).toEqual([...CONSUMED_EVENT_TYPES['drone-scheduler']].sort());
  });
});
