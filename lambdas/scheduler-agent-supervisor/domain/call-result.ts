/**
 * What one remote call (with its retries) came to, as the agent reports it: success, a permanent
 * refusal, transient failures until it gave up, a spent budget, or a fence. Its own module because
 * the agent (agent.ts) returns it and its error (errors.ts) carries it.
 */
import type { GiveUpReason } from '../../shared/backoff';

/** Result of calling the remote service for one request, retries included. */
export type CallResult =
  | {
      readonly kind: 'success';
      readonly confirmationId: string;
      /** Compensations only: whether the service had an effect to undo. */
      readonly undone?: boolean;
      readonly calls: number;
    }
  | { readonly kind: 'permanent'; readonly detail: string; readonly calls: number }
  | {
      readonly kind: 'transient';
      readonly reason: GiveUpReason;
      readonly detail: string;
      readonly calls: number;
    }
  /** The record refused to reserve another call: the order's budget for the operation is spent. */
  | { readonly kind: 'budget-exhausted'; readonly detail: string; readonly calls: number }
  /** A `markRunning` reservation found the lock gone (another attempt, a finished order): no call made. */
  | { readonly kind: 'fenced'; readonly detail: string; readonly calls: number };
