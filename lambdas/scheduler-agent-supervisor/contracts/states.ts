/**
 * Process and step states of the state store (seed: ProcessState, step "not started / running /
 * completed"), with the compensation states of MISSION item 9 so that a stuck or failed
 * compensation is never folded into `Error`:
 *
 *   Pending -> Processing -> Processed
 *   Processing -> Pending (supervisor: attempt expired, below maxFailures)
 *   Processing -> Error (supervisor: maxFailures reached; an operator retries or cancels)
 *   Processing -> CompensationInProgress (scheduler: a step failed for good; rolls back at once)
 *   Error | Processed | Pending -> CompensationInProgress (operator cancel)
 *   Error -> Pending (operator retry)
 *   CompensationInProgress -> Compensated | CompensationFailed (after maxCompensationFailures)
 *   CompensationFailed -> CompensationInProgress (operator retry)
 *
 * CompensationInProgress is supervised like Processing: locked by the attempt that compensates,
 * with a CompleteBy; unlocked when waiting for the starter to claim it.
 */
export const ProcessState = {
  Pending: 'Pending',
  Processing: 'Processing',
  Processed: 'Processed',
  Error: 'Error',
  CompensationInProgress: 'CompensationInProgress',
  Compensated: 'Compensated',
  CompensationFailed: 'CompensationFailed',
} as const;
export type ProcessState = (typeof ProcessState)[keyof typeof ProcessState];

/** States the supervisor's index holds: records that can expire or wait to be (re)started. */
export const SUPERVISED_STATES: readonly ProcessState[] = [
  ProcessState.Pending,
  ProcessState.Processing,
  ProcessState.CompensationInProgress,
];

/** Terminal states: the record has left the supervisor's index for good. */
export const TERMINAL_STATES: readonly ProcessState[] = [
  ProcessState.Processed,
  ProcessState.Error,
  ProcessState.Compensated,
  ProcessState.CompensationFailed,
];

/**
 * What is known of one step. `TimedOut`: the attempt running it expired without an answer, so its
 * effect is uncertain (the supervisor writes it; the next attempt runs the step again under the
 * same idempotency key). `Failed`: the service refused for good, nothing was done.
 * `Compensating`: the intent to undo is recorded and the compensation may be in flight.
 * `CompensationFailed`: the service refused to undo it, so its effect stands.
 */
export const StepStatus = {
  NotStarted: 'NotStarted',
  Running: 'Running',
  Completed: 'Completed',
  TimedOut: 'TimedOut',
  Failed: 'Failed',
  Compensating: 'Compensating',
  Compensated: 'Compensated',
  /** The service refused to undo it: its effect stands (the order is CompensationFailed). */
  CompensationFailed: 'CompensationFailed',
} as const;
export type StepStatus = (typeof StepStatus)[keyof typeof StepStatus];
