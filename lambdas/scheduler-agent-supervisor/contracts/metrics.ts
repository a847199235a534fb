import type { AlarmSpec } from '../../shared/alarm-spec';
import { SERVICE_DIMENSION, SqsMetric } from '../../shared/alarm-spec';
import { RoleServiceName } from './env';
import type { WorkflowTimings } from './timings';

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
  /** Outbox alerts the bus did not take: by the status notifier (the relay) and the supervisor (its backstop). */
  AlertPublishFailures: 'AlertPublishFailures',
  /** Agents (dimension `step`): calls to the remote service, retries among them, and how requests ended. */
  RemoteCalls: 'RemoteCalls',
  RemoteRetries: 'RemoteRetries',
  LateReplies: 'LateReplies',
  PermanentFailures: 'PermanentFailures',
  DeadlineExceeded: 'DeadlineExceeded',
  /** Agents (dimension `step`): a call refused because the order's retry budget for the operation was spent. */
  RetryBudgetExhausted: 'RetryBudgetExhausted',
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
   * Orders reaching a terminal state, counted once per transition by the status notifier (it sees
   * every transition on the state table's stream): Processed, Error, Compensated.
   */
  OrdersProcessed: 'OrdersProcessed',
  OrdersFailed: 'OrdersFailed',
  OrdersCompensated: 'OrdersCompensated',
  /**
   * Seconds from submission to Processed of an order that needed more than one attempt
   * (FailureCount >= 1 when it is Processed); status notifier, once per such transition.
   */
  RecoveryTimeSeconds: 'RecoveryTimeSeconds',
  /**
   * Orders entering a state (dimension `state`, STATE_DIMENSION: every ProcessState), counted once
   * per transition by the status notifier: the first state on the record's creation, then every
   * change of ProcessState; a write within a state counts nothing. The console's dashboard reads it.
   */
  OrdersEnteredState: 'OrdersEnteredState',
  /** Gauge: slots held across the admission counters (orders in flight); admission reconciler, each run. */
  OrdersInFlight: 'OrdersInFlight',
  /** Gauge: orders in Error (StateIndex COUNT, bounded); supervisor, each sweep. */
  OrdersInError: 'OrdersInError',
  /**
   * Gauge: CompensationInProgress orders without any update for longer than a healthy compensation
   * goes without one (compensationStuckAfterSeconds); supervisor, each sweep.
   */
  CompensationsStuck: 'CompensationsStuck',
  /** Gauge: seconds since the oldest non-terminal order was submitted (0 when none); supervisor, each sweep. */
  OldestInFlightAgeSeconds: 'OldestInFlightAgeSeconds',
  /**
   * A record refused because its WorkflowVersion is not live here (a retired or future version) or
   * its SchemaVersion is unsupported (counted by the starter, the supervisor and the operator
   * actions). The record is left untouched; any non-zero value needs an operator (alarm on it).
   */
  UnsupportedRecordVersions: 'UnsupportedRecordVersions',
} as const;
export type OrderMetric = (typeof OrderMetric)[keyof typeof OrderMetric];

/** The dimension (besides `service`) of OrdersEnteredState: the ProcessState entered. */
export const STATE_DIMENSION = 'state';

/**
 * The longest a healthy compensation goes without an update of its record: the longest back-off,
 * then the claim grace, then one compensating step with its deadline slack, twice over for margin.
 * A CompensationInProgress record idle for longer is stuck (CompensationsStuck).
 */
export function compensationStuckAfterSeconds(
  timings: Pick<
    WorkflowTimings,
    | 'retryBackoffSeconds'
    | 'extendedBackoffSeconds'
    | 'startGraceSeconds'
    | 'stepTimeoutSeconds'
    | 'stepDeadlineSlackSeconds'
  >,
): number {
  const longestBackoff = Math.max(timings.retryBackoffSeconds, timings.extendedBackoffSeconds);
  return (
    2 *
    (longestBackoff +
      timings.startGraceSeconds +
      timings.stepTimeoutSeconds +
      timings.stepDeadlineSlackSeconds)
  );
}

