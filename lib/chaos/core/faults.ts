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
  /** The order carries the PERM-FAIL sku: the payment service refuses for good (422). */
  PermanentFailure: 'permanent-failure',
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
} as const;
export type FaultKind = (typeof FaultKind)[keyof typeof FaultKind];

export const FAULT_KINDS: readonly FaultKind[] = Object.values(FaultKind);

/** Faults planned per order; at most one of these per order, since each costs the order an attempt. */
export const ATTEMPT_FAULTS = [
  FaultKind.RemoteLatency,
  FaultKind.RemoteOutage,
  FaultKind.PermanentFailure,
  FaultKind.AgentKilledAfterEffect,
  FaultKind.TaskSuccessDropped,
  FaultKind.TaskSuccessLate,
] as const satisfies readonly FaultKind[];
export type AttemptFault = (typeof ATTEMPT_FAULTS)[number];

/** Faults after which the order can only end in Error: it must never be Processed. */
export const FAILING_FAULTS: readonly FaultKind[] = [FaultKind.RemoteOutage, FaultKind.PermanentFailure];

/** One firing of a fault, as recorded by the injector. */
export interface FaultEvent {
  readonly kind: FaultKind;
  /** Epoch millis (campaign process clock). */
  readonly at: number;
  /** The orders it hit (a restart hits every order in flight; a clock offset none in particular). */
  readonly orderIds: readonly string[];
}
