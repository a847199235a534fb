/**
 * What the local Step Functions runtime (runtime.ts) takes and gives: its options, the descriptions
 * of state machines and executions its API answers with, and the events it tells its observers.
 */
import type { RuntimeClock } from '../clock';
import type { ServiceIntegrations } from './integrations';

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

export interface ExecutionDescription {
  readonly executionArn: string;
  readonly stateMachineArn: string;
  readonly name: string;
  readonly status: ExecutionStatus;
  readonly startDate: Date;
  readonly stopDate?: Date;
  readonly input: string;
  readonly output?: string;
  readonly error?: string;
  readonly cause?: string;
}

export interface StateMachineDescription {
  readonly stateMachineArn: string;
  readonly name: string;
  readonly definition: string;
  readonly roleArn: string;
  readonly type: 'STANDARD' | 'EXPRESS';
  readonly creationDate: Date;
}

export interface RegisterStateMachineOptions {
  /** @default 'arn:aws:iam::<account>:role/local-step-functions' */
  readonly roleArn?: string;
  /** Recorded only; every execution runs with Standard semantics. @default 'STANDARD' */
  readonly type?: 'STANDARD' | 'EXPRESS';
}

export interface RegisteredStateMachine {
  readonly stateMachineArn: string;
  /** Non-fatal findings, e.g. Tasks whose Resource the local runtime does not support. */
  readonly warnings: readonly string[];
}

/** Events for the runtime's live log (emitted on `events` as 'event' and under their own type). */
export type LocalSfnEvent =
  | ExecutionEvent<'ExecutionStarted'>
  | ExecutionEvent<'ExecutionSucceeded'>
  | (ExecutionEvent<'ExecutionFailed'> & { readonly error: string; readonly cause: string })
  | (ExecutionEvent<'ExecutionTimedOut'> & { readonly error: string; readonly cause: string })
  | (ExecutionEvent<'ExecutionAborted'> & { readonly error?: string; readonly cause?: string })
  | (ExecutionEvent<'StateEntered' | 'StateRetried' | 'StateCaught'> & { readonly stateName: string })
  | (ExecutionEvent<'TaskScheduled' | 'TaskSucceeded'> & {
      readonly stateName: string;
      readonly resource: string;
    })
  | (ExecutionEvent<'TaskFailed' | 'TaskTimedOut'> & {
      readonly stateName: string;
      readonly resource: string;
      readonly error: string;
      readonly cause: string;
    });

interface ExecutionEvent<T extends string> {
  readonly type: T;
  readonly timestamp: Date;
  readonly executionArn: string;
  readonly stateMachineArn: string;
}

export interface RuntimeOptions {
  readonly region: string;
  readonly accountId: string;
  readonly integrations: ServiceIntegrations;
  /** Executions remembered (for Describe/List and name uniqueness) before the oldest finished ones are dropped. */
  readonly maxRememberedExecutions: number;
  /** Closed task tokens remembered so late replies get TaskTimedOut rather than InvalidToken. */
  readonly maxRememberedTokens: number;
  /** Approximate bytes of execution histories kept before the oldest finished executions are dropped. */
  readonly maxHistoryBytes: number;
  /** Task token timeouts and heartbeats, execution timeouts and every date run on it. */
  readonly clock: RuntimeClock;
}