/**
 * The longest an order can legitimately stay in flight: every attempt maxFailures allows (each
 * one claim grace plus every step to its deadline) and the back-offs between them, then a whole
 * compensation the same way. An order in flight for longer is lost to the pattern's recovery.
 */
export function inFlightAgeLimitSeconds(timings: WorkflowTimings, stepCount: number): number {
  const attemptSeconds =
    timings.startGraceSeconds + stepCount * (timings.stepTimeoutSeconds + timings.stepDeadlineSlackSeconds);
  const backoffs = (failures: number) =>
    Array.from({ length: Math.max(0, failures - 1) }, (_, index) =>
      index + 1 >= timings.extendedBackoffAfter
        ? timings.extendedBackoffSeconds
        : timings.retryBackoffSeconds,
    ).reduce((sum, seconds) => sum + seconds, 0);
  return (
    timings.maxFailures * attemptSeconds +
    backoffs(timings.maxFailures) +
    timings.maxCompensationFailures * attemptSeconds +
    backoffs(timings.maxCompensationFailures)
  );
}

/**
 * How many periods without a sweep make SupervisorNotRunning fire: two schedule intervals (each run
 * sweeps at its start, so a healthy gap is at most one interval and a late run; a period shorter
 * than the gap is empty in health), one period more for their alignment, never under 3. A fixed 3
 * periods flapped wherever 3 periods were shorter than an interval: the deployed timings (a sweep a
 * minute) on the local 10 s periods alarmed and cleared every minute, 790 notifications in one
 * acceptance run, which buried the other alerts of the inbox.
 */
export function supervisorSilencePeriods(
  timings: Pick<WorkflowTimings, 'supervisorRateSeconds'>,
  periodSeconds: number,
): number {
  return Math.max(3, Math.ceil((2 * timings.supervisorRateSeconds) / periodSeconds) + 1);
}

/**
 * What an alarm's threshold and evaluation periods may depend on: the deployment's timings, its
 * number of steps, and the alarm period (PlatformSettings.alarmPeriodSeconds).
 */
export interface AlarmThresholdInputs {
  readonly timings: WorkflowTimings;
  readonly stepCount: number;
  readonly periodSeconds: number;
}

/**
 * An alarm of this wing on one of its custom metrics; its threshold, and how many periods it
 * evaluates (all of which must breach when given as a function), may follow the timings.
 */
export interface OrderAlarmSpec
  extends Omit<AlarmSpec<OrderMetric>, 'threshold' | 'dimensions' | 'evaluationPeriods'> {
  readonly threshold: number | ((inputs: AlarmThresholdInputs) => number);
  /** @default 1 */
  readonly evaluationPeriods?: number | ((inputs: AlarmThresholdInputs) => number);
  /** The function that emits the metric: its service name is the metric's `service` dimension. */
  readonly emittedBy: (typeof RoleServiceName)[keyof typeof RoleServiceName];
}

/**
 * Every alarm of the wing on its own metrics (the dead-letter queue alarms are generated per
 * queue from DEAD_LETTER_QUEUE_ALARM). Each notifies the operator topic when it fires and when it
 * clears. Counters are written only when non-zero, so their missing data means "nothing
 * happened"; gauges are written every run, so theirs means "not measured" and keeps the state.
 */
