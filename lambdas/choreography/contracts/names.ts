/**
 * Names every part of the drone delivery choreography agrees on: the services (each one the
 * `producer` of the events it emits), the event sources on the delivery bus, and the message
 * attributes that carry routing facts outside the body (SNS filter policies, dead-letter reasons).
 */

/** The services of the choreography. Each owns its table and publishes only what happened to it. */
export const ServiceName = {
  Ingestion: 'ingestion',
  Package: 'package',
  DroneScheduler: 'drone-scheduler',
  Delivery: 'delivery',
  Remediation: 'remediation',
  /** The drones themselves (a fake fleet here): they report flight progress. */
  DroneFleet: 'drone-fleet',
} as const;
export type ServiceName = (typeof ServiceName)[keyof typeof ServiceName];
export const SERVICE_NAMES: readonly ServiceName[] = Object.values(ServiceName);

/** CloudWatch namespace of the choreography's custom metrics (POWERTOOLS_METRICS_NAMESPACE). */
export const CHOREOGRAPHY_METRICS_NAMESPACE = 'DroneDelivery';

/** EventBridge `source` of the events a service puts on the delivery bus: `drone-delivery.<service>`. */
export function eventSourceOf(service: ServiceName): string {
  return `drone-delivery.${service}`;
}

/** Source of the operator alerts the choreography raises (on its operator alert bus). */
export const DELIVERY_ALERT_SOURCE = 'drone-delivery';

/**
 * Message attributes set on every SNS and SQS message of the choreography. SNS subscription filter
 * policies read `type` (and `source`, `decision` for remediation decisions); dead-letter queues
 * carry `reasonCode`, `deadLetteredBy` and `attempt`.
 */
export const MessageAttribute = {
  Type: 'type',
  SchemaVersion: 'schemaVersion',
  CorrelationId: 'correlationId',
  /** Remediation decisions only: the service whose dead-letter queue held the message. */
  Source: 'source',
  /** Remediation decisions only: the decision taken. */
  Decision: 'decision',
  /** Dead-lettered messages: the reason code (ReasonCode), the service that dead-lettered it, and on which attempt. */
  ReasonCode: 'reasonCode',
  DeadLetteredBy: 'deadLetteredBy',
  Attempt: 'attempt',
  DeadLetteredAt: 'deadLetteredAt',
} as const;
export type MessageAttribute = (typeof MessageAttribute)[keyof typeof MessageAttribute];
