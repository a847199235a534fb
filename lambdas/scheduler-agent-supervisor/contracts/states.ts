/**
 * Process and step states of the state store (seed: ProcessState, step "not started / running /
 * completed"). Compensation states are part of the schema from version 1 so that a stuck or failed
 * compensation is never folded into `Error` (MISSION item 9); the scheduler starts using them when
 * compensation lands.
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
export const SUPERVISED_STATES: readonly ProcessState[] = [ProcessState.Pending, ProcessState.Processing];

/** Terminal states: the record has left the supervisor's index for good. */
export const TERMINAL_STATES: readonly ProcessState[] = [
  ProcessState.Processed,
  ProcessState.Error,
  ProcessState.Compensated,
  ProcessState.CompensationFailed,
];

export const StepStatus = {
  NotStarted: 'NotStarted',
  Running: 'Running',
  Completed: 'Completed',
} as const;
export type StepStatus = (typeof StepStatus)[keyof typeof StepStatus];
