/**
 * Every message of the choreography: one envelope (who, what, which delivery, which version, which
 * place in the delivery's sequence, which correlation id) around a per-type `data` body, with a
 * zod schema per event type and schema version.
 *
 * Evolution rule (tested against the stored samples and published JSON Schemas in ./published):
 * a new version of an event type only adds optional fields, and every schema is loose (unknown
 * fields are kept, not rejected), so a consumer written against v1 accepts a v2 event. A change
 * that is not additive is a new event type, never a new version. Consumers are upgraded before
 * producers: a version a consumer's contracts do not list is dead-lettered as UNKNOWN_VERSION.
 *
 * EventBridge's own envelope `version` is always "0"; the schema version travels here, in `detail`.
 */
import * as z from 'zod';
import { ServiceName } from './names';
import { ReasonCodeSchema, RemediationDecisionSchema } from './reason-codes';

export const DELIVERY_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const DeliveryIdSchema = z
  .string()
  .regex(DELIVERY_ID_PATTERN, 'must be 1-64 characters of A-Z a-z 0-9 _ -');
const IsoTime = z.iso.datetime({ offset: true });
const Text = z.string().min(1).max(512);

export const CoordinatesSchema = z.looseObject({
  lat: z.number().min(-90).max(90),
  lon: z.number().min(-180).max(180),
});
export type Coordinates = z.infer<typeof CoordinatesSchema>;

export const PACKAGE_SIZES = ['SMALL', 'MEDIUM', 'LARGE'] as const;
export type PackageSize = (typeof PACKAGE_SIZES)[number];
/** Heaviest package the API accepts; whether a drone can carry the total is the Package service's call. */
export const MAX_PACKAGE_WEIGHT_GRAMS = 25_000;

export const PackageSchema = z.looseObject({
  packageId: z.string().regex(DELIVERY_ID_PATTERN, 'must be 1-64 characters of A-Z a-z 0-9 _ -'),
  weightGrams: z.number().int().min(1).max(MAX_PACKAGE_WEIGHT_GRAMS),
  size: z.enum(PACKAGE_SIZES),
});
export type DeliveryPackage = z.infer<typeof PackageSchema>;

const WindowSchema = z.looseObject({ start: IsoTime, end: IsoTime });
export type DroneWindow = z.infer<typeof WindowSchema>;

export const FLIGHT_STAGES = ['PICKED_UP', 'DELIVERED', 'FAILED'] as const;
export type FlightStage = (typeof FLIGHT_STAGES)[number];

/** Event types, each with its data schema per version. */
export const EventType = {
  DeliveryRequested: 'DeliveryRequested',
  PackageReady: 'PackageReady',
  PackageRejected: 'PackageRejected',
  DroneScheduled: 'DroneScheduled',
  DroneUnavailable: 'DroneUnavailable',
  DroneReleased: 'DroneReleased',
  FlightProgress: 'FlightProgress',
  RemediationDecided: 'RemediationDecided',
  DeliveryScheduled: 'DeliveryScheduled',
  PickedUp: 'PickedUp',
  Delivered: 'Delivered',
  DeliveryFailed: 'DeliveryFailed',
  DeliveryCancelled: 'DeliveryCancelled',
} as const;
export type EventType = (typeof EventType)[keyof typeof EventType];
export const EVENT_TYPES = Object.values(EventType) as [EventType, ...EventType[]];

const DeliveryRequestedV1 = z.looseObject({
  ownerId: z.string().min(1).max(128),
  pickup: CoordinatesSchema,
  dropoff: CoordinatesSchema,
  packages: z.array(PackageSchema).min(1).max(5),
  deadline: IsoTime.optional(),
});
const PackageReadyV1 = z.looseObject({
  packages: z.array(PackageSchema).min(1).max(5),
  totalWeightGrams: z.number().int().min(1),
});
const RejectionV1 = z.looseObject({ reasonCode: ReasonCodeSchema, detail: Text });
const DroneScheduledV1 = z.looseObject({
  droneId: Text,
  window: WindowSchema,
  /** 1 for the first request, then one more per remediation retry or pivot. */
  attempt: z.number().int().min(1),
});
const DroneUnavailableV1 = RejectionV1.extend({ attempt: z.number().int().min(1) });
const DroneReleasedV1 = z.looseObject({ droneId: Text.optional(), reasonCode: ReasonCodeSchema });
const FlightProgressV1 = z.looseObject({
  droneId: Text,
  stage: z.enum(FLIGHT_STAGES),
  reasonCode: ReasonCodeSchema.optional(),
});
const RemediationDecidedV1 = z.looseObject({
  decision: RemediationDecisionSchema,
  reasonCode: ReasonCodeSchema,
  /** The service whose dead-letter queue held the message (and which a RETRY or PIVOT is for). */
  source: z.enum(Object.values(ServiceName) as [ServiceName, ...ServiceName[]]),
  /** How many times this delivery's work was dead-lettered for this reason by this service. */
  occurrence: z.number().int().min(1),
  /** The event id of the dead-lettered message the decision resolves. */
  deadLetteredEventId: Text,
  detail: Text,
  /** RETRY and PIVOT: the dead-lettered message to process again (an envelope). */
  retryOf: z.record(z.string(), z.unknown()).optional(),
});
const DeliveryScheduledV1 = z.looseObject({ droneId: Text, window: WindowSchema });
/** v2 adds the estimated arrival (optional: v1 consumers ignore it, v2 consumers may lack it). */
const DeliveryScheduledV2 = DeliveryScheduledV1.extend({ estimatedArrival: IsoTime.optional() });
const DroneOnlyV1 = z.looseObject({ droneId: Text });

