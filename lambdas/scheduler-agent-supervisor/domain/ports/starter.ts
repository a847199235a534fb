/**
 * What the starter needs: the claim of a record for a new attempt (and its release), and the workflow it starts.
 */
import type { OperationName } from '../../contracts';
import type { TransitionResult } from './common';

export interface ClaimRequest {
  /** Which record is claimed: a Pending one (steps), or an unlocked CompensationInProgress one. */
  readonly kind: 'steps' | 'compensation';
  readonly orderId: string;
  readonly seenAttempt: number;
  readonly attempt: number;
  readonly instanceId: string;
  /** The claim only succeeds while CompleteBy <= this (the back-off has ended) or Attempt = 0. */
  readonly claimableUntilCompleteBy: number;
  readonly plan: Readonly<Partial<Record<OperationName, number>>>;
  readonly completeBy: number;
  readonly at: number;
}

/** Undoes a claim whose execution could not be started (see planRelease in claim.ts). */
export interface ReleaseRequest {
  /** The kind of the claim being undone (see ClaimRequest.kind). */
  readonly kind: 'steps' | 'compensation';
  readonly orderId: string;
  /** The claim being undone: the release only applies while the record still holds it. */
  readonly instanceId: string;
  readonly attempt: number;
  /** When the claim was written (its UpdatedAt): any later write means someone else moved the record on. */
  readonly claimedAt: number;
  /** Attempt after the release: the one before the claim, so the next claim reuses this attempt. */
  readonly restoredAttempt: number;
  readonly completeBy: number;
  readonly at: number;
}

export interface ClaimStore {
  claim(request: ClaimRequest): Promise<TransitionResult>;
  release(request: ReleaseRequest): Promise<TransitionResult>;
}

export interface WorkflowExecution {
  /** Execution name: the attempt's instance id. */
  readonly name: string;
  readonly input: string;
  /** The record's workflow version: its state machine runs the execution. */
  readonly workflowVersion: number;
}

export interface WorkflowStarter {
  /** 'already-started' when an execution of that name exists: starting is idempotent on the name. */
  start(execution: WorkflowExecution): Promise<'started' | 'already-started'>;
}
