/**
 * The drone scheduler's reaction as a decision table: the code's own reactToDroneEvent (protocol.ts)
 * is asked about every read the booking model can make (the delivery's ASSIGNMENT# item, each
 * drone's bookings, each message), and its answers, projected onto the model's values, are the rows.
 * Change the rule and the rows change with it; a decision the model cannot express (a window other
 * than the one slot, a drone it does not know, an outcome that depends on the attempt number it
 * abstracts away) fails the generator by name.
 */
import {
  type DeliveryEvent,
  type DroneSchedulerSettings,
  EventType,
  ReasonCode,
  RemediationDecision,
  ServiceName,
} from '../../../lambdas/choreography/contracts';
import {
  type AssignmentState,
  AssignmentStatus,
  type DroneState,
  type SchedulerConsumedType,
} from '../../../lambdas/choreography/protocol';
import type { BookingRules } from './booking-rules';
import { MODEL_NOW, MODEL_WINDOW, modelEnvelope } from './model-envelope';

/** The messages of one delivery the booking model delivers to the scheduler. */
export const BOOKING_MESSAGES = ['request', 'retry', 'compensate'] as const;
export type BookingMessage = (typeof BOOKING_MESSAGES)[number];

/** An ASSIGNMENT# item as the model holds it: its status ('ABSENT' before one exists) and drone (index + 1, 0: none). */
export interface ModelAssignment {
  readonly status: 'ABSENT' | AssignmentStatus;
  readonly drone: number;
}

export type BookingOutcome =
  | { readonly kind: 'ignore' }
  | {
      readonly kind: 'change';
      readonly assignment: ModelAssignment;
      /** The event the change emits (the scheduler emits one per change). */
      readonly emits: EventType;
      /** The DRONE# item written (index + 1, 0: none) and its bookings as a bit per delivery. */
      readonly drone: number;
      readonly held: number;
    };

export interface BookingRow {
  readonly delivery: number;
  readonly message: BookingMessage;
  readonly read: ModelAssignment;
  /** Each drone's bookings as read: a bit per delivery. */
  readonly held: readonly number[];
  readonly outcome: BookingOutcome;
}

const deliveryIdOf = (index: number) => `d${index}`;
const droneIdOf = (index: number) => `drone-${index}`;

/** Settings in which every request is in range and every window is the one slot [now, now + 600 s). */
function settingsOf(drones: number): DroneSchedulerSettings {
  return {
    maxReceiveAttempts: 3,
    processedMessageTtlSeconds: 3600,
    drones: Array.from({ length: drones }, (_, index) => droneIdOf(index)),
    maxRangeKm: 50,
    assignmentSeconds: 600,
    pivotDelaySeconds: 600,
  };
}

/** The message `kind` of delivery `index`, as its producer sends it. */
export function bookingEvent(kind: BookingMessage, index: number): DeliveryEvent<SchedulerConsumedType> {
  const deliveryId = deliveryIdOf(index);
  const request = modelEnvelope(
    EventType.DeliveryRequested,
    {
      ownerId: 'owner-1',
      pickup: { lat: 52.52, lon: 13.405 },
      dropoff: { lat: 52.53, lon: 13.405 },
      packages: [{ packageId: 'p1', weightGrams: 1200, size: 'SMALL' }],
    },
    { producer: ServiceName.Ingestion, deliveryId, sequence: 1 },
  );
  if (kind === 'request') return request;
  const decided = (
    decision: RemediationDecision,
    source: ServiceName,
    reasonCode: ReasonCode,
    sequence: number,
  ) =>
    modelEnvelope(
      EventType.RemediationDecided,
      {
        decision,
        reasonCode,
        source,
        occurrence: 1,
        deadLetteredEventId: request.eventId,
        detail: 'the model',
        ...(decision === RemediationDecision.Retry && {
          retryOf: request as unknown as Record<string, unknown>,
        }),
      },
      { producer: ServiceName.Remediation, deliveryId, sequence },
    );
  return kind === 'retry'
    ? decided(RemediationDecision.Retry, ServiceName.DroneScheduler, ReasonCode.NoDroneAvailable, 1)
    : decided(RemediationDecision.Compensate, ServiceName.Package, ReasonCode.PackageTooHeavy, 2);
}

/** Every ASSIGNMENT# value the model holds. */
export function modelAssignments(drones: number): ModelAssignment[] {
  const onDrones = (status: AssignmentStatus) =>
    Array.from({ length: drones }, (_, index) => ({ status, drone: index + 1 }));
  return [
    { status: 'ABSENT', drone: 0 },
    ...onDrones(AssignmentStatus.Scheduled),
    { status: AssignmentStatus.Unavailable, drone: 0 },
    { status: AssignmentStatus.Released, drone: 0 },
    ...onDrones(AssignmentStatus.Released),
  ];
}