export const ORDER_ALARMS = [
  {
    name: 'OrdersInError',
    emittedBy: RoleServiceName.Supervisor,
    metric: OrderMetric.OrdersInError,
    statistic: 'Maximum',
    comparison: 'GreaterThanThreshold',
    threshold: 0,
    treatMissingData: 'ignore',
    description: 'Orders are in Error: their attempts are exhausted and nothing retries them.',
    action:
      "List them (npm run orders -- list --state Error), read each one's LastError and alerts (ops show), fix the cause, then retry or cancel each (ops retry / ops cancel).",
  },
  {
    name: 'CompensationsFailed',
    emittedBy: RoleServiceName.StatusNotifier,
    metric: OrderMetric.CompensationsFailed,
    statistic: 'Sum',
    comparison: 'GreaterThanOrEqualToThreshold',
    threshold: 1,
    treatMissingData: 'notBreaching',
    description:
      'A compensation failed for good: the order is CompensationFailed and some effects may still stand.',
    action:
      'ops show the order: its compensation log names the step whose effect stands; undo it by hand or fix the service and ops retry.',
  },
  {
    name: 'CompensationsStuck',
    emittedBy: RoleServiceName.Supervisor,
    metric: OrderMetric.CompensationsStuck,
    statistic: 'Maximum',
    comparison: 'GreaterThanOrEqualToThreshold',
    threshold: 1,
    treatMissingData: 'ignore',
    description: 'A compensation has made no progress for longer than a healthy one ever waits.',
    action:
      'list --state CompensationInProgress, ops show the oldest: check the compensating service and the supervisor; the supervisor retries or fails it.',
  },
  {
    name: 'SupervisorNotRunning',
    emittedBy: RoleServiceName.Supervisor,
    metric: OrderMetric.SupervisorSweeps,
    statistic: 'Sum',
    comparison: 'LessThanThreshold',
    threshold: 1,
    evaluationPeriods: ({ timings, periodSeconds }) => supervisorSilencePeriods(timings, periodSeconds),
    treatMissingData: 'breaching',
    description:
      'The supervisor has not swept the due index: expired attempts are neither retried nor failed.',
    action:
      "Check the supervisor's schedule rule (enabled?), its function's errors and throttles, and its logs.",
  },
  {
    name: 'OldestInFlightOrderTooOld',
    emittedBy: RoleServiceName.Supervisor,
    metric: OrderMetric.OldestInFlightAgeSeconds,
    statistic: 'Maximum',
    comparison: 'GreaterThanThreshold',
    threshold: ({ timings, stepCount }) => inFlightAgeLimitSeconds(timings, stepCount),
    treatMissingData: 'ignore',
    description:
      'An order has been in flight longer than every attempt, back-off and compensation the settings allow.',
    action:
      'list --state Pending/Processing/CompensationInProgress, ops show the oldest: find why the supervisor does not move it (logs by orderId).',
  },
  {
    name: 'AdmissionRejections',
    emittedBy: RoleServiceName.Submission,
    metric: OrderMetric.AdmissionRejected,
    statistic: 'Sum',
    comparison: 'GreaterThanOrEqualToThreshold',
    threshold: 10,
    evaluationPeriods: 3,
    datapointsToAlarm: 2,
    treatMissingData: 'notBreaching',
    description: 'Submissions are being refused with 429: the in-flight limit is reached.',
    action:
      'Check the dashboard: orders in flight at the limit with a slow drain means a slow downstream; a burst means raise the admission limit.',
  },
  // AlertPublishFailures has two emitters (DESIGN.md, Alert outbox), so two alarms: an alarm sees
  // only the `service` it names. Their words differ: the relay's failure is retried by the stream,
  // the backstop's means the bus has been down past all of the stream's retries.
  {
    name: 'AlertRelayPublishFailures',
    emittedBy: RoleServiceName.StatusNotifier,
    metric: OrderMetric.AlertPublishFailures,
    statistic: 'Sum',
    comparison: 'GreaterThanOrEqualToThreshold',
    threshold: 1,
    treatMissingData: 'notBreaching',
    description:
      "The status notifier could not put an operator alert on the alert bus: the alert waits in its order's outbox and the stream retries it.",
    action:
      "Check the alert bus and its rule (the status notifier's logs name each order); nothing is lost: the supervisor re-delivers what the stream gives up on.",
  },
  {
    name: 'AlertBackstopPublishFailures',
    emittedBy: RoleServiceName.Supervisor,
    metric: OrderMetric.AlertPublishFailures,
    statistic: 'Sum',
    comparison: 'GreaterThanOrEqualToThreshold',
    threshold: 1,
    treatMissingData: 'notBreaching',
    description:
      'The supervisor could not re-deliver operator alerts the stream gave up on: the alert bus has been failing for longer than all of its retries.',
    action:
      'Fix the alert bus or its rule (the supervisor retries every run); meanwhile list --state Error and --state CompensationFailed show the orders whose alerts wait.',
  },
  {
    name: 'SubmissionConflicts',
    emittedBy: RoleServiceName.Submission,
    metric: OrderMetric.SubmissionConflicts,
    statistic: 'Sum',
    comparison: 'GreaterThanOrEqualToThreshold',
    threshold: 5,
    evaluationPeriods: 3,
    datapointsToAlarm: 2,
    treatMissingData: 'notBreaching',
    description:
      'Conflicting resubmissions (409) at a sustained rate: a client reuses orderIds with different data.',
    action:
      'Read the conflict dead-letter queue (orderId, both fingerprints, raw body, correlation id) and tell the client.',
  },
  // Three functions count UnsupportedRecordVersions; the supervisor's count is the one to alarm
  // on: a refused record is left untouched, so it stays due and every sweep counts it again until
  // an operator acts (the starter's refusal leaves it to those sweeps; an operator's refused action
  // is answered to the operator directly).
  {
    name: 'UnsupportedRecordVersions',
    emittedBy: RoleServiceName.Supervisor,
    metric: OrderMetric.UnsupportedRecordVersions,
    statistic: 'Sum',
    comparison: 'GreaterThanOrEqualToThreshold',
    threshold: 1,
    treatMissingData: 'notBreaching',
    description:
      'Orders are stranded on a workflow version this deployment does not run (retired too early, or written by a newer deployment) or on an unsupported record schema: nothing moves them.',
    action:
      "Find them in the supervisor's logs (orderId, WorkflowVersion, SchemaVersion); redeploy with their version live again (-c workflowVersion / retireWorkflowVersionsBefore) so they finish, or cancel them by hand.",
  },
] as const satisfies readonly OrderAlarmSpec[];

