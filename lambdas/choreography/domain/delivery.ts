/**
 * Delivery service: correlates the Package and Drone Scheduler replies of one delivery (either may
 * come first), follows the flight, and publishes the delivery's lifecycle.
 *
 * Messages of different producers have no order between them, and any message may come twice or
 * late, so: each reply is kept with the producer sequence it came from and only a higher one
 * replaces it; lifecycle statuses only move forward; a terminal status never changes.
 */
import {
  type DeliveryEvent,
  type DeliverySettings,
  DeliveryStatus,
  type DroneWindow,
  EventType,
  type FlightStage,
  isTerminalStatus,
  OutboxDestination,
  ReasonCode,
  RemediationDecision,
  ServiceName,
} from '../contracts';
import { type Decision, ignored } from './decision';
import { AssignmentStatus } from './drone-scheduler';
import { type Emission, emission } from './envelope';
import { PackageOutcome } from './package-service';
import { originalOf } from './retry-of';

/** A reply's outcome in its producer's own words: the Package service's and the Drone Scheduler's. */
export { PackageOutcome };
export const DroneOutcome = AssignmentStatus;
export type DroneOutcome = AssignmentStatus;

/** A reply as recorded: what it said and the producer sequence it came from. */
interface Reply<Outcome> {
  readonly outcome: Outcome;
  readonly eventId: string;
  readonly sequence: number;
  readonly reasonCode?: ReasonCode;
}
export type PackageReply = Reply<PackageOutcome>;
export interface DroneReply extends Reply<DroneOutcome> {
  readonly droneId?: string;
  readonly window?: DroneWindow;
}
export interface FlightReport {
  readonly stage: FlightStage;
  readonly sequence: number;
  readonly droneId: string;
}

/** The DELIVERY# item of the Delivery service (without its change log, which the store keeps). */
export interface DeliveryState {
  readonly deliveryId: string;
  readonly correlationId: string;
  readonly status: DeliveryStatus;
  readonly package?: PackageReply;
  readonly drone?: DroneReply;
  readonly flight?: FlightReport;
  readonly updatedAt: string;
}

/** CONSUMED_EVENT_TYPES of the Delivery service, as a tuple so the reaction's switch is exhaustive. */
export const DELIVERY_CONSUMED_TYPES = [
  EventType.PackageReady,
  EventType.PackageRejected,
  EventType.DroneScheduled,
  EventType.DroneUnavailable,
  EventType.DroneReleased,
  EventType.FlightProgress,
  EventType.RemediationDecided,
] as const;
export type DeliveryConsumedType = (typeof DELIVERY_CONSUMED_TYPES)[number];

export interface DeliveryInput {
  readonly state: DeliveryState | undefined;
  readonly event: DeliveryEvent<DeliveryConsumedType>;
  readonly now: Date;
  readonly settings: DeliverySettings;
}

const lifecycle = <T extends EventType>(type: T, data: Parameters<typeof emission<T>>[2]): Emission =>
  emission(OutboxDestination.DeliveryBus, type, data);

/**
 * The two guards that keep the record right whatever the order of its messages, named so the
 * protocol model (lib/verify, through protocol.ts) reads the very rules this reaction applies.
 */
export interface DeliveryGuards {
  /** A terminal status never changes. */
  readonly isFinal: (status: DeliveryStatus) => boolean;
  /** A reply or flight report replaces the recorded one only when its producer sequence is higher. */
  readonly isNewer: (incoming: number, recorded: number | undefined) => boolean;
}

export const DELIVERY_GUARDS: DeliveryGuards = {
  isFinal: isTerminalStatus,
  isNewer: (incoming, recorded) => recorded === undefined || incoming > recorded,
};

export function reactToDeliveryEvent(
  input: DeliveryInput,
  guards: DeliveryGuards = DELIVERY_GUARDS,
): Decision<DeliveryState> {
  const { event, now } = input;
  const current: DeliveryState = input.state ?? {
    deliveryId: event.deliveryId,
    correlationId: event.correlationId,
    status: DeliveryStatus.Requested,
    updatedAt: now.toISOString(),
  };
  if (guards.isFinal(current.status)) return ignored(`the delivery is ${current.status} already`);
  const stamped = (state: DeliveryState): DeliveryState => ({ ...state, updatedAt: now.toISOString() });

  switch (event.type) {
    case EventType.PackageReady:
    case EventType.PackageRejected: {
      if (current.package && !guards.isNewer(event.sequence, current.package.sequence)) {
        return ignored(`package reply ${event.sequence} is not newer than ${current.package.sequence}`);
      }
      const reply: PackageReply =
        event.type === EventType.PackageReady
          ? { outcome: PackageOutcome.Ready, eventId: event.eventId, sequence: event.sequence }
          : {
              outcome: PackageOutcome.Rejected,
              eventId: event.eventId,
              sequence: event.sequence,
              reasonCode: event.data.reasonCode,
            };
      return correlate(stamped({ ...current, package: reply }), input.settings);
    }
    case EventType.DroneScheduled:
    case EventType.DroneUnavailable:
    case EventType.DroneReleased: {
      if (current.drone && !guards.isNewer(event.sequence, current.drone.sequence)) {
        return ignored(`drone reply ${event.sequence} is not newer than ${current.drone.sequence}`);
      }
      return correlate(stamped({ ...current, drone: droneReplyOf(event) }), input.settings);
    }
    case EventType.FlightProgress:
      return fly(current, event, stamped, guards);
    case EventType.RemediationDecided:
      return remediate(input, current, event, stamped, guards);
  }
}

