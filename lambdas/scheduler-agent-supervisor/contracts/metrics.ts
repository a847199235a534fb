/** CloudWatch namespace of this wing's custom metrics (POWERTOOLS_METRICS_NAMESPACE of its functions). */
export const METRICS_NAMESPACE = 'SchedulerAgentSupervisor';

/** Custom metric names of the order handlers: the handlers emit them, alarms and the dashboard read them. */
export const OrderMetric = {
  OrdersAccepted: 'OrdersAccepted',
  OrdersResubmitted: 'OrdersResubmitted',
  SubmissionConflicts: 'SubmissionConflicts',
  SubmissionRejected: 'SubmissionRejected',
  StartMessageSendFailures: 'StartMessageSendFailures',
  ClaimsWon: 'ClaimsWon',
  ClaimsLost: 'ClaimsLost',
  StartsResumed: 'StartsResumed',
  StartsSkipped: 'StartsSkipped',
  SupervisorResets: 'SupervisorResets',
  SupervisorFailures: 'SupervisorFailures',
  SupervisorRestarts: 'SupervisorRestarts',
  SupervisorLostRaces: 'SupervisorLostRaces',
  SupervisorRecordsExamined: 'SupervisorRecordsExamined',
  SupervisorSweeps: 'SupervisorSweeps',
  SupervisorBudgetExhausted: 'SupervisorBudgetExhausted',
  SupervisorErrors: 'SupervisorErrors',
  AlertPublishFailures: 'AlertPublishFailures',
  /** Agents (dimension `step`): calls to the remote service, retries among them, and how requests ended. */
  RemoteCalls: 'RemoteCalls',
  RemoteRetries: 'RemoteRetries',
  LateReplies: 'LateReplies',
  PermanentFailures: 'PermanentFailures',
  DeadlineExceeded: 'DeadlineExceeded',
  /** Compensation: rollbacks begun, compensations resumed by the supervisor, failed for good. */
  CompensationsResumed: 'CompensationsResumed',
  CompensationsFailed: 'CompensationsFailed',
  /** Operator actions (dimension `action`), and those refused with 409. */
  OperatorActions: 'OperatorActions',
  OperatorActionsRefused: 'OperatorActionsRefused',
  /** Client status messages sent (dimension `status`) and send failures. */
  ClientStatusMessages: 'ClientStatusMessages',
  ClientStatusSendFailures: 'ClientStatusSendFailures',
  /** Status changes no client could be told: the record has no ClientId, or names no registered client. */
  ClientStatusUnroutable: 'ClientStatusUnroutable',
  /** Requests refused with 403 because their API key id belongs to no registered client. */
  UnknownClientRequests: 'UnknownClientRequests',
  /** Admission: submissions refused with 429, slots released, and releases done by the reconciler. */
  AdmissionRejected: 'AdmissionRejected',
  AdmissionReleased: 'AdmissionReleased',
  AdmissionReleasesReconciled: 'AdmissionReleasesReconciled',
  /**
   * A record refused because its WorkflowVersion is not live here (a retired or future version) or
   * its SchemaVersion is unsupported (counted by the starter, the supervisor and the operator
   * actions). The record is left untouched; any non-zero value needs an operator (alarm on it).
   */
  UnsupportedRecordVersions: 'UnsupportedRecordVersions',
} as const;
export type OrderMetric = (typeof OrderMetric)[keyof typeof OrderMetric];
