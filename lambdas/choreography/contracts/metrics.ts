/** Custom metric names of the choreography's handlers (namespace CHOREOGRAPHY_METRICS_NAMESPACE). */
export const DeliveryMetric = {
  DeliveriesAccepted: 'DeliveriesAccepted',
  DeliveriesResubmitted: 'DeliveriesResubmitted',
  DeliveryConflicts: 'DeliveryConflicts',
  /** Submissions refused with 400 (or 413): a field, the body or its size. */
  DeliveriesRejected: 'DeliveriesRejected',
  /** Requests (submit and read) refused with 403 because their API key id belongs to no registered requester. */
  UnknownRequesterRequests: 'UnknownRequesterRequests',
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
  /**
   * Remediation decisions that end in an operator alert (GIVE_UP and ALERT), dimension `reasonCode`:
   * the alarms per reason code read it, so the mail topic gets one alarm per reason and period.
   */
  RemediationGiveUps: 'RemediationGiveUps',
  /** Outbox relay. */
  OutboxEventsPublished: 'OutboxEventsPublished',
  OutboxPublishFailures: 'OutboxPublishFailures',
} as const;
export type DeliveryMetric = (typeof DeliveryMetric)[keyof typeof DeliveryMetric];

/** The dimension (besides `service`) of MessagesDeadLettered and RemediationGiveUps. */
export const REASON_CODE_DIMENSION = 'reasonCode';
/** The dimension (besides `service`) of RemediationDecisions. */
export const DECISION_DIMENSION = 'decision';
