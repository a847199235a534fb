/**
 * What the operator actions need (DESIGN.md, Operator actions): the records, their history and alerts, and the operator transitions.
 */
import type {
  AlertType,
  OperatorAction,
  OperatorAlertView,
  OperatorOrderDetailBody,
  OperatorStepRunView,
  OperatorTransitionName,
  OperatorWorkflowExecution,
  ProcessState,
} from '../../contracts';
import type { AdmissionSlot } from './admission';
import type { TransitionResult } from './common';

export type { OperatorTransitionName } from '../../contracts';

/** The record's part of inspect: everything but the attempts and the alerts (other sources). */
export type OperatorRecordView = Omit<OperatorOrderDetailBody, 'attempts' | 'alerts'>;

/** What an operator action decides from: the record's state, its version (UpdatedAt) and counters. */
export interface OperatorRecordSummary {
  readonly orderId: string;
  readonly processState: ProcessState;
  readonly updatedAt: string;
  readonly lockedBy?: string;
  readonly failureCount: number;
  readonly compensationFailureCount: number;
  readonly schemaVersion: number;
  readonly workflowVersion: number;
  /**
   * The admission counter the record still holds a slot of (AdmissionShard): present while the
   * order is in flight, and after it reached a terminal state until its release has run.
   */
  readonly admissionShard?: string;
}

/** One OperatorLog entry, as the action writes it. */
export interface OperatorLogEntry {
  readonly action: OperatorAction;
  readonly by: string;
  readonly reason: string;
  readonly at: string;
  readonly seenState: ProcessState;
  readonly seenUpdatedAt: string;
  readonly newState: ProcessState;
  /** Retry only: the FailureCount (or CompensationFailureCount) the retry reset to 0. */
  readonly resetFailureCount?: number;
}

/** An operator transition to apply, conditional on what the operator saw. */
export interface OperatorActionWrite {
  readonly orderId: string;
  readonly transition: OperatorTransitionName;
  readonly seenState: ProcessState;
  readonly seenUpdatedAt: string;
  /** The claim window: pendingCompleteBy(now). */
  readonly completeBy: number;
  readonly dueShard: string;
  readonly entry: OperatorLogEntry;
  readonly at: number;
  /**
   * A retry of a record that still holds its admission slot (its release has not run yet): the
   * slot's counter key. The retry keeps that slot instead of taking one, so the write is also
   * conditional on the record still holding it (a release in between makes it 'lost').
   */
  readonly keepsSlot?: string;
}

/** How a retry that takes an admission slot ended: 'shard-full' when that counter is at its cap. */
export type SlotTakingResult = TransitionResult | 'shard-full';

export interface OperatorActionStore {
  summary(orderId: string): Promise<OperatorRecordSummary | undefined>;
  /** 'lost' when the record is no longer exactly what the operator saw (or is locked). */
  apply(write: OperatorActionWrite): Promise<TransitionResult>;
  /**
   * A retry is new work: the action's update, the record taking `slot` (AdmissionShard, only while
   * it holds none) and the counter taking a slot (below its cap), all in one transaction. 'lost'
   * when the record is not what the operator saw (outranks a full counter), 'shard-full' when only
   * the counter refused.
   */
  applyTakingSlot(write: OperatorActionWrite, slot: AdmissionSlot): Promise<SlotTakingResult>;
}

/** The record as inspect shows it (see OperatorRecordView). */
export interface OperatorRecordReader {
  view(orderId: string): Promise<OperatorRecordView | undefined>;
}

/** What Step Functions says of one execution (an attempt of an order). */
export interface ExecutionSummary {
  readonly status: string;
  readonly startDate?: string;
  readonly stopDate?: string;
}

export interface ExecutionHistory {
  /**
   * undefined when no execution of that name exists on the state machine of that workflow version
   * (never started, gone from the history, or the version is not deployed here).
   */
  describe(executionName: string, workflowVersion: number): Promise<ExecutionSummary | undefined>;
  /**
   * The agent calls of one execution, from its event history, reading at most `maxPages` pages of
   * `pageSize` events; `complete` is false when the history had more. undefined as for describe.
   */
  stepRuns(
    executionName: string,
    workflowVersion: number,
    bounds: { readonly pageSize: number; readonly maxPages: number },
  ): Promise<ExecutionStepRuns | undefined>;
}

/** One execution as the workflow graph draws it: its definition and the states it entered. */
export interface ExecutionWorkflows {
  /**
   * The execution's status, the definition that ran it and its path, reading at most `maxPages`
   * pages of `pageSize` history events (pathComplete false when there were more). undefined as
   * for ExecutionHistory.describe.
   */
  workflow(
    executionName: string,
    workflowVersion: number,
    bounds: { readonly pageSize: number; readonly maxPages: number },
  ): Promise<OperatorWorkflowExecution | undefined>;
}

/** The agent calls read from one execution's history. */
export interface ExecutionStepRuns {
  readonly runs: readonly OperatorStepRunView[];
  /** Whether the whole history was read (false: the runs are its first ones). */
  readonly complete: boolean;
}

/** One operator alert, as the archive keeps it. */
export interface ArchivedAlert {
  readonly orderId: string;
  readonly type: AlertType;
  /** The event's time (ISO-8601). */
  readonly at: string;
  readonly eventId: string;
  /** The alert's identity when it has one (outbox alerts): the archive keeps one item per AlertId. */
  readonly alertId?: string;
  readonly detail: Readonly<Record<string, unknown>>;
}

export interface AlertArchive {
  /** 'duplicate' when an alert of that AlertId is archived already (a redelivery). */
  archive(alert: ArchivedAlert): Promise<'archived' | 'duplicate'>;
  /** The order's alerts, oldest first. */
  alertsOf(orderId: string): Promise<OperatorAlertView[]>;
}
