/**
 * The fake drone fleet's flights (DESIGN.md "Fake drone fleet"): a scheduled delivery is picked up
 * after pickupMillis and delivered flightMillis later, or fails in flight when its id starts with
 * failingDeliveryPrefix (a hook for demos and tests). Each report is a FlightProgress envelope for
 * the delivery queue, numbered 1 and 2 for the delivery, so a redelivered schedule sends the very
 * same event ids and every de-duplication downstream holds.
 */
import {
  type DeliveryEvent,
  EventType,
  type FlightSettings,
  type FlightStage,
  OutboxDestination,
  type OutboxEntry,
  ReasonCode,
  ServiceName,
} from '../../choreography/contracts';
import { emission, toOutboxEntries } from '../../choreography/domain/envelope';

/** One report: sent `afterMillis` after the previous one (the first: after the flight starts). */
export interface FlightLeg {
  readonly afterMillis: number;
  readonly stage: FlightStage;
  /** The report as a change log entry would hold it, so the relay's publisher sends it unchanged. */
  readonly entry: OutboxEntry;
}

export function flightPlan(
  scheduled: DeliveryEvent<typeof EventType.DeliveryScheduled>,
  settings: FlightSettings,
  startedAt: Date,
): FlightLeg[] {
  const { droneId } = scheduled.data;
  const fails = scheduled.deliveryId.startsWith(settings.failingDeliveryPrefix);
  const legs = [
    { afterMillis: settings.pickupMillis, stage: 'PICKED_UP' as const },
    { afterMillis: settings.flightMillis, stage: fails ? ('FAILED' as const) : ('DELIVERED' as const) },
  ];
  let at = startedAt.getTime();
  return legs.map(({ afterMillis, stage }, index) => {
    at += afterMillis;
    const [entry] = toOutboxEntries(
      {
        producer: ServiceName.DroneFleet,
        deliveryId: scheduled.deliveryId,
        correlationId: scheduled.correlationId,
        lastSequence: index,
        now: new Date(at),
      },
      [
        emission(OutboxDestination.DeliveryQueue, EventType.FlightProgress, {
          droneId,
          stage,
          ...(stage === 'FAILED' ? { reasonCode: ReasonCode.FlightFailed } : {}),
        }),
      ],
    );
    if (!entry) throw new Error('toOutboxEntries returned no entry for one emission');
    return { afterMillis, stage, entry };
  });
}
