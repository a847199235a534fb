/**
 * Environment variable names of the choreography's functions: the only channel between its CDK
 * constructs (which set them) and its handlers (which read them with requireEnv).
 */
export const ChoreographyEnvKey = {
  /** The service's own table (state, change log, processed message ids). */
  TableName: 'TABLE_NAME',
  /** The service's own dead-letter queue, where it dead-letters messages with a reason code. */
  DeadLetterQueueUrl: 'DEAD_LETTER_QUEUE_URL',
  /** JSON of the service's settings (./settings.ts), parsed at cold start. */
  Settings: 'SERVICE_SETTINGS',
  /** submit-delivery and get-delivery: JSON of RequesterRegistry (./requesters.ts), parsed at cold start. */
  RequesterRegistry: 'REQUESTER_REGISTRY',
  /** Outbox relay destinations (./outbox.ts): set on the relays that publish to each. */
  RequestsTopicArn: 'REQUESTS_TOPIC_ARN',
  DeliveryQueueUrl: 'DELIVERY_QUEUE_URL',
  DeliveryBusName: 'DELIVERY_BUS_NAME',
  AlertBusName: 'ALERT_BUS_NAME',
  /** Remediation only: JSON {service: queueUrl} of the dead-letter queues it reads (to defer a retry). */
  DeadLetterQueueUrls: 'DEAD_LETTER_QUEUE_URLS',
  /** The operator trail route only: JSON {ingestion, package, droneScheduler, delivery, remediation} of table names. */
  DeliveryTables: 'DELIVERY_TABLES',
} as const;
export type ChoreographyEnvKey = (typeof ChoreographyEnvKey)[keyof typeof ChoreographyEnvKey];
