/** Custom metric names of the choreography's handlers (namespace CHOREOGRAPHY_METRICS_NAMESPACE). */
export const DeliveryMetric = {
  DeliveriesAccepted: 'DeliveriesAccepted',
  DeliveriesResubmitted: 'DeliveriesResubmitted',
  DeliveryConflicts: 'DeliveryConflicts',
  DeliveriesRejected: 'DeliveriesRejected',
  /** Queue consumers (dimension `service`). */
  MessagesProcessed: 'MessagesProcessed',
  DuplicatesSkipped: 'DuplicatesSkipped',
  StaleEventsIgnored: 'StaleEventsIgnored',
  /** Dimension `reasonCode`. */
  MessagesDeadLettered: 'MessagesDeadLettered',
  /** Drone Scheduler: a conditional write lost to a concurrent assignment of the same drone. */
  DroneAssignmentConflicts: 'DroneAssignmentConflicts',
  /** Remediation (dimension `decision`). */
  RemediationDecisions: 'RemediationDecisions',
  RemediationDeferred: 'RemediationDeferred',
  /** Outbox relay. */
  OutboxEventsPublished: 'OutboxEventsPublished',
  OutboxPublishFailures: 'OutboxPublishFailures',
} as const;
export type DeliveryMetric = (typeof DeliveryMetric)[keyof typeof DeliveryMetric];
