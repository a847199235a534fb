/**
 * The table: every transition of the state record, by name, with who applies it and what it means.
 * Read with model.ts (what an entry holds) and builders.ts (the shorthands and shared clauses).
 */
import { AlertOutboxAttr, AlertType } from '../events';
import { CompensationAttr, CompensationStatus, StateAttr, StepAttr } from '../state-record';
import { ProcessState, StepStatus } from '../states';
import {
  ALERT_PARAMS,
  atThisAttempt,
  attr,
  BACK_TO_THE_STARTER,
  constant,
  EXPIRED_ATTEMPT,
  EXPIRED_ATTEMPT_PARAMS,
  EXPIRED_COMPENSATION,
  EXPIRED_COMPENSATION_PARAMS,
  HELD_BY_THIS_EXECUTION,
  isCompensating,
  isPending,
  isProcessing,
  isState,
  logAttr,
  logEntry,
  MARK_STEP_COMPLETED,
  MARK_STEP_COMPLETED_HANDING_OVER,
  MARK_STEP_RUNNING,
  noRunningStep,
  OPERATOR_PARAMS,
  param,
  raiseAlert,
  runningThisStep,
  SEEN_BY_OPERATOR,
  STEP_NOT_COMPLETED,
  stampingProgress,
  stepAttr,
  TIMED_OUT_STEP,
  transition,
} from './builders';

