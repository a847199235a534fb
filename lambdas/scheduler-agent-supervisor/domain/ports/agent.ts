/**
 * What an agent needs: the call budget it reserves each remote call in (marking its step Running on
 * lean versions), the remote service, and the task token's callbacks and heartbeats.
 */
import type { AgentResult, RemoteCompensationRequest, RemoteOperationRequest } from '../../contracts';

/** What one remote call produced, as seen on the wire. */
export type RemoteOutcome =
  | { readonly kind: 'response'; readonly status: number; readonly body: unknown }
  | { readonly kind: 'network-error'; readonly message: string }
  | { readonly kind: 'timeout'; readonly afterMillis: number };

/** What the state record answered when asked to reserve one call (see CallBudget). */
export type CallReservation =
  | { readonly kind: 'reserved' }
  | {
      readonly kind: 'exhausted';
      /** The order's RetryBudget (the deployment's for a schema-2 record). */
      readonly budget: number;
      /** Calls reserved for the operation so far (CallsMade.<operation>). */
      readonly callsMade: number;
    }
  /**
   * A reservation that was to mark the step Running (MarkStepRunning) found the record no longer
   * held by the request's execution, or not Processing: nothing was written, nothing is called.
   */
  | { readonly kind: 'fenced'; readonly detail: string };

/**
 * Lean workflow versions (AgentRequest.markRunning): the step is marked Running, as transition
 * progressStepRunning says, in the conditional write that reserves the call, fenced on the lock of the
 * request's execution. The values are what a classic `<Step>.MarkRunning` state binds.
 */
export interface MarkStepRunning {
  /** The execution's lock (its instance id, which names its attempt). */
  readonly instanceId: string;
  /** The step, which becomes RunningStep. */
  readonly step: string;
  /** The step's planned deadline (the request's deadlineEpochMillis): CompleteBy. */
  readonly completeBy: number;
}

/**
 * The order's end-to-end retry budget (MISSION item 10), kept in its state record: every remote
 * call is reserved there (a conditional counter, one per operation) BEFORE it is made, so calls by
 * duplicate deliveries, redeliveries, stale attempts and operator retries all count. A reservation
 * is never fenced on the lock: it counts calls, it does not decide who may run.
 */
export interface CallBudget {
  reserve(call: {
    readonly orderId: string;
    readonly operation: string;
    /** Also mark the step Running, fenced, in the same write (lean versions). @default - count only */
    readonly markRunning?: MarkStepRunning;
  }): Promise<CallReservation>;
}

/**
 * Compact workflow versions (AgentRequest.recordCompletion): once the call succeeded, the agent
 * records the step Completed for its execution (transition completeStep, or completeOrder for the
 * last step), fenced on the execution's lock and conditional on the step not being Completed yet.
 */
export interface StepCompletion {
  readonly orderId: string;
  /** The execution's lock. */
  readonly instanceId: string;
  readonly step: string;
  /** The step's 1-based position: its compensation log entry's Seq. */
  readonly seq: number;
  /** The step's compensation (its log entry names it). */
  readonly compensation: string;
  /** The key of the step's effect (`<orderId>:<step>`): what its compensation undoes. */
  readonly undoes: string;
  readonly confirmationId: string;
  /** The next step's planned deadline (CompleteBy), or the order finished (the last step). */
  readonly after:
    | { readonly kind: 'hand-over'; readonly completeBy: number }
    | { readonly kind: 'finish-order' };
}

/**
 * What a completion write came to: `recorded` (this write), `already-recorded` (the step was
 * Completed before: a duplicate delivery's or a redelivered message's second write), or `fenced`
 * (the execution no longer holds the lock and the step is not Completed: nothing written).
 */
export type CompletionRecord =
  | { readonly kind: 'recorded' }
  | { readonly kind: 'already-recorded' }
  | { readonly kind: 'fenced'; readonly detail: string };

export interface StepCompletions {
  record(completion: StepCompletion): Promise<CompletionRecord>;
}

/** 'late' = the task is gone (TaskTimedOut, InvalidToken, TaskDoesNotExist): nobody is waiting. */
export type CallbackDelivery = 'delivered' | 'late';

export interface TaskCallbacks {
  succeed(taskToken: string, result: AgentResult): Promise<CallbackDelivery>;
  fail(taskToken: string, error: string, cause: string): Promise<CallbackDelivery>;
}

export interface Heartbeats {
  /** Starts heartbeating this token; the returned function stops it. */
  start(taskToken: string, intervalMillis: number): () => void;
}

/** The remote service as the agent sees it: one POST, one outcome (never throws for HTTP errors). */
export interface RemoteService {
  post(request: {
    readonly path: string;
    readonly idempotencyKey: string;
    readonly correlationId: string;
    readonly body: RemoteOperationRequest | RemoteCompensationRequest;
    readonly timeoutMillis: number;
  }): Promise<RemoteOutcome>;
}