/**
 * The alarm every dead-letter queue gets (one per queue, named `DeadLetters<queue id>`): a message
 * there is work that failed for good. Missing data keeps the state: SQS stops publishing the
 * metrics of a queue with no API activity for six hours, which a forgotten dead letter is.
 */
export const DEAD_LETTER_QUEUE_ALARM = {
  name: 'DeadLetters',
  metric: SqsMetric.ApproximateNumberOfMessagesVisible,
  statistic: 'Maximum',
  comparison: 'GreaterThanOrEqualToThreshold',
  threshold: 1,
  treatMissingData: 'ignore',
  description: 'Messages are waiting in a dead-letter queue: work that failed for good.',
  action:
    'Read the messages (orderId, correlation id), find the cause in the logs, fix it, then redrive the queue or act per order.',
} as const satisfies AlarmSpec<SqsMetric>;

/** Every alarm of ORDER_ALARMS with its threshold and evaluation periods worked out for a deployment. */
export function resolveOrderAlarms(inputs: AlarmThresholdInputs): AlarmSpec<OrderMetric>[] {
  return ORDER_ALARMS.map(({ emittedBy, threshold, evaluationPeriods, ...alarm }: OrderAlarmSpec) => ({
    ...alarm,
    threshold: typeof threshold === 'function' ? threshold(inputs) : threshold,
    ...(typeof evaluationPeriods === 'function'
      ? { evaluationPeriods: evaluationPeriods(inputs), datapointsToAlarm: evaluationPeriods(inputs) }
      : evaluationPeriods !== undefined && { evaluationPeriods }),
    dimensions: { [SERVICE_DIMENSION]: emittedBy },
  }));
}
