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
  /**
   * Deliveries entering a status of the ingestion read model (dimension `status`, STATUS_DIMENSION),
   * once per real change: Requested when ingestion accepts one, then each status the projection
   * writes (a duplicate message, an older reply or an event that leaves the status as it was counts
   * nothing). Service `ingestion` (the submission and the projection). The console's dashboard reads it.
   */
  DeliveriesEnteredStatus: 'DeliveriesEnteredStatus',
  /** Outbox relay. */
  OutboxEventsPublished: 'OutboxEventsPublished',
  OutboxPublishFailures: 'OutboxPublishFailures',
} as const;
export type DeliveryMetric = (typeof DeliveryMetric)[keyof typeof DeliveryMetric];

/** The dimension (besides `service`) of MessagesDeadLettered and RemediationGiveUps. */
export const REASON_CODE_DIMENSION = 'reasonCode';
/** The dimension (besides `service`) of DeliveriesEnteredStatus: the read model's status entered. */
export const STATUS_DIMENSION = 'status';
/** The dimension (besides `service`) of RemediationDecisions. */
export const DECISION_DIMENSION = 'decision';
