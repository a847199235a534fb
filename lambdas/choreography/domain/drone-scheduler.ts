/**
 * Drone Scheduler: assigns a drone and a time window to a delivery, never two overlapping windows to
 * one drone, and releases the drone when the delivery is compensated or given up.
 *
 * The domain sees the delivery's ASSIGNMENT and the fleet's DRONE items as the adapter read them
 * (each drone with the version read). A change names at most one drone item to rewrite, with the
 * version it was read at: the adapter's transaction is conditional on it, so of two deliveries that
 * picked the same free drone concurrently one commits and the other re-reads and picks again.
 */
import {
  type DeliveryEvent,
  type DroneSchedulerSettings,
  type DroneWindow,
  EventType,
  OutboxDestination,
  ReasonCode,
  RemediationDecision,
  ServiceName,
} from '../contracts';
import { type Decision, ignored } from './decision';
import { distanceKm } from './distance-km';
import { emission } from './envelope';
import { originalOf } from './retry-of';

export const AssignmentStatus = {
  Scheduled: 'SCHEDULED',
  Unavailable: 'UNAVAILABLE',
  /** Released by a compensation or give-up; a tombstone when nothing was assigned. Final. */
  Released: 'RELEASED',
} as const;
export type AssignmentStatus = (typeof AssignmentStatus)[keyof typeof AssignmentStatus];

/** One delivery's reservation of a drone: [start, end). */
export interface Booking {
  readonly deliveryId: string;
  readonly start: string;
  readonly end: string;
}

/** A DRONE# item as read: `version` 0 when the item does not exist yet. */
export interface DroneState {
  readonly droneId: string;
  readonly version: number;
  readonly assignments: readonly Booking[];
}

/** The ASSIGNMENT# item of one delivery (without its change log, which the store keeps). */
export interface AssignmentState {
  readonly deliveryId: string;
  readonly correlationId: string;
  readonly status: AssignmentStatus;
  readonly attempt: number;
  readonly droneId?: string;
  readonly window?: DroneWindow;
}

/** A DRONE# item to write: its new assignments, on condition that it is still at `expectedVersion`. */
export interface DroneUpdate {
  readonly droneId: string;
  readonly expectedVersion: number;
  readonly assignments: readonly Booking[];
}

export interface SchedulerChange {
  readonly assignment: AssignmentState;
  readonly drone?: DroneUpdate;
}

/** CONSUMED_EVENT_TYPES of the scheduler, as a tuple so the domain sees literal types. */
export const SCHEDULER_CONSUMED_TYPES = [EventType.DeliveryRequested, EventType.RemediationDecided] as const;
export type SchedulerConsumedType = (typeof SCHEDULER_CONSUMED_TYPES)[number];

export interface SchedulerInput {
  readonly assignment: AssignmentState | undefined;
  /** Every drone of the fleet, in the settings' order (the order drones are tried in). */
  readonly drones: readonly DroneState[];
  readonly event: DeliveryEvent<SchedulerConsumedType>;
  readonly now: Date;
  readonly settings: DroneSchedulerSettings;
}

/** Half-open windows overlap when each starts before the other ends. */
export function overlaps(a: { start: string; end: string }, b: { start: string; end: string }): boolean {
  return Date.parse(a.start) < Date.parse(b.end) && Date.parse(b.start) < Date.parse(a.end);
}

/** The bookings still worth keeping: one that has ended can no longer collide with a new window. */
export function liveBookings(bookings: readonly Booking[], now: Date): Booking[] {
  return bookings.filter((booking) => Date.parse(booking.end) > now.getTime());
}

/** The first drone (fleet order) with no live booking overlapping `window`, or undefined. */
export function firstFreeDrone(
  drones: readonly DroneState[],
  window: DroneWindow,
  now: Date,
): DroneState | undefined {
  return drones.find(
    (drone) => !liveBookings(drone.assignments, now).some((booking) => overlaps(booking, window)),
  );
}

export function reactToDroneEvent(input: SchedulerInput): Decision<SchedulerChange> {
  const { event } = input;
  if (event.type === EventType.DeliveryRequested) {
    if (input.assignment) {
      // The first attempt has been decided already (a redelivery under a new marker, or a request
      // that arrived after a compensation): a RELEASED delivery still says it is cancelled.
      return input.assignment.status === AssignmentStatus.Released
        ? cancelled(input.assignment)
        : ignored(`attempt 1 already decided (${input.assignment.status})`);
    }
    return schedule(input, event as DeliveryEvent<typeof EventType.DeliveryRequested>, 1, 0);
  }
  const decided = event as DeliveryEvent<typeof EventType.RemediationDecided>;
  const { decision } = decided.data;
  if (decision === RemediationDecision.Compensate || decision === RemediationDecision.GiveUp) {
    return release(input, decided);
  }
  if (decision === RemediationDecision.Retry || decision === RemediationDecision.Pivot) {
    if (decided.data.source !== ServiceName.DroneScheduler) {
      return ignored(`a ${decision} for ${decided.data.source} is not the scheduler's work`);
    }
    const { assignment } = input;
    if (assignment?.status === AssignmentStatus.Scheduled) return ignored('already scheduled');
    if (assignment?.status === AssignmentStatus.Released) return cancelled(assignment);
    const original = originalOf(decided.data.retryOf, [EventType.DeliveryRequested]);
    if (!original.ok) {
      // A decision that names no request cannot be acted on; remediation will see it dead-lettered.
      return ignored(original.detail);
    }
    const attempt = (assignment?.attempt ?? 1) + 1;
    const delaySeconds = decision === RemediationDecision.Pivot ? input.settings.pivotDelaySeconds : 0;
    return schedule(input, original.event, attempt, delaySeconds);
  }
  return ignored(`decision ${decision} asks nothing of the scheduler`);
}

