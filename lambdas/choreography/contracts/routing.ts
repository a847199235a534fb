/**
 * Who hears what: the SNS subscription filter policies of the requests topic and the event patterns
 * of the bus rules, as data the stack deploys and the tests check (no service consumes its own
 * events; rules filter by detail-type and version).
 */
import { type EventType, knownVersions, LIFECYCLE_EVENT_TYPES, EventType as Type } from './events';
import { eventSourceOf, MessageAttribute, ServiceName } from './names';
import { RemediationDecision } from './reason-codes';

/** Services that consume the requests topic, each through its own SQS FIFO queue. */
export const TOPIC_CONSUMERS = [
  ServiceName.Package,
  ServiceName.DroneScheduler,
  ServiceName.Delivery,
  ServiceName.Ingestion,
] as const;
export type TopicConsumer = (typeof TOPIC_CONSUMERS)[number];

/** A remediation decision to retry or pivot goes to the service whose work it repeats. */
const retriesFor = (service: TopicConsumer) => ({
  [MessageAttribute.Type]: [Type.RemediationDecided],
  [MessageAttribute.Source]: [service],
  [MessageAttribute.Decision]: [RemediationDecision.Retry, RemediationDecision.Pivot],
});
/** Compensations and give-ups concern every service that holds something for the delivery. */
const endings = {
  [MessageAttribute.Type]: [Type.RemediationDecided],
  [MessageAttribute.Decision]: [RemediationDecision.Compensate, RemediationDecision.GiveUp],
};

/** SNS filter policy (scope MessageAttributes) of each consumer's subscription to the requests topic. */
export const TOPIC_FILTER_POLICIES: Readonly<Record<TopicConsumer, Record<string, unknown>>> = {
  [ServiceName.Package]: {
    $or: [{ [MessageAttribute.Type]: [Type.DeliveryRequested] }, retriesFor(ServiceName.Package)],
  },
  [ServiceName.DroneScheduler]: {
    $or: [
      { [MessageAttribute.Type]: [Type.DeliveryRequested] },
      retriesFor(ServiceName.DroneScheduler),
      endings,
    ],
  },
  [ServiceName.Delivery]: { $or: [retriesFor(ServiceName.Delivery), endings] },
  [ServiceName.Ingestion]: retriesFor(ServiceName.Ingestion),
};

/** What each consumer parses; anything else reaching it is SCHEMA_INVALID. */
export const CONSUMED_EVENT_TYPES: Readonly<Record<ServiceName, readonly EventType[]>> = {
  [ServiceName.Ingestion]: [...LIFECYCLE_EVENT_TYPES, Type.RemediationDecided],
  [ServiceName.Package]: [Type.DeliveryRequested, Type.RemediationDecided],
  [ServiceName.DroneScheduler]: [Type.DeliveryRequested, Type.RemediationDecided],
  [ServiceName.Delivery]: [
    Type.PackageReady,
    Type.PackageRejected,
    Type.DroneScheduled,
    Type.DroneUnavailable,
    Type.DroneReleased,
    Type.FlightProgress,
    Type.RemediationDecided,
  ],
  [ServiceName.Remediation]: [],
  [ServiceName.DroneFleet]: [Type.DeliveryScheduled],
};

/** The event types each service produces (its events never route back to it). */
export const PRODUCED_EVENT_TYPES: Readonly<Record<ServiceName, readonly EventType[]>> = {
  [ServiceName.Ingestion]: [Type.DeliveryRequested],
  [ServiceName.Package]: [Type.PackageReady, Type.PackageRejected],
  [ServiceName.DroneScheduler]: [Type.DroneScheduled, Type.DroneUnavailable, Type.DroneReleased],
  [ServiceName.Delivery]: [...LIFECYCLE_EVENT_TYPES],
  [ServiceName.Remediation]: [Type.RemediationDecided],
  [ServiceName.DroneFleet]: [Type.FlightProgress],
};

/** An EventBridge pattern for lifecycle events of the given types, at the versions the contracts know. */
export function lifecyclePattern(types: readonly EventType[]): Record<string, unknown> {
  const versions = [...new Set(types.flatMap((type) => knownVersions(type)))].sort((a, b) => a - b);
  return {
    source: [eventSourceOf(ServiceName.Delivery)],
    'detail-type': [...types],
    detail: { schemaVersion: versions },
  };
}

/** Bus rules of the stack: the ingestion read model hears every lifecycle event; drones hear schedules. */
export const BUS_RULE_PATTERNS = {
  ingestionProjection: lifecyclePattern(LIFECYCLE_EVENT_TYPES),
  droneFleet: lifecyclePattern([Type.DeliveryScheduled]),
} as const;
