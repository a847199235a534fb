import * as z from 'zod';
import { printableText } from '../../shared/validation';
import type { ProcessState, StepStatus } from './states';
import type { AgentCallAction, StepName } from './steps';

/** Largest accepted POST /orders body, in bytes (checked before parsing). */
export const MAX_ORDER_BODY_BYTES = 16 * 1024;

export const ORDER_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * POST /orders body. Strict: unknown fields are rejected, not ignored. Every free-text string is
 * printable text in NFC (printableText: no control, bidi or zero-width character); the ids and the
 * currency are already limited to ASCII letters and digits by their patterns.
 */
export const SubmitOrderRequestSchema = z
  .object({
    orderId: z.string().regex(ORDER_ID_PATTERN, 'must be 1-64 characters of A-Z a-z 0-9 _ -'),
    customerId: z.string().min(1).max(128).check(printableText()),
    items: z
      .array(
        z
          .object({
            sku: z.string().min(1).max(64).check(printableText()),
            quantity: z.number().int().min(1).max(10_000),
          })
          .strict(),
      )
      .min(1)
      .max(50),
    totalCents: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    currency: z.string().regex(/^[A-Z]{3}$/, 'must be a 3-letter ISO 4217 code in capitals'),
  })
  .strict();
export type SubmitOrderRequest = z.infer<typeof SubmitOrderRequestSchema>;
export type OrderItem = SubmitOrderRequest['items'][number];

/** 202 body of a newly accepted order. */
export interface AcceptedOrderBody {
  readonly orderId: string;
  readonly processState: ProcessState;
}

/** GET /orders/{orderId} (and 200 on identical resubmission). */
export interface OrderStatusBody {
  readonly orderId: string;
  readonly processState: ProcessState;
  readonly failureCount: number;
  readonly attempt: number;
  readonly steps: readonly { readonly name: StepName; readonly status: StepStatus }[];
  readonly updatedAt: string;
}

/** API routes, shared by the API construct and the black-box tests. */
export const ApiRoute = {
  orders: '/orders',
  order: (orderId: string) => `/orders/${encodeURIComponent(orderId)}`,
  orderPathParameter: 'orderId',
} as const;

// ---------------------------------------------------------------------------------------------
// Operator API (MISSION item 8): separate routes, separately authorised (IAM on AWS; the local
// runtime checks the SigV4 signature against its local identities). Every action is conditional
// on the state the operator saw and is recorded with who and why (StateAttr.OperatorLog).
// ---------------------------------------------------------------------------------------------

/** Operator routes. */
export const OperatorRoute = {
  /** GET ?state=<ProcessState>&limit=<1..100>&cursor=<opaque>: orders in one state, newest first. */
  orders: '/operator/orders',
  order: (orderId: string) => `/operator/orders/${encodeURIComponent(orderId)}`,
  retry: (orderId: string) => `/operator/orders/${encodeURIComponent(orderId)}/retry`,
  cancel: (orderId: string) => `/operator/orders/${encodeURIComponent(orderId)}/cancel`,
  /** GET: the latest attempt's execution, its definition and the states it entered (OperatorWorkflowBody). */
  workflow: (orderId: string) => `/operator/orders/${encodeURIComponent(orderId)}/workflow`,
  orderPathParameter: 'orderId',
} as const;

export const OPERATOR_LIST_MAX_LIMIT = 100;
export const OPERATOR_LIST_DEFAULT_LIMIT = 25;

export const OperatorAction = {
  Retry: 'retry',
  Cancel: 'cancel',
} as const;
export type OperatorAction = (typeof OperatorAction)[keyof typeof OperatorAction];

/**
 * Body of POST retry and cancel: what the operator saw (the action is conditional on it), and why.
 * The reason is recorded in the operator log and shown to other operators: printable text only.
 */
export const OperatorActionRequestSchema = z
  .object({
    reason: z.string().trim().min(3).max(500).check(printableText()),
    expectedState: z.enum([
      'Pending',
      'Processing',
      'Processed',
      'Error',
      'CompensationInProgress',
      'Compensated',
      'CompensationFailed',
    ]),
    expectedUpdatedAt: z.string().min(1).max(64).check(printableText()),
  })
  .strict();
export type OperatorActionRequest = z.infer<typeof OperatorActionRequestSchema>;

/**
 * Why an action was refused (409): the record moved on since the operator looked (`StateChanged`),
 * or its state does not allow the action (`NotAllowed`, the message says which states do).
 */
export const OperatorRefusal = {
  StateChanged: 'StateChanged',
  NotAllowed: 'NotAllowed',
} as const;
export type OperatorRefusal = (typeof OperatorRefusal)[keyof typeof OperatorRefusal];

export interface OperatorRefusalBody {
  readonly message: string;
  readonly refusal: OperatorRefusal;
  readonly currentState: ProcessState;
  readonly currentUpdatedAt: string;
}

export interface OperatorActionResultBody {
  readonly orderId: string;
  readonly action: OperatorAction;
  readonly processState: ProcessState;
  readonly updatedAt: string;
}

/** One row of GET /operator/orders. */
export interface OperatorOrderRow {
  readonly orderId: string;
  readonly processState: ProcessState;
  readonly updatedAt: string;
  readonly createdAt?: string;
  readonly failureCount: number;
  readonly attempt: number;
  readonly clientId?: string;
}

export interface OperatorOrderListBody {
  readonly items: readonly OperatorOrderRow[];
  /** Opaque; pass it back as `cursor` for the next page. Absent on the last page. */
  readonly nextCursor?: string;
}