function schedule(
  input: SchedulerInput,
  request: DeliveryEvent<typeof EventType.DeliveryRequested>,
  attempt: number,
  delaySeconds: number,
): Decision<SchedulerChange> {
  const { settings, now } = input;
  const base: Pick<AssignmentState, 'deliveryId' | 'correlationId' | 'attempt'> = {
    deliveryId: request.deliveryId,
    correlationId: input.assignment?.correlationId ?? input.event.correlationId,
    attempt,
  };
  const unavailable = (detail: string): Decision<SchedulerChange> => ({
    kind: 'change',
    state: { assignment: { ...base, status: AssignmentStatus.Unavailable } },
    emissions: [
      emission(OutboxDestination.DeliveryQueue, EventType.DroneUnavailable, {
        reasonCode: ReasonCode.NoDroneAvailable,
        detail,
        attempt,
      }),
    ],
    // The dead letter reports the scheduling attempt, which remediation's ladder walks with.
    deadLetter: { reasonCode: ReasonCode.NoDroneAvailable, detail, attempt },
  });
  const distance = distanceKm(request.data.pickup, request.data.dropoff);
  if (distance > settings.maxRangeKm) {
    return unavailable(
      `pickup to dropoff is ${distance.toFixed(1)} km, beyond the fleet's range of ${settings.maxRangeKm} km`,
    );
  }
  const startMillis = now.getTime() + delaySeconds * 1000;
  const window: DroneWindow = {
    start: new Date(startMillis).toISOString(),
    end: new Date(startMillis + settings.assignmentSeconds * 1000).toISOString(),
  };
  const drone = firstFreeDrone(input.drones, window, now);
  if (!drone) {
    return unavailable(
      `all ${input.drones.length} drones are booked between ${window.start} and ${window.end}`,
    );
  }
  return {
    kind: 'change',
    state: {
      assignment: { ...base, status: AssignmentStatus.Scheduled, droneId: drone.droneId, window },
      drone: {
        droneId: drone.droneId,
        expectedVersion: drone.version,
        assignments: [...liveBookings(drone.assignments, now), { deliveryId: request.deliveryId, ...window }],
      },
    },
    emissions: [
      emission(OutboxDestination.DeliveryQueue, EventType.DroneScheduled, {
        droneId: drone.droneId,
        window,
        attempt,
      }),
    ],
  };
}

/** Work for a delivery already released: refused, and said so, but nothing to remediate. */
function cancelled(assignment: AssignmentState): Decision<SchedulerChange> {
  return {
    kind: 'change',
    state: { assignment },
    emissions: [
      emission(OutboxDestination.DeliveryQueue, EventType.DroneUnavailable, {
        reasonCode: ReasonCode.DeliveryCancelled,
        detail: 'the delivery was released by a compensation or give-up',
        attempt: assignment.attempt,
      }),
    ],
  };
}

function release(
  input: SchedulerInput,
  decided: DeliveryEvent<typeof EventType.RemediationDecided>,
): Decision<SchedulerChange> {
  const { assignment, now } = input;
  if (assignment?.status === AssignmentStatus.Released) return ignored('already released');
  const droneId = assignment?.status === AssignmentStatus.Scheduled ? assignment.droneId : undefined;
  const held = droneId === undefined ? undefined : input.drones.find((drone) => drone.droneId === droneId);
  const released: AssignmentState = {
    deliveryId: decided.deliveryId,
    correlationId: assignment?.correlationId ?? decided.correlationId,
    attempt: assignment?.attempt ?? 1,
    status: AssignmentStatus.Released,
    ...(droneId === undefined ? {} : { droneId }),
  };
  return {
    kind: 'change',
    state: {
      assignment: released,
      ...(held && {
        drone: {
          droneId: held.droneId,
          expectedVersion: held.version,
          assignments: liveBookings(held.assignments, now).filter(
            (booking) => booking.deliveryId !== decided.deliveryId,
          ),
        },
      }),
    },
    emissions: [
      emission(OutboxDestination.DeliveryQueue, EventType.DroneReleased, {
        ...(droneId === undefined ? {} : { droneId }),
        reasonCode: decided.data.reasonCode,
      }),
    ],
  };
}
