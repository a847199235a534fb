/**
 * The fault kinds of the delivery campaign, all injected at the local runtime's infrastructure
 * boundary (sandboxes, SQS event sources, the AWS API proxies of the awsApi hook, the queues
 * themselves, process restarts), never through switches in the choreography's handlers.
 */
export const DeliveryFaultKind = {
  /** A consumer's sandbox is terminated after its transaction committed, before it acks the message. */
  ConsumerKilled: 'consumer-killed-after-effect',
  /** An SQS event source delivers a message a second time, alongside the original. */
  SqsDuplicate: 'sqs-duplicate',
  /** An SQS event source delivers a late copy of a message, after later messages of its group. */
  SqsLateCopy: 'sqs-late-copy',
  /** The outbox relay's publish (SNS Publish, SQS SendMessage, EventBridge PutEvents) answers 500. */
  RelayPublishError: 'relay-publish-error',
  /** EventBridge PutEvents answers 200 with FailedEntryCount > 0 for the relay's entry. */
  RelayFailedEntry: 'relay-failed-entry',
  /** Garbage, unknown-version or schema-invalid messages sent straight to a consumer's queue. */
  PoisonMessage: 'poison-message',
  /** A service's DynamoDB commit for a message fails (500) or hangs past the function's timeout. */
  DependencyTimeout: 'dependency-timeout',
  /** The whole runtime is stopped and started again on the same data directory. */
  RuntimeRestart: 'runtime-restart',
} as const;
export type DeliveryFaultKind = (typeof DeliveryFaultKind)[keyof typeof DeliveryFaultKind];
export const DELIVERY_FAULT_KINDS: readonly DeliveryFaultKind[] = Object.values(DeliveryFaultKind);

/** One firing of a fault, as the injector (or the campaign, for poison and restarts) records it. */
export interface DeliveryFaultEvent {
  readonly kind: DeliveryFaultKind;
  /** Epoch millis (campaign process clock). */
  readonly at: number;
  /** The deliveries it hit (a restart: every delivery in flight; unattributed poison: none). */
  readonly deliveryIds: readonly string[];
}