function assignmentOf(read: ModelAssignment, index: number, attempt: number): AssignmentState | undefined {
  if (read.status === 'ABSENT') return undefined;
  return {
    deliveryId: deliveryIdOf(index),
    correlationId: `corr-${deliveryIdOf(index)}`,
    status: read.status,
    attempt,
    ...(read.drone > 0 && { droneId: droneIdOf(read.drone - 1) }),
    ...(read.status === AssignmentStatus.Scheduled && { window: MODEL_WINDOW }),
  };
}

/** The version each drone is read at: distinct sentinels, so a write names the version it read. */
export const readVersionOf = (drone: number) => 10 + drone;

function droneStatesOf(held: readonly number[], deliveries: number): DroneState[] {
  return held.map((bits, drone) => ({
    droneId: droneIdOf(drone),
    version: readVersionOf(drone),
    assignments: Array.from({ length: deliveries }, (_, index) => index)
      .filter((index) => (bits >> index) & 1)
      .map((index) => ({ deliveryId: deliveryIdOf(index), ...MODEL_WINDOW })),
  }));
}

function indexIn(ids: readonly string[], id: string | undefined, what: string): number {
  const index = id === undefined ? -1 : ids.indexOf(id);
  if (index < 0) throw new Error(`The booking model knows no ${what} '${id}'`);
  return index;
}

function outcomeOf(
  rules: BookingRules,
  row: Omit<BookingRow, 'outcome'>,
  deliveries: number,
  attempt: number,
): BookingOutcome {
  const settings = settingsOf(row.held.length);
  const deliveryIds = Array.from({ length: deliveries }, (_, index) => deliveryIdOf(index));
  const decision = rules.react({
    assignment: assignmentOf(row.read, row.delivery, attempt),
    drones: droneStatesOf(row.held, deliveries),
    event: bookingEvent(row.message, row.delivery),
    now: MODEL_NOW,
    settings,
  });
  if (decision.kind === 'ignore') return { kind: 'ignore' };
  const { assignment, drone } = decision.state;
  const [emitted, ...more] = decision.emissions;
  if (!emitted || more.length > 0) throw new Error('The booking model expects one emission per change');
  if (
    assignment.status === AssignmentStatus.Scheduled &&
    assignment.window &&
    assignment.window.start !== MODEL_WINDOW.start
  ) {
    throw new Error(
      `The booking model has one slot; the rule scheduled ${JSON.stringify(assignment.window)}`,
    );
  }
  let written = 0;
  let held = 0;
  if (drone) {
    written = indexIn(settings.drones, drone.droneId, 'drone') + 1;
    if (drone.expectedVersion !== readVersionOf(written - 1)) {
      throw new Error(`A DRONE# write names version ${drone.expectedVersion}, not the one read`);
    }
    for (const booking of drone.assignments) {
      if (booking.start !== MODEL_WINDOW.start || booking.end !== MODEL_WINDOW.end) {
        throw new Error(`The booking model has one slot; a booking is ${JSON.stringify(booking)}`);
      }
      held |= 1 << indexIn(deliveryIds, booking.deliveryId, 'delivery');
    }
  }
  return {
    kind: 'change',
    assignment: {
      status: assignment.status,
      drone: assignment.droneId === undefined ? 0 : indexIn(settings.drones, assignment.droneId, 'drone') + 1,
    },
    emits: emitted.type,
    drone: written,
    held,
  };
}

/** Every combination of held bookings: `drones` numbers, each below 2^deliveries. */
function heldCombinations(deliveries: number, drones: number): number[][] {
  let combinations: number[][] = [[]];
  for (let drone = 0; drone < drones; drone++) {
    combinations = combinations.flatMap((prefix) =>
      Array.from({ length: 1 << deliveries }, (_, bits) => [...prefix, bits]),
    );
  }
  return combinations;
}

/** The table: one row per (delivery, message, assignment read, bookings read). */
export function bookingTable(rules: BookingRules, deliveries: number, drones: number): BookingRow[] {
  const rows: BookingRow[] = [];
  for (let delivery = 0; delivery < deliveries; delivery++) {
    for (const message of BOOKING_MESSAGES) {
      for (const read of modelAssignments(drones)) {
        for (const held of heldCombinations(deliveries, drones)) {
          const input = { delivery, message, read, held };
          const outcome = outcomeOf(rules, input, deliveries, 1);
          const later = outcomeOf(rules, input, deliveries, 2);
          if (JSON.stringify(outcome) !== JSON.stringify(later)) {
            throw new Error(
              `The booking model abstracts the attempt number away, but the rule decides ${message} on ${read.status} by it`,
            );
          }
          rows.push({ ...input, outcome });
        }
      }
    }
  }
  return rows;
}
