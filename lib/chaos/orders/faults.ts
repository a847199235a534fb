import { ProcessState } from '../../../lambdas/scheduler-agent-supervisor/contracts';

/**
 * The fault kinds the campaign injects, all at the infrastructure boundary of the local runtime
 * (proxies, the Lambda host, event sources, clocks, process restarts), never through switches in
 * the production handlers.
 */
export const FaultKind = {
  /** The remote service's front door answers 503 instead of calling the service (rate per call). */
  RemoteTransient: 'remote-transient',
  /** The first successful answer for a key is held until the step deadline has passed. */
  RemoteLatency: 'remote-latency',
  /** Every call for a key is held past the deadline and never reaches the service (attempts run out). */
  RemoteOutage: 'remote-outage',
  /**
   * The order carries a PERM-FAIL sku (PERM-FAIL-INVENTORY, PERM-FAIL or PERM-FAIL-SHIPPING): that
   * step's service refuses for good (422) and the completed prefix of steps is compensated.
   */
  PermanentFailure: 'permanent-failure',
  /**
   * A permanent failure past the first step whose compensations also meet UNDO-FLAKY: each
   * compensation key is answered 503 twice by the service, then undone.
   */
  CompensationTransient: 'compensation-transient',
  /**
   * PERM-FAIL-SHIPPING with UNDO-FAIL: the first compensation is refused for good (422), so the
   * order ends CompensationFailed with an operator alert.
   */
  CompensationRefused: 'compensation-refused',
  /** The agent's sandbox is killed after the service recorded the effect, before the agent replies. */
  AgentKilledAfterEffect: 'agent-killed-after-effect',
  /** An SQS message (start request or agent request) is delivered a second time. */
  SqsDuplicate: 'sqs-duplicate',
  /** The agent's SendTaskSuccess is acknowledged but never reaches Step Functions. */
  TaskSuccessDropped: 'task-success-dropped',
  /** The agent's SendTaskSuccess is held until the task has timed out (a late reply). */
  TaskSuccessLate: 'task-success-late',
  /** Two supervisor copies (each with its own reserved concurrency) sweep at the same time. */
  ConcurrentSupervisors: 'concurrent-supervisors',
  /** Two starter copies poll the start queue at the same time. */
  ConcurrentStarters: 'concurrent-starters',
  /** The whole runtime is stopped and started again on the same data directory. */
  RuntimeRestart: 'runtime-restart',
  /** The supervisor's clock runs ahead of, and the starter's behind, everyone else's. */
  ClockSkew: 'clock-skew',
  /**
   * The assembly is synthesized with an admission limit below the campaign's submissions in
   * flight, so the API answers 429 with Retry-After and the campaign resubmits later.
   */
  AdmissionPressure: 'admission-pressure',
  /**
   * The campaign acts as an operator while the other faults fire (signed operator routes): it
   * retries orders that reach Error (an OUTAGE-sku order after ending its outage), cancels planned
   * orders while Pending or Processing (a cancel while Processing is refused 409 NotAllowed, a
   * cancel while Pending races the starter) or once Processed. Fires on each action applied.
   */
  OperatorActions: 'operator-actions',
  /**
   * For planned windows, every PutEvents of an outbox alert to the alert bus fails (an HTTP 500,
   * or HTTP 200 with FailedEntryCount as EventBridge reports a dropped entry). Fires on each call
   * failed. The alert outbox must still deliver each alert: the relay leaves what it could not
   * publish, the supervisor's backstop delivers it after its grace (a long window fails the
   * backstop's first try too).
   */
  AlertBusOutage: 'alert-bus-outage',
} as const;
export type FaultKind = (typeof FaultKind)[keyof typeof FaultKind];

export const FAULT_KINDS: readonly FaultKind[] = Object.values(FaultKind);

/** Faults planned per order; at most one of these per order, since each costs the order an attempt. */
export const ATTEMPT_FAULTS = [
  FaultKind.RemoteLatency,
  FaultKind.RemoteOutage,
  FaultKind.PermanentFailure,
  FaultKind.CompensationTransient,
  FaultKind.CompensationRefused,
  FaultKind.AgentKilledAfterEffect,
  FaultKind.TaskSuccessDropped,
  FaultKind.TaskSuccessLate,
] as const satisfies readonly FaultKind[];
export type AttemptFault = (typeof ATTEMPT_FAULTS)[number];

/**
 * Attempt faults that can also hit a compensation request (`action: 'compensate'`, keyed
 * `<orderId>:<CompensationName>`) of an order that compensates: the compensation attempt is cut
 * short or abandoned, and the supervisor must hand it to a new attempt that resumes it.
 */
export const COMPENSATION_TARGETED_FAULTS = [
  FaultKind.RemoteLatency,
  FaultKind.AgentKilledAfterEffect,
  FaultKind.TaskSuccessDropped,
  FaultKind.TaskSuccessLate,
] as const satisfies readonly AttemptFault[];
export type CompensationTargetedFault = (typeof COMPENSATION_TARGETED_FAULTS)[number];

/** The order a failing fault plans, and how it must end (ProcessState). */
export const PLANNED_OUTCOMES = {
  [FaultKind.RemoteOutage]: ProcessState.Error,
  [FaultKind.PermanentFailure]: ProcessState.Compensated,
  [FaultKind.CompensationTransient]: ProcessState.Compensated,
  [FaultKind.CompensationRefused]: ProcessState.CompensationFailed,
} as const satisfies Partial<Record<AttemptFault, ProcessState>>;
export type FailingFault = keyof typeof PLANNED_OUTCOMES;

/** Faults after which the order can never be Processed (each has a planned outcome). */
export const FAILING_FAULTS: readonly FaultKind[] = Object.keys(PLANNED_OUTCOMES) as FailingFault[];

/**
 * What the campaign plans to do to an order as its operator (operator-actions), on orders with no
 * attempt fault: `cancel-early` cancels it from the first state that allows it (tried at once,
 * while Pending or Processing), `cancel-processed` once it is Processed, `outage-retry` submits
 * it with the OUTAGE sku (payment answers 503 until the outage is ended), waits for Error, ends
 * the outage through the ledger and retries it.
 */
export const OperatorPlanKind = {
  CancelEarly: 'cancel-early',
  CancelProcessed: 'cancel-processed',
  OutageRetry: 'outage-retry',
} as const;
export type OperatorPlanKind = (typeof OperatorPlanKind)[keyof typeof OperatorPlanKind];
export const OPERATOR_PLAN_KINDS: readonly OperatorPlanKind[] = Object.values(OperatorPlanKind);

/**
 * How an order with an operator plan must end: a cancelled order is rolled back whatever it had
 * done (Compensated); an outage order is Processed once the outage is ended and it is retried.
 */
export const OPERATOR_PLANNED_OUTCOMES = {
  [OperatorPlanKind.CancelEarly]: ProcessState.Compensated,
  [OperatorPlanKind.CancelProcessed]: ProcessState.Compensated,
  [OperatorPlanKind.OutageRetry]: ProcessState.Processed,
} as const satisfies Record<OperatorPlanKind, ProcessState>;

/** One firing of a fault, as recorded by the injector. */
export interface FaultEvent {
  readonly kind: FaultKind;
  /** Epoch millis (campaign process clock). */
  readonly at: number;
  /** The orders it hit (a restart hits every order in flight; a clock offset none in particular). */
  readonly orderIds: readonly string[];
}