export const STATE_TRANSITIONS = {
  /** Starter: claim a Pending record for a new attempt (then, and only then, start its execution). */
  claim: transition({
    by: 'starter',
    summary:
      'Pending, unlocked, at the attempt the starter read, first attempt or back-off over: Processing, locked by the new attempt, with its plan',
    params: {
      instanceId: 'S',
      seenAttempt: 'N',
      attempt: 'N',
      claimableUntil: 'N',
      plan: 'M',
      completeBy: 'N',
      now: 'S',
    },
    fence: { lockedBy: 'absent' },
    condition: [
      isPending,
      { path: attr(StateAttr.Attempt), equals: param('seenAttempt') },
      {
        anyOf: [
          { path: attr(StateAttr.Attempt), equals: constant(0, 'zero') },
          { path: attr(StateAttr.CompleteBy), atMost: param('claimableUntil') },
        ],
      },
    ],
    set: [
      [attr(StateAttr.ProcessState), constant(ProcessState.Processing)],
      [attr(StateAttr.LockedBy), param('instanceId')],
      [attr(StateAttr.Attempt), param('attempt')],
      [attr(StateAttr.Plan), param('plan')],
      [attr(StateAttr.CompleteBy), param('completeBy')],
      [attr(StateAttr.UpdatedAt), param('now')],
      // The release's fence: a progress write (the agents' step writes) stamps ProgressAt, not UpdatedAt.
      [attr(StateAttr.ProgressAt), param('now')],
      // Every alert-raising transition follows a claim: it SETs its entry inside this map.
      [attr(StateAttr.AlertOutbox), { ensureMap: true }],
    ],
    remove: [],
  }),

  /**
   * Starter: claim an unlocked CompensationInProgress record (after an operator cancel, or after
   * the supervisor reset an expired compensation attempt) for a compensation attempt. It stays
   * CompensationInProgress; the lock and a plan of compensation deadlines make it the attempt's.
   */
  claimCompensation: transition({
    by: 'starter',
    summary:
      'CompensationInProgress, unlocked, at the attempt the starter read, back-off over: locked by the new compensation attempt, with its plan',
    params: {
      instanceId: 'S',
      seenAttempt: 'N',
      attempt: 'N',
      claimableUntil: 'N',
      plan: 'M',
      completeBy: 'N',
      now: 'S',
    },
    fence: { lockedBy: 'absent' },
    condition: [
      isCompensating,
      { path: attr(StateAttr.Attempt), equals: param('seenAttempt') },
      { path: attr(StateAttr.CompleteBy), atMost: param('claimableUntil') },
    ],
    set: [
      [attr(StateAttr.LockedBy), param('instanceId')],
      [attr(StateAttr.Attempt), param('attempt')],
      [attr(StateAttr.Plan), param('plan')],
      [attr(StateAttr.CompleteBy), param('completeBy')],
      [attr(StateAttr.UpdatedAt), param('now')],
      // Every alert-raising transition follows a claim: it SETs its entry inside this map.
      [attr(StateAttr.AlertOutbox), { ensureMap: true }],
    ],
    remove: [],
  }),

  /**
   * Starter: give back a claim whose execution could not be started. Fenced on the claim itself,
   * UpdatedAt and ProgressAt included: an execution that did start (its answer lost) and already
   * wrote (a progress write stamps ProgressAt, every other write UpdatedAt), a supervisor reset or
   * a newer claim all change at least one of them, and then the record is theirs, not the
   * starter's to give back.
   */
  release: transition({
    by: 'starter',
    summary: 'Still exactly the claim the starter wrote: back to Pending, unlocked, at the attempt before it',
    params: {
      instanceId: 'S',
      attempt: 'N',
      claimedAt: 'S',
      restoredAttempt: 'N',
      completeBy: 'N',
      now: 'S',
    },
    fence: { lockedBy: param('instanceId') },
    condition: [
      isProcessing,
      { path: attr(StateAttr.Attempt), equals: param('attempt') },
      { path: attr(StateAttr.UpdatedAt), equals: param('claimedAt') },
      { path: attr(StateAttr.ProgressAt), equals: param('claimedAt') },
    ],
    set: [
      [attr(StateAttr.ProcessState), constant(ProcessState.Pending)],
      [attr(StateAttr.Attempt), param('restoredAttempt')],
      [attr(StateAttr.CompleteBy), param('completeBy')],
      [attr(StateAttr.UpdatedAt), param('now')],
    ],
    remove: [attr(StateAttr.LockedBy)],
  }),

  /** Starter: give back a compensation claim whose execution could not be started (as release). */
  releaseCompensation: transition({
    by: 'starter',
    summary:
      'Still exactly the compensation claim the starter wrote: CompensationInProgress, unlocked, at the attempt before it',
    params: {
      instanceId: 'S',
      attempt: 'N',
      claimedAt: 'S',
      restoredAttempt: 'N',
      completeBy: 'N',
      now: 'S',
    },
    fence: { lockedBy: param('instanceId') },
    condition: [
      isCompensating,
      { path: attr(StateAttr.Attempt), equals: param('attempt') },
      { path: attr(StateAttr.UpdatedAt), equals: param('claimedAt') },
    ],
    set: [
      [attr(StateAttr.Attempt), param('restoredAttempt')],
      [attr(StateAttr.CompleteBy), param('completeBy')],
      [attr(StateAttr.UpdatedAt), param('now')],
    ],
    remove: [attr(StateAttr.LockedBy)],
  }),

  markStepRunning: MARK_STEP_RUNNING,

  markStepCompleted: MARK_STEP_COMPLETED,

  markStepCompletedHandingOver: MARK_STEP_COMPLETED_HANDING_OVER,

  /**
   * Agents' progress writes: the step writes above with ProgressAt where they stamp UpdatedAt (the
   * sort key of StateIndex and AdmissionIndex: 4 write units a write). Versions 1 to 4's pinned
   * state machines keep the three above; the lean and compact agents' reservation applies
   * progressStepRunning, a compact agent's completion completeStep (DESIGN.md, Index writes).
   */
  progressStepRunning: stampingProgress(
    MARK_STEP_RUNNING,
    `${MARK_STEP_RUNNING.summary}; a progress write (ProgressAt, not UpdatedAt)`,
  ),

  /**
   * Agent, compact shape: its call succeeded, and it records the step Completed as
   * markStepCompletedHandingOver does (a progress write: ProgressAt, not UpdatedAt), in its own
   * write, before it answers the task token. Fenced on the request's execution and conditional on
   * the step not being Completed yet: a duplicate delivery's second write, or a redelivery's after
   * the execution moved on, changes nothing (the agent reads back that the step is Completed). Not
   * conditional on RunningStep: a step whose answer the idempotency layer replays makes no
   * reservation, so it is still NotStarted (or TimedOut, after an expired attempt) when its
   * completion is written.
   */
  completeStep: {
    ...stampingProgress(
      MARK_STEP_COMPLETED_HANDING_OVER,
      `${MARK_STEP_COMPLETED_HANDING_OVER.summary}, written by its agent; a progress write (ProgressAt, not UpdatedAt)`,
    ),
    condition: [isProcessing, STEP_NOT_COMPLETED],
  },

  /**
   * Agent, compact shape, last step: completeStep and markProcessed in one write (the order is
   * Processed, unlocked, out of the supervisor index), so no MarkProcessed state follows. It stamps
   * UpdatedAt: the order changes state (StateIndex's key moves anyway), and UpdatedAt is the version
   * an operator acts on.
   */
  completeOrder: transition({
    ...MARK_STEP_COMPLETED,
    by: 'agent',
    summary: `${MARK_STEP_COMPLETED.summary}, written by its agent; it was the last: Processed, unlocked, out of the supervisor index`,
    condition: [isProcessing, STEP_NOT_COMPLETED],
    set: [...MARK_STEP_COMPLETED.set, [attr(StateAttr.ProcessState), constant(ProcessState.Processed)]],
    remove: [...MARK_STEP_COMPLETED.remove, attr(StateAttr.LockedBy), attr(StateAttr.DueShard)],
  }),

  /** Scheduler: every step completed. Leaving the index (REMOVE DueShard) makes it terminal. */
  markProcessed: transition({
    by: 'scheduler',
    summary: 'Every step completed: Processed, unlocked, out of the supervisor index',
    params: { instanceId: 'S', now: 'S' },
    fence: HELD_BY_THIS_EXECUTION,
    condition: [isProcessing],
    set: [
      [attr(StateAttr.ProcessState), constant(ProcessState.Processed)],
      [attr(StateAttr.UpdatedAt), param('now')],
    ],
    remove: [attr(StateAttr.LockedBy), attr(StateAttr.DueShard)],
  }),

  /**
   * Scheduler: an agent refused the step for good. The same execution keeps the lock and rolls
   * back at once; CompleteBy becomes the plan's deadline of the first compensation.
   */
  beginCompensation: transition({
    by: 'scheduler',
    summary:
      'A step failed for good: it is Failed, the order CompensationInProgress (still locked), with the reason',
    params: { instanceId: 'S', lastError: 'M', completeBy: 'N', now: 'S' },
    fence: HELD_BY_THIS_EXECUTION,
    condition: [isProcessing],
    set: [
      [attr(StateAttr.ProcessState), constant(ProcessState.CompensationInProgress)],
      [stepAttr(StepAttr.Status), constant(StepStatus.Failed)],
      [stepAttr(StepAttr.EndedAt), param('now')],
      [attr(StateAttr.LastError), param('lastError')],
      [attr(StateAttr.CompleteBy), param('completeBy')],
      [attr(StateAttr.UpdatedAt), param('now')],
    ],
    remove: [attr(StateAttr.RunningStep)],
  }),

  /**
   * Scheduler: the step's retry budget was spent (Agent.RetryBudgetExhausted). Its calls were made
   * and one may have had its effect with its answer lost, so the step is TimedOut, not Failed: it is
   * undone just in case (markCompensatingUncertain), by this execution and, if it dies first, by the
   * next compensation attempt, whose Undo.Check reads TimedOut. Found by the protocol model (issue 25).
   */
  beginCompensationUncertain: transition({
    by: 'scheduler',
    summary:
      "A step's retry budget was spent with its outcome unknown: it is TimedOut, the order CompensationInProgress (still locked), with the reason",
    params: { instanceId: 'S', lastError: 'M', completeBy: 'N', now: 'S' },
    fence: HELD_BY_THIS_EXECUTION,
    condition: [isProcessing],
    set: [
      [attr(StateAttr.ProcessState), constant(ProcessState.CompensationInProgress)],
      ...TIMED_OUT_STEP,
      [attr(StateAttr.LastError), param('lastError')],
      [attr(StateAttr.CompleteBy), param('completeBy')],
      [attr(StateAttr.UpdatedAt), param('now')],
    ],
    remove: [attr(StateAttr.RunningStep)],
  }),

  /**
   * Scheduler: the intent to undo a step, written before the compensating call, so an attempt that
   * dies leaves the entry Compensating and the next one calls again under the same key.
   */
  markCompensating: transition({
    by: 'scheduler',
    summary:
      'The step and its log entry are Compensating; CompleteBy is the planned deadline of its compensation',
    params: { instanceId: 'S', completeBy: 'N', now: 'S' },
    fence: HELD_BY_THIS_EXECUTION,
    condition: [isCompensating, { path: logEntry, exists: true }],
    set: [
      [stepAttr(StepAttr.Status), constant(StepStatus.Compensating)],
      [stepAttr(StepAttr.EndedAt), param('now')],
      [logAttr(CompensationAttr.Status), constant(CompensationStatus.Compensating)],
      [logAttr(CompensationAttr.CompensatingAt), param('now')],
      [attr(StateAttr.CompleteBy), param('completeBy')],
      [attr(StateAttr.UpdatedAt), param('now')],
    ],
    remove: [],
  }),

  /**
   * Scheduler: the intent to undo a TimedOut step, whose effect was never learned: its log entry is
   * created here, Uncertain and without a ConfirmationId. The downstream answers `undone: false`
   * when it never recorded the effect, so undoing just in case is safe.
   */
  markCompensatingUncertain: transition({
    by: 'scheduler',
    summary:
      'A TimedOut step is undone just in case: the step is Compensating and its log entry is created Uncertain',
    params: { instanceId: 'S', seq: 'N', compensation: 'S', undoes: 'S', completeBy: 'N', now: 'S' },
    fence: HELD_BY_THIS_EXECUTION,
    condition: [isCompensating, { path: logEntry, exists: false }],
    set: [
      [stepAttr(StepAttr.Status), constant(StepStatus.Compensating)],
      [stepAttr(StepAttr.EndedAt), param('now')],
      [
        logEntry,
        {
          placeholder: 'uncertainEntry',
          map: {
            [CompensationAttr.Seq]: param('seq'),
            [CompensationAttr.Compensation]: param('compensation'),
            [CompensationAttr.Undoes]: param('undoes'),
            [CompensationAttr.Uncertain]: constant(true),
            [CompensationAttr.Status]: constant(CompensationStatus.Compensating),
            [CompensationAttr.RecordedAt]: param('now'),
            [CompensationAttr.CompensatingAt]: param('now'),
          },
        },
      ],
      [attr(StateAttr.CompleteBy), param('completeBy')],
      [attr(StateAttr.UpdatedAt), param('now')],
    ],
    remove: [],
  }),

  /** Scheduler: the compensating service confirmed the undo (or that there was nothing to undo). */
  markStepCompensated: transition({
    by: 'scheduler',
    summary: 'The step and its log entry are Compensated, with the answer of the compensating service',
    params: { instanceId: 'S', result: 'M', now: 'S' },
    fence: HELD_BY_THIS_EXECUTION,
    condition: [isCompensating],
    set: [
      [stepAttr(StepAttr.Status), constant(StepStatus.Compensated)],
      [stepAttr(StepAttr.EndedAt), param('now')],
      [logAttr(CompensationAttr.Status), constant(CompensationStatus.Compensated)],
      [logAttr(CompensationAttr.CompensatedAt), param('now')],
      [logAttr(CompensationAttr.Result), param('result')],
      [attr(StateAttr.UpdatedAt), param('now')],
    ],
    remove: [],
  }),

  /** Scheduler: every compensation done. Terminal: unlocked, out of the supervisor index. */
  markCompensated: transition({
    by: 'scheduler',
    summary: 'Every completed step undone: Compensated, unlocked, out of the supervisor index',
    params: { instanceId: 'S', now: 'S' },
    fence: HELD_BY_THIS_EXECUTION,
    condition: [isCompensating],
    set: [
      [attr(StateAttr.ProcessState), constant(ProcessState.Compensated)],
      [attr(StateAttr.UpdatedAt), param('now')],
    ],
    remove: [attr(StateAttr.LockedBy), attr(StateAttr.DueShard)],
  }),

  /** Scheduler: a compensation was refused for good. Terminal; an operator must act. */
  markCompensationFailed: transition({
    by: 'scheduler',
    summary:
      'A compensation was refused for good: CompensationFailed, its log entry Failed, unlocked, out of the supervisor index',
    params: {
      instanceId: 'S',
      lastError: 'M',
      now: 'S',
      ...ALERT_PARAMS,
      compensationFailureCount: 'N',
      failedStep: 'S',
    },
    fence: HELD_BY_THIS_EXECUTION,
    condition: [isCompensating, atThisAttempt],
    set: [
      [attr(StateAttr.ProcessState), constant(ProcessState.CompensationFailed)],
      [logAttr(CompensationAttr.Status), constant(CompensationStatus.Failed)],
      [stepAttr(StepAttr.Status), constant(StepStatus.CompensationFailed)],
      [stepAttr(StepAttr.EndedAt), param('now')],
      [attr(StateAttr.LastError), param('lastError')],
      [attr(StateAttr.UpdatedAt), param('now')],
      ...raiseAlert(AlertType.CompensationFailed, 'CompensationRefused', {
        [AlertOutboxAttr.InstanceId]: param('instanceId'),
        [AlertOutboxAttr.CompensationFailureCount]: param('compensationFailureCount'),
        [AlertOutboxAttr.Step]: param('failedStep'),
      }),
    ],
    remove: [attr(StateAttr.LockedBy), attr(StateAttr.DueShard)],
  }),

  /** Supervisor: an attempt expired between steps, below the failure threshold (fenced on that attempt). */
  resetExpired: transition({
    by: 'supervisor',
    summary:
      'The expired attempt the supervisor read: Pending again, unlocked, one more failure, after a back-off',
    params: { ...EXPIRED_ATTEMPT_PARAMS, failureCount: 'N', completeBy: 'N', now: 'S' },
    fence: EXPIRED_ATTEMPT.fence,
    condition: [...EXPIRED_ATTEMPT.condition, noRunningStep],
    set: [
      [attr(StateAttr.ProcessState), constant(ProcessState.Pending)],
      [attr(StateAttr.FailureCount), param('failureCount')],
      [attr(StateAttr.CompleteBy), param('completeBy')],
      [attr(StateAttr.UpdatedAt), param('now')],
    ],
    remove: [attr(StateAttr.LockedBy)],
  }),

  /** Supervisor: resetExpired of an attempt that expired running a step: that step is TimedOut. */
  resetExpiredInStep: transition({
    by: 'supervisor',
    summary:
      'The expired attempt the supervisor read, while running the step: the step TimedOut, Pending again, unlocked, one more failure',
    params: { ...EXPIRED_ATTEMPT_PARAMS, runningStep: 'S', failureCount: 'N', completeBy: 'N', now: 'S' },
    fence: EXPIRED_ATTEMPT.fence,
    condition: [...EXPIRED_ATTEMPT.condition, runningThisStep],
    set: [
      [attr(StateAttr.ProcessState), constant(ProcessState.Pending)],
      ...TIMED_OUT_STEP,
      [attr(StateAttr.FailureCount), param('failureCount')],
      [attr(StateAttr.CompleteBy), param('completeBy')],
      [attr(StateAttr.UpdatedAt), param('now')],
    ],
    remove: [attr(StateAttr.LockedBy), attr(StateAttr.RunningStep)],
  }),

  /** Supervisor: an attempt expired between steps at the failure threshold (same fence as resetExpired). */
  failExpired: transition({
    by: 'supervisor',
    summary:
      'The expired attempt the supervisor read, at the threshold: Error, unlocked, out of the supervisor index',
    params: { ...EXPIRED_ATTEMPT_PARAMS, failureCount: 'N', lastError: 'M', now: 'S', ...ALERT_PARAMS },
    fence: EXPIRED_ATTEMPT.fence,
    condition: [...EXPIRED_ATTEMPT.condition, noRunningStep, atThisAttempt],
    set: [
      [attr(StateAttr.ProcessState), constant(ProcessState.Error)],
      [attr(StateAttr.FailureCount), param('failureCount')],
      [attr(StateAttr.LastError), param('lastError')],
      [attr(StateAttr.UpdatedAt), param('now')],
      ...raiseAlert(AlertType.OrderFailed, 'FailureThresholdReached', {
        [AlertOutboxAttr.InstanceId]: param('seenLock'),
        [AlertOutboxAttr.FailureCount]: param('failureCount'),
      }),
    ],
    remove: [attr(StateAttr.LockedBy), attr(StateAttr.DueShard)],
  }),

  /** Supervisor: failExpired of an attempt that expired running a step: that step is TimedOut. */
  failExpiredInStep: transition({
    by: 'supervisor',
    summary:
      'The expired attempt the supervisor read, while running the step, at the threshold: the step TimedOut, Error, unlocked, out of the index',
    params: {
      ...EXPIRED_ATTEMPT_PARAMS,
      runningStep: 'S',
      failureCount: 'N',
      lastError: 'M',
      now: 'S',
      ...ALERT_PARAMS,
    },
    fence: EXPIRED_ATTEMPT.fence,
    condition: [...EXPIRED_ATTEMPT.condition, runningThisStep, atThisAttempt],
    set: [
      [attr(StateAttr.ProcessState), constant(ProcessState.Error)],
      ...TIMED_OUT_STEP,
      [attr(StateAttr.FailureCount), param('failureCount')],
      [attr(StateAttr.LastError), param('lastError')],
      [attr(StateAttr.UpdatedAt), param('now')],
      ...raiseAlert(AlertType.OrderFailed, 'FailureThresholdReached', {
        [AlertOutboxAttr.InstanceId]: param('seenLock'),
        [AlertOutboxAttr.FailureCount]: param('failureCount'),
        [AlertOutboxAttr.Step]: param('runningStep'),
      }),
    ],
    remove: [attr(StateAttr.LockedBy), attr(StateAttr.DueShard), attr(StateAttr.RunningStep)],
  }),

  /** Supervisor: nobody claimed a Pending record in time; give the starter a new window. */
  restartPending: transition({
    by: 'supervisor',
    summary: 'The unclaimed Pending record the supervisor read: a new start window',
    params: { seenCompleteBy: 'N', seenAttempt: 'N', completeBy: 'N', now: 'S' },
    fence: { lockedBy: 'absent' },
    condition: [
      isPending,
      { path: attr(StateAttr.CompleteBy), equals: param('seenCompleteBy') },
      { path: attr(StateAttr.Attempt), equals: param('seenAttempt') },
    ],
    set: [
      [attr(StateAttr.CompleteBy), param('completeBy')],
      [attr(StateAttr.UpdatedAt), param('now')],
    ],
    remove: [],
  }),

  /**
   * Supervisor: a compensation attempt expired below maxCompensationFailures. It stays
   * CompensationInProgress, unlocked, for the starter to claim after a back-off; its Compensating
   * log entry makes the next attempt call again under the same key.
   */
  resetExpiredCompensation: transition({
    by: 'supervisor',
    summary:
      'The expired compensation attempt the supervisor read: unlocked, one more compensation failure, after a back-off',
    params: { ...EXPIRED_COMPENSATION_PARAMS, compensationFailureCount: 'N', completeBy: 'N', now: 'S' },
    ...EXPIRED_COMPENSATION,
    set: [
      [attr(StateAttr.CompensationFailureCount), param('compensationFailureCount')],
      [attr(StateAttr.CompleteBy), param('completeBy')],
      [attr(StateAttr.UpdatedAt), param('now')],
    ],
    remove: [attr(StateAttr.LockedBy)],
  }),

  /** Supervisor: a compensation attempt expired at maxCompensationFailures. Terminal; an operator must act. */
  failExpiredCompensation: transition({
    by: 'supervisor',
    summary:
      'The expired compensation attempt the supervisor read, at the threshold: CompensationFailed, unlocked, out of the supervisor index',
    params: {
      ...EXPIRED_COMPENSATION_PARAMS,
      compensationFailureCount: 'N',
      lastError: 'M',
      now: 'S',
      ...ALERT_PARAMS,
    },
    fence: EXPIRED_COMPENSATION.fence,
    condition: [...EXPIRED_COMPENSATION.condition, atThisAttempt],
    set: [
      [attr(StateAttr.ProcessState), constant(ProcessState.CompensationFailed)],
      [attr(StateAttr.CompensationFailureCount), param('compensationFailureCount')],
      [attr(StateAttr.LastError), param('lastError')],
      [attr(StateAttr.UpdatedAt), param('now')],
      ...raiseAlert(AlertType.CompensationFailed, 'CompensationThresholdReached', {
        [AlertOutboxAttr.InstanceId]: param('seenLock'),
        [AlertOutboxAttr.CompensationFailureCount]: param('compensationFailureCount'),
      }),
    ],
    remove: [attr(StateAttr.LockedBy), attr(StateAttr.DueShard)],
  }),

  /** Supervisor: nobody claimed an unlocked CompensationInProgress record in time; a new window. */
  restartCompensation: transition({
    by: 'supervisor',
    summary: 'The unclaimed CompensationInProgress record the supervisor read: a new start window',
    params: { seenCompleteBy: 'N', seenAttempt: 'N', completeBy: 'N', now: 'S' },
    fence: { lockedBy: 'absent' },
    condition: [
      isCompensating,
      { path: attr(StateAttr.CompleteBy), equals: param('seenCompleteBy') },
      { path: attr(StateAttr.Attempt), equals: param('seenAttempt') },
    ],
    set: [
      [attr(StateAttr.CompleteBy), param('completeBy')],
      [attr(StateAttr.UpdatedAt), param('now')],
    ],
    remove: [],
  }),

  // Operator actions (DESIGN.md, Operator actions). Each is conditional on exactly what the
  // operator saw (state and UpdatedAt, on an unlocked record), puts the order back into the
  // supervisor's index (DueShard, CompleteBy = the starter's claim window) for the starter to
  // claim, and appends who did what and why to OperatorLog in the same write.

  /** Operator: retry an order that failed transiently until maxFailures; new work from Pending. */
  operatorRetry: transition({
    by: 'operator',
    summary:
      'The Error record the operator saw: Pending again, unlocked, no failures, back in the supervisor index, the action logged',
    params: OPERATOR_PARAMS,
    fence: { lockedBy: 'absent' },
    condition: [isState(ProcessState.Error), ...SEEN_BY_OPERATOR],
    set: [
      [attr(StateAttr.ProcessState), constant(ProcessState.Pending)],
      [attr(StateAttr.FailureCount), constant(0, 'zero')],
      ...BACK_TO_THE_STARTER,
    ],
    remove: [],
  }),

  /** Operator: retry a compensation that failed; the starter claims it and re-runs what is not yet Compensated. */
  operatorRetryCompensation: transition({
    by: 'operator',
    summary:
      'The CompensationFailed record the operator saw: CompensationInProgress, unlocked, no compensation failures, back in the supervisor index, the action logged',
    params: OPERATOR_PARAMS,
    fence: { lockedBy: 'absent' },
    condition: [isState(ProcessState.CompensationFailed), ...SEEN_BY_OPERATOR],
    set: [
      [attr(StateAttr.ProcessState), constant(ProcessState.CompensationInProgress)],
      [attr(StateAttr.CompensationFailureCount), constant(0, 'zero')],
      ...BACK_TO_THE_STARTER,
    ],
    remove: [],
  }),

  /**
   * Operator: cancel an order that is not running (Pending, Error or Processed): its completed steps
   * are undone by a compensation attempt the starter claims. Processing is refused (wait until it
   * settles), as are the compensation states.
   */
  operatorCancel: transition({
    by: 'operator',
    summary:
      'The Pending, Error or Processed record the operator saw: CompensationInProgress, unlocked, back in the supervisor index, the action logged',
    params: { ...OPERATOR_PARAMS, seenState: 'S' },
    fence: { lockedBy: 'absent' },
    condition: [
      {
        anyOf: [isState(ProcessState.Pending), isState(ProcessState.Error), isState(ProcessState.Processed)],
      },
      { path: attr(StateAttr.ProcessState), equals: param('seenState') },
      ...SEEN_BY_OPERATOR,
    ],
    set: [
      [attr(StateAttr.ProcessState), constant(ProcessState.CompensationInProgress)],
      ...BACK_TO_THE_STARTER,
    ],
    remove: [],
  }),
} as const;

export type TransitionName = keyof typeof STATE_TRANSITIONS;
export const TRANSITION_NAMES = Object.keys(STATE_TRANSITIONS) as TransitionName[];

type ValueOf<T> = T extends 'S'
  ? string
  : T extends 'N'
    ? number
    : T extends 'L'
      ? readonly Readonly<Record<string, unknown>>[]
      : Readonly<Record<string, unknown>>;

/** The values a caller binds for transition N, typed from the table. */
export type TransitionParams<N extends TransitionName> = {
  readonly [K in keyof (typeof STATE_TRANSITIONS)[N]['params']]: ValueOf<
    (typeof STATE_TRANSITIONS)[N]['params'][K]
  >;
};