/** Data schema of each published version of each event type. Versions are 1, 2, …, without gaps. */
export const EVENT_DATA_SCHEMAS = {
  DeliveryRequested: { 1: DeliveryRequestedV1 },
  PackageReady: { 1: PackageReadyV1 },
  PackageRejected: { 1: RejectionV1 },
  DroneScheduled: { 1: DroneScheduledV1 },
  DroneUnavailable: { 1: DroneUnavailableV1 },
  DroneReleased: { 1: DroneReleasedV1 },
  FlightProgress: { 1: FlightProgressV1 },
  RemediationDecided: { 1: RemediationDecidedV1 },
  DeliveryScheduled: { 1: DeliveryScheduledV1, 2: DeliveryScheduledV2 },
  PickedUp: { 1: DroneOnlyV1 },
  Delivered: { 1: DroneOnlyV1 },
  DeliveryFailed: { 1: RejectionV1 },
  DeliveryCancelled: { 1: RejectionV1 },
} as const satisfies Record<EventType, Record<number, z.ZodType>>;

type LatestVersion<T extends EventType> = keyof (typeof EVENT_DATA_SCHEMAS)[T] extends infer K
  ? K extends number
    ? K
    : never
  : never;
/** The data of an event type as producers write it today (its newest version). */
export type EventData<T extends EventType> = z.infer<
  (typeof EVENT_DATA_SCHEMAS)[T][Extract<LatestVersion<T>, keyof (typeof EVENT_DATA_SCHEMAS)[T]>] & z.ZodType
>;

/** The version producers write: the newest of each type. */
export function currentVersion(type: EventType): number {
  return Math.max(...Object.keys(EVENT_DATA_SCHEMAS[type]).map(Number));
}

export function knownVersions(type: EventType): readonly number[] {
  return Object.keys(EVENT_DATA_SCHEMAS[type])
    .map(Number)
    .sort((a, b) => a - b);
}

/** The envelope fields, common to every event (loose: later envelope versions may add fields). */
export const EnvelopeHeaderSchema = z.looseObject({
  type: z.enum(EVENT_TYPES),
  schemaVersion: z.number().int().min(1),
  /** Stable id of this event: the de-duplication key of every consumer and of FIFO queues. */
  eventId: z.string().min(1).max(128),
  deliveryId: DeliveryIdSchema,
  /** The id given at ingestion, carried by every message, log line and event of the delivery. */
  correlationId: z.string().min(1).max(128),
  /** Position among the events this producer emitted for this delivery: 1, 2, … without gaps. */
  sequence: z.number().int().min(1),
  producer: z.enum(Object.values(ServiceName) as [ServiceName, ...ServiceName[]]),
  occurredAt: IsoTime,
  data: z.record(z.string(), z.unknown()),
});
export type EnvelopeHeader = z.infer<typeof EnvelopeHeaderSchema>;

/** The envelope's fields (written out: Omit over a loose schema's index signature would drop them). */
export interface EnvelopeFields {
  readonly schemaVersion: number;
  readonly eventId: string;
  readonly deliveryId: string;
  readonly correlationId: string;
  readonly sequence: number;
  readonly producer: ServiceName;
  readonly occurredAt: string;
}

/** A parsed event: the envelope with its typed data. */
export type DeliveryEvent<T extends EventType = EventType> = T extends EventType
  ? EnvelopeFields & { readonly type: T; readonly data: EventData<T> }
  : never;

/** Lifecycle events the Delivery service puts on the bus, and the status each one leaves. */
export const LIFECYCLE_EVENT_TYPES = [
  EventType.DeliveryScheduled,
  EventType.PickedUp,
  EventType.Delivered,
  EventType.DeliveryFailed,
  EventType.DeliveryCancelled,
] as const;
export type LifecycleEventType = (typeof LIFECYCLE_EVENT_TYPES)[number];

/** Operator alerts (detail of detail-type DELIVERY_ALERT_DETAIL_TYPE on the operator alert bus). */
export const DELIVERY_ALERT_DETAIL_TYPE = 'DeliveryNeedsOperator';
export const DeliveryAlertSchema = z.looseObject({
  /** Stable: the de-duplication key of whoever reads alerts. */
  alertId: z.string().min(1).max(256),
  deliveryId: DeliveryIdSchema.optional(),
  correlationId: z.string().min(1).max(128).optional(),
  reasonCode: ReasonCodeSchema,
  decision: RemediationDecisionSchema,
  source: z.string().min(1).max(64),
  detail: Text,
  raisedAt: IsoTime,
});
export type DeliveryAlert = z.infer<typeof DeliveryAlertSchema>;