/** Largest accepted POST retry/cancel body, in bytes (checked before parsing). */
export const MAX_OPERATOR_BODY_BYTES = 4 * 1024;

/** One step of GET /operator/orders/{orderId}. */
export interface OperatorStepView {
  readonly name: StepName;
  readonly status: StepStatus;
  readonly startedAt?: string;
  readonly completedAt?: string;
  readonly endedAt?: string;
  /** What the step's service confirmed (Steps.<step>.Result.ConfirmationId). */
  readonly confirmationId?: string;
}

/** One CompensationLog entry, as an operator sees it. */
export interface OperatorCompensationView {
  readonly step: string;
  readonly seq: number;
  readonly compensation?: string;
  readonly undoes?: string;
  readonly status?: string;
  readonly uncertain?: boolean;
  readonly confirmationId?: string;
  readonly recordedAt?: string;
  readonly compensatingAt?: string;
  readonly compensatedAt?: string;
  readonly result?: Readonly<Record<string, unknown>>;
}

/** One attempt: the execution `<orderId>--attempt-<n>` as Step Functions describes it. */
export interface OperatorAttemptView {
  readonly attempt: number;
  readonly executionName: string;
  /** RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED..., or NotFound (never started, or expired from history). */
  readonly status: string;
  readonly startDate?: string;
  readonly stopDate?: string;
  /**
   * Every agent call of the attempt, in the order it ran (from the execution's event history): the
   * state record keeps only each step's latest run, this keeps every attempt's.
   */
  readonly stepRuns: readonly OperatorStepRunView[];
  /** How much of the history stepRuns covers (see StepRunsRead). */
  readonly stepRunsRead: StepRunsRead;
}

/**
 * How much of an attempt's history its stepRuns cover. Inspect reads at most
 * OPERATOR_MAX_ATTEMPTS_WITH_RUNS attempts (the most recent), each up to
 * OPERATOR_HISTORY_MAX_PAGES pages of OPERATOR_HISTORY_PAGE_SIZE events.
 */
export const StepRunsRead = {
  /** The whole history was read. */
  All: 'All',
  /** The history has more events than inspect reads: the runs shown are its first ones. */
  Truncated: 'Truncated',
  /** Not read: an older attempt than inspect reads, or no execution to read. */
  NotRead: 'NotRead',
} as const;
export type StepRunsRead = (typeof StepRunsRead)[keyof typeof StepRunsRead];

/** How one agent call ended (Started: it had not when the history was read, or the execution stopped first). */
export const StepRunOutcome = {
  Started: 'Started',
  Completed: 'Completed',
  TimedOut: 'TimedOut',
  Failed: 'Failed',
} as const;
export type StepRunOutcome = (typeof StepRunOutcome)[keyof typeof StepRunOutcome];

/**
 * One agent call of one attempt: `<Step>.CallAgent` (perform) or `<Step>.Undo.CallAgent`
 * (compensate; Completed means the step was compensated).
 */
export interface OperatorStepRunView {
  readonly step: StepName;
  readonly action: AgentCallAction;
  readonly outcome: StepRunOutcome;
  /** When the state was entered (ISO-8601). */
  readonly startedAt: string;
  /** When the call ended (the task's succeeded, failed or timed-out event), if it did. */
  readonly endedAt?: string;
  /** The error name of a Failed or TimedOut call (e.g. States.Timeout, Agent.TransientFailure). */
  readonly error?: string;
}

/** One archived operator alert of the order. */
export interface OperatorAlertView {
  readonly at: string;
  readonly type: string;
  readonly eventId: string;
  readonly detail: Readonly<Record<string, unknown>>;
}

/** One OperatorLog entry. */
export interface OperatorLogView {
  readonly action: string;
  readonly by: string;
  readonly reason: string;
  readonly at: string;
  readonly seenState: string;
  readonly seenUpdatedAt: string;
  readonly newState: string;
  readonly resetFailureCount?: number;
}

/**
 * GET /operator/orders/{orderId}: what an operator needs to decide. Locks show only who holds
 * them (lockedBy); plans and fingerprints are never shown.
 */
export interface OperatorOrderDetailBody {
  readonly orderId: string;
  readonly processState: ProcessState;
  readonly attempt: number;
  readonly failureCount: number;
  readonly compensationFailureCount: number;
  readonly workflowVersion: number;
  readonly clientId?: string;
  readonly lockedBy?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly lastError?: {
    readonly source: string;
    readonly error: string;
    readonly cause: string;
    readonly at: string;
  };
  readonly steps: readonly OperatorStepView[];
  /** Sorted by Seq descending: the order compensation runs in. */
  readonly compensationLog: readonly OperatorCompensationView[];
  /** Attempts 1..Attempt (the most recent OPERATOR_MAX_ATTEMPTS_SHOWN), oldest first. */
  readonly attempts: readonly OperatorAttemptView[];
  /** Oldest first. */
  readonly alerts: readonly OperatorAlertView[];
  /** Oldest first. */
  readonly operatorLog: readonly OperatorLogView[];
}

/** Inspect describes at most this many attempts (the most recent): one DescribeExecution each. */
export const OPERATOR_MAX_ATTEMPTS_SHOWN = 20;
/** Inspect reads the step runs of at most this many attempts (the most recent), from their histories. */
export const OPERATOR_MAX_ATTEMPTS_WITH_RUNS = 5;
/**
 * GetExecutionHistory page size and pages per attempt: an attempt of four steps and their
 * compensations is about 150 events, so one page is the rule and the bound only stops a runaway.
 */
export const OPERATOR_HISTORY_PAGE_SIZE = 500;
export const OPERATOR_HISTORY_MAX_PAGES = 2;