function droneReplyOf(
  event: DeliveryEvent<
    typeof EventType.DroneScheduled | typeof EventType.DroneUnavailable | typeof EventType.DroneReleased
  >,
): DroneReply {
  const at = { eventId: event.eventId, sequence: event.sequence };
  switch (event.type) {
    case EventType.DroneScheduled:
      return {
        outcome: DroneOutcome.Scheduled,
        ...at,
        droneId: event.data.droneId,
        window: event.data.window,
      };
    case EventType.DroneUnavailable:
      return { outcome: DroneOutcome.Unavailable, ...at, reasonCode: event.data.reasonCode };
    case EventType.DroneReleased:
      return {
        outcome: DroneOutcome.Released,
        ...at,
        reasonCode: event.data.reasonCode,
        ...(event.data.droneId === undefined ? {} : { droneId: event.data.droneId }),
      };
  }
}

/**
 * Both replies in and both good: scheduled. Anything else waits (a rejection or an unavailable
 * drone is remediation's to decide, which answers with a retry's new reply or a decision).
 */
function correlate(state: DeliveryState, settings: DeliverySettings): Decision<DeliveryState> {
  const waiting = state.status === DeliveryStatus.Requested || state.status === DeliveryStatus.Correlating;
  const { drone } = state;
  if (
    waiting &&
    state.package?.outcome === PackageOutcome.Ready &&
    drone?.outcome === DroneOutcome.Scheduled &&
    drone.droneId !== undefined &&
    drone.window !== undefined
  ) {
    const estimatedArrival = new Date(
      Date.parse(drone.window.start) + settings.expectedFlightSeconds * 1000,
    ).toISOString();
    return {
      kind: 'change',
      state: { ...state, status: DeliveryStatus.Scheduled },
      emissions: [
        lifecycle(EventType.DeliveryScheduled, {
          droneId: drone.droneId,
          window: drone.window,
          estimatedArrival,
        }),
      ],
    };
  }
  return {
    kind: 'change',
    state: waiting ? { ...state, status: DeliveryStatus.Correlating } : state,
    emissions: [],
  };
}

function fly(
  current: DeliveryState,
  event: DeliveryEvent<typeof EventType.FlightProgress>,
  stamped: (state: DeliveryState) => DeliveryState,
  guards: DeliveryGuards,
): Decision<DeliveryState> {
  if (current.flight && !guards.isNewer(event.sequence, current.flight.sequence)) {
    return ignored(`flight report ${event.sequence} is not newer than ${current.flight.sequence}`);
  }
  const flying = current.status === DeliveryStatus.Scheduled || current.status === DeliveryStatus.PickedUp;
  if (!flying) return ignored(`flight progress ${event.data.stage} while the delivery is ${current.status}`);
  const { droneId, stage } = event.data;
  const next = stamped({ ...current, flight: { stage, sequence: event.sequence, droneId } });
  switch (stage) {
    case 'PICKED_UP':
      if (current.status !== DeliveryStatus.Scheduled) return { kind: 'change', state: next, emissions: [] };
      return {
        kind: 'change',
        state: { ...next, status: DeliveryStatus.PickedUp },
        emissions: [lifecycle(EventType.PickedUp, { droneId })],
      };
    case 'DELIVERED':
      // A DELIVERED that overtook its PICKED_UP still tells the lifecycle in order.
      return {
        kind: 'change',
        state: { ...next, status: DeliveryStatus.Delivered },
        emissions: [
          ...(current.status === DeliveryStatus.Scheduled
            ? [lifecycle(EventType.PickedUp, { droneId })]
            : []),
          lifecycle(EventType.Delivered, { droneId }),
        ],
      };
    case 'FAILED':
      return {
        kind: 'change',
        state: { ...next, status: DeliveryStatus.Failed },
        emissions: [
          lifecycle(EventType.DeliveryFailed, {
            reasonCode: event.data.reasonCode ?? ReasonCode.FlightFailed,
            detail: `drone ${droneId} reported a failed flight`,
          }),
        ],
      };
  }
}

function remediate(
  input: DeliveryInput,
  current: DeliveryState,
  event: DeliveryEvent<typeof EventType.RemediationDecided>,
  stamped: (state: DeliveryState) => DeliveryState,
  guards: DeliveryGuards,
): Decision<DeliveryState> {
  const { decision, reasonCode, detail, source } = event.data;
  switch (decision) {
    case RemediationDecision.Compensate:
      return {
        kind: 'change',
        state: stamped({ ...current, status: DeliveryStatus.Cancelled }),
        emissions: [lifecycle(EventType.DeliveryCancelled, { reasonCode, detail })],
      };
    case RemediationDecision.GiveUp:
      return {
        kind: 'change',
        state: stamped({ ...current, status: DeliveryStatus.Failed }),
        emissions: [lifecycle(EventType.DeliveryFailed, { reasonCode, detail })],
      };
    case RemediationDecision.Retry:
    case RemediationDecision.Pivot: {
      if (source !== ServiceName.Delivery) return ignored(`a ${decision} for ${source} is not ours`);
      const repeatable = DELIVERY_CONSUMED_TYPES.filter((type) => type !== EventType.RemediationDecided);
      const original = originalOf(event.data.retryOf, repeatable);
      if (!original.ok) return ignored(original.detail);
      // The repeated message is processed as if it arrived now: its own sequence keeps it from
      // overwriting anything newer that came since.
      return reactToDeliveryEvent({ ...input, event: original.event }, guards);
    }
    case RemediationDecision.Alert:
      return ignored('an alert asks nothing of the Delivery service');
  }
}
