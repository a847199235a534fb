/**
 * The messages the delivery model delivers to the Delivery service, one delivery's worth: each
 * producer's replies with the producer sequence it sends them under (a later reply has a higher
 * one), built as the producer builds them and read back through the contracts' parser. Every
 * producer is one the contracts say produces that type; the sequences of one producer are 1, 2, ...
 * in the order listed, so a recorded sequence names the reply it came from.
 */
import {
  type DeliveryEvent,
  EventType,
  type FlightStage,
  PRODUCED_EVENT_TYPES,
  ReasonCode,
  RemediationDecision,
  ServiceName,
} from '../../../lambdas/choreography/contracts';
import type { DeliveryConsumedType } from '../../../lambdas/choreography/protocol';
import { MODEL_WINDOW, modelEnvelope } from './model-envelope';

/** One message of the model: its type, what distinguishes it, and the sequence its producer sent it under. */
export interface DeliveryMessage {
  /** A short name, unique in the list (the model's `M_<name>`). */
  readonly name: string;
  readonly type: DeliveryConsumedType;
  readonly sequence: number;
  /** FlightProgress: the stage reported. */
  readonly stage?: FlightStage;
}

/** The model's messages: a rejected then a ready package, a scheduled then a released drone, a flight picked up then delivered, and a compensation. */
export const DELIVERY_MESSAGES: readonly DeliveryMessage[] = [
  { name: 'PackageRejected', type: EventType.PackageRejected, sequence: 1 },
  { name: 'PackageReady', type: EventType.PackageReady, sequence: 2 },
  { name: 'DroneScheduled', type: EventType.DroneScheduled, sequence: 1 },
  { name: 'DroneReleased', type: EventType.DroneReleased, sequence: 2 },
  { name: 'PickedUp', type: EventType.FlightProgress, stage: 'PICKED_UP', sequence: 1 },
  { name: 'Delivered', type: EventType.FlightProgress, stage: 'DELIVERED', sequence: 2 },
  { name: 'Compensate', type: EventType.RemediationDecided, sequence: 1 },
];

const MODEL_DELIVERY_ID = 'd0';
const MODEL_DRONE_ID = 'drone-0';

/** The producer of a type, as the contracts route it. */
export function producerOf(type: DeliveryConsumedType): ServiceName {
  const producers = (Object.entries(PRODUCED_EVENT_TYPES) as [ServiceName, readonly EventType[]][])
    .filter(([, types]) => types.includes(type))
    .map(([producer]) => producer);
  const [producer, ...more] = producers;
  if (producer === undefined || more.length > 0) {
    throw new Error(
      `The delivery model needs one producer of ${type}; the contracts name ${producers.length}`,
    );
  }
  return producer;
}

/** The message as its producer sends it. */
export function deliveryEvent(message: DeliveryMessage): DeliveryEvent<DeliveryConsumedType> {
  const at = {
    producer: producerOf(message.type),
    deliveryId: MODEL_DELIVERY_ID,
    sequence: message.sequence,
  };
  const detail = 'the model';
  switch (message.type) {
    case EventType.PackageReady:
      return modelEnvelope(
        message.type,
        { packages: [{ packageId: 'p1', weightGrams: 1200, size: 'SMALL' }], totalWeightGrams: 1200 },
        at,
      );
    case EventType.PackageRejected:
      return modelEnvelope(message.type, { reasonCode: ReasonCode.PackageTooHeavy, detail }, at);
    case EventType.DroneScheduled:
      return modelEnvelope(
        message.type,
        { droneId: MODEL_DRONE_ID, window: MODEL_WINDOW, attempt: message.sequence },
        at,
      );
    case EventType.DroneUnavailable:
      return modelEnvelope(
        message.type,
        { reasonCode: ReasonCode.NoDroneAvailable, detail, attempt: message.sequence },
        at,
      );
    case EventType.DroneReleased:
      return modelEnvelope(
        message.type,
        { droneId: MODEL_DRONE_ID, reasonCode: ReasonCode.DeliveryCancelled },
        at,
      );
    case EventType.FlightProgress:
      return modelEnvelope(
        message.type,
        { droneId: MODEL_DRONE_ID, stage: message.stage ?? 'PICKED_UP' },
        at,
      );
    case EventType.RemediationDecided:
      return modelEnvelope(
        message.type,
        {
          decision: RemediationDecision.Compensate,
          reasonCode: ReasonCode.PackageTooHeavy,
          source: ServiceName.Package,
          occurrence: 1,
          deadLetteredEventId: 'the-dead-lettered-message',
          detail,
        },
        at,
      );
  }
}
