/**
 * GET /operator/orders/{orderId}/workflow: the order's latest attempt as Step Functions ran it, for
 * the console's workflow graph. The definition is the one that ran the execution
 * (DescribeStateMachineForExecution: the exact version the deployment had when it started), so the
 * graph never mixes a path with another definition's states. The path is the states the execution
 * entered, in order, each with how it ended, from its event history (names, times and errors only:
 * no state input or output, which holds order data).
 */
import type { ProcessState } from './states';

/** How one entered state ended, as its history says. */
export const WorkflowStateOutcome = {
  /** It exited normally, to `next` (or the execution ended there: a Succeed state). */
  Succeeded: 'Succeeded',
  /** Its task failed and a Catch took the error to `next`. */
  Caught: 'Caught',
  /** The execution failed, timed out or was stopped in it (a Fail state, or an uncaught error). */
  Failed: 'Failed',
  /** It has not ended: the execution is still running in it. */
  Running: 'Running',
} as const;
export type WorkflowStateOutcome = (typeof WorkflowStateOutcome)[keyof typeof WorkflowStateOutcome];

/** One state the execution entered (a state entered twice, in a loop, is listed twice). */
export interface OperatorWorkflowStateRun {
  readonly name: string;
  /** The ASL type, from the history event (Task, Choice, Pass, Wait, Succeed, Fail, Parallel, Map). */
  readonly type: string;
  readonly outcome: WorkflowStateOutcome;
  /** When it was entered (ISO-8601). */
  readonly enteredAt: string;
  /** When it exited, if it did. */
  readonly exitedAt?: string;
  /** The state entered next (after a normal exit or a Catch). */
  readonly next?: string;
  /** The error of a Caught or Failed state (the task's, or the execution's for a Fail state). */
  readonly error?: string;
  /** Its cause, cut to WORKFLOW_CAUSE_MAX_CHARS. */
  readonly cause?: string;
}

/** Longest cause kept per state (an agent's cause can be long; the graph shows a line). */
export const WORKFLOW_CAUSE_MAX_CHARS = 500;

/** The execution of the latest attempt, its definition and its path. */
export interface OperatorWorkflowExecution {
  /** `<orderId>--attempt-<n>`. */
  readonly name: string;
  /** RUNNING, SUCCEEDED, FAILED, TIMED_OUT or ABORTED. */
  readonly status: string;
  readonly startDate?: string;
  readonly stopDate?: string;
  /** The Amazon States Language definition that ran this execution, as Step Functions returns it (JSON text). */
  readonly definition: string;
  /** The states entered, in the order they were entered. */
  readonly path: readonly OperatorWorkflowStateRun[];
  /** False when the history was longer than the route reads: the path is its beginning. */
  readonly pathComplete: boolean;
}

/** Why there is no execution to draw. */
export const WorkflowUnavailable = {
  /** The order has no attempt yet (Pending, never started). */
  NotStarted: 'NotStarted',
  /** Step Functions does not know the execution (gone from its history, or the version not deployed here). */
  NotFound: 'NotFound',
} as const;
export type WorkflowUnavailable = (typeof WorkflowUnavailable)[keyof typeof WorkflowUnavailable];

export interface OperatorWorkflowBody {
  readonly orderId: string;
  readonly processState: ProcessState;
  readonly workflowVersion: number;
  /** The latest attempt's number (0: none yet). */
  readonly attempt: number;
  /** The latest attempt's execution; absent when `unavailable` says why. */
  readonly execution?: OperatorWorkflowExecution;
  readonly unavailable?: WorkflowUnavailable;
}
