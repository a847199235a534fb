/** Where the outbox relay publishes an event, and the entry the change log holds for it. */
import * as z from 'zod';
import { ChoreographyEnvKey } from './env';
import { ServiceName } from './names';

export const OutboxDestination = {
  /** SNS FIFO topic of requests and remediation decisions (MessageGroupId = deliveryId). */
  RequestsTopic: 'requests-topic',
  /** The Delivery service's SQS FIFO queue: the session-aware queue (MessageGroupId = deliveryId). */
  DeliveryQueue: 'delivery-queue',
  /** EventBridge bus of delivery lifecycle events, open to unknown consumers. */
  DeliveryBus: 'delivery-bus',
  /** EventBridge bus of operator alerts. */
  AlertBus: 'alert-bus',
} as const;
export type OutboxDestination = (typeof OutboxDestination)[keyof typeof OutboxDestination];
export const OUTBOX_DESTINATIONS = Object.values(OutboxDestination) as [
  OutboxDestination,
  ...OutboxDestination[],
];

/** The environment variable naming each destination on a relay. */
export const DESTINATION_ENV_KEY: Readonly<Record<OutboxDestination, ChoreographyEnvKey>> = {
  'requests-topic': ChoreographyEnvKey.RequestsTopicArn,
  'delivery-queue': ChoreographyEnvKey.DeliveryQueueUrl,
  'delivery-bus': ChoreographyEnvKey.DeliveryBusName,
  'alert-bus': ChoreographyEnvKey.AlertBusName,
};

/**
 * One change log entry: an event envelope (or an alert detail for the alert bus), and where it goes.
 * `id` is the event id (alert id): the relay publishes the entries of a NEW image whose id the OLD
 * image did not hold, in list order.
 */
export const OutboxEntrySchema = z.object({
  id: z.string().min(1).max(256),
  destination: z.enum(OUTBOX_DESTINATIONS),
  /** The message: an envelope (DeliveryEvent) or a DeliveryAlert. */
  message: z.record(z.string(), z.unknown()),
});
export type OutboxEntry = z.infer<typeof OutboxEntrySchema>;

/**
 * Where each service's events go: the relay of a service's table publishes to these destinations
 * and nowhere else (the stack gives it exactly these, with the matching grants), and the fake drone
 * fleet sends straight to the delivery queue.
 */
export const SERVICE_DESTINATIONS: Readonly<Record<ServiceName, readonly OutboxDestination[]>> = {
  [ServiceName.Ingestion]: [OutboxDestination.RequestsTopic],
  [ServiceName.Package]: [OutboxDestination.DeliveryQueue],
  [ServiceName.DroneScheduler]: [OutboxDestination.DeliveryQueue],
  [ServiceName.Delivery]: [OutboxDestination.DeliveryBus],
  [ServiceName.Remediation]: [OutboxDestination.RequestsTopic, OutboxDestination.AlertBus],
  [ServiceName.DroneFleet]: [OutboxDestination.DeliveryQueue],
};
