/**
 * What the table's entries are built from: the helper that keeps each entry's parameters as literal
 * types, path and operand shorthands, and the conditions and updates several transitions share.
 * Internal to the table (index.ts does not export it).
 */
import { AlertOutboxAttr, AlertType } from '../events';
import {
  ALERT_OUTBOX_SHARD,
  CompensationAttr,
  CompensationStatus,
  StateAttr,
  StepAttr,
} from '../state-record';
import { ProcessState, StepStatus } from '../states';
import {
  ALERT_ID_PARAM,
  type Condition,
  type Constant,
  type Param,
  type ParamType,
  type StateTransition,
  THIS_ALERT,
  THIS_STEP,
} from './model';

type StateAttrName = (typeof StateAttr)[keyof typeof StateAttr];
type StepAttrName = (typeof StepAttr)[keyof typeof StepAttr];
type CompensationAttrName = (typeof CompensationAttr)[keyof typeof CompensationAttr];

/** Keeps each entry's parameters as literal types, so operands and callers get them checked. */
export function transition<const Params extends Readonly<Record<string, ParamType>>>(
  definition: StateTransition<Params, NoInfer<keyof Params & string>>,
): StateTransition<Params, keyof Params & string> {
  return definition;
}

export const attr = <N extends StateAttrName>(name: N) => [name] as const;
export const stepAttr = <N extends StepAttrName>(name: N) => [StateAttr.Steps, THIS_STEP, name] as const;
/** The compensation log entry of the step the transition applies to. */
export const logEntry = [StateAttr.CompensationLog, THIS_STEP] as const;
export const logAttr = <N extends CompensationAttrName>(name: N) =>
  [StateAttr.CompensationLog, THIS_STEP, name] as const;
/** The outbox entry of the alert the transition raises (named by its alertId parameter). */
export const alertEntry = [StateAttr.AlertOutbox, THIS_ALERT] as const;
export const constant = (value: string | number | boolean, placeholder?: string): Constant =>
  placeholder === undefined ? { constant: value } : { constant: value, placeholder };
export const param = <P extends string>(name: P): Param<P> => ({ param: name });

export const isProcessing: Condition<never> = {
  path: attr(StateAttr.ProcessState),
  equals: constant(ProcessState.Processing),
};
export const isPending: Condition<never> = {
  path: attr(StateAttr.ProcessState),
  equals: constant(ProcessState.Pending),
};
export const isCompensating: Condition<never> = {
  path: attr(StateAttr.ProcessState),
  equals: constant(ProcessState.CompensationInProgress),
};
/** No step is running (the attempt expired between steps, or never started one). */
export const noRunningStep: Condition<never> = { path: attr(StateAttr.RunningStep), exists: false };
/** The step the supervisor saw running is still the one running (MarkCompleted did not remove it since). */
export const runningThisStep: Condition<'runningStep'> = {
  path: attr(StateAttr.RunningStep),
  equals: param('runningStep'),
};
/**
 * The step has not completed: still as the submission made it, marked Running by its agent, or
 * TimedOut by the supervisor (the states a step is in before its completion is recorded).
 */
export const STEP_NOT_COMPLETED: Condition<never> = {
  anyOf: [StepStatus.NotStarted, StepStatus.Running, StepStatus.TimedOut].map((status) => ({
    path: stepAttr(StepAttr.Status),
    equals: constant(status),
  })),
};
/** The scheduler's fence: this execution (its instance id) still holds the lock of a Processing record. */
export const HELD_BY_THIS_EXECUTION = { lockedBy: param('instanceId') } as const;

/**
 * The supervisor's fence: the very attempt it saw expire (same lock, deadline and failure count).
 * A re-claim, a finished execution or another supervisor's transition changes at least one of them.
 */
export const EXPIRED_ATTEMPT = {
  fence: { lockedBy: param('seenLock') },
  condition: [
    isProcessing,
    { path: attr(StateAttr.CompleteBy), equals: param('seenCompleteBy') },
    { path: attr(StateAttr.FailureCount), equals: param('seenFailureCount') },
  ],
} as const;
export const EXPIRED_ATTEMPT_PARAMS = { seenLock: 'S', seenCompleteBy: 'N', seenFailureCount: 'N' } as const;

/** The same fence for an expired compensation attempt: its lock, deadline and compensation failure count. */
export const EXPIRED_COMPENSATION = {
  fence: { lockedBy: param('seenLock') },
  condition: [
    isCompensating,
    { path: attr(StateAttr.CompleteBy), equals: param('seenCompleteBy') },
    {
      path: attr(StateAttr.CompensationFailureCount),
      equals: param('seenCompensationFailureCount'),
    },
  ],
} as const;
export const EXPIRED_COMPENSATION_PARAMS = {
  seenLock: 'S',
  seenCompleteBy: 'N',
  seenCompensationFailureCount: 'N',
} as const;

/** What an expired attempt's running step becomes: TimedOut (its effect is uncertain). */
export const TIMED_OUT_STEP = [
  [stepAttr(StepAttr.Status), constant(StepStatus.TimedOut)],
  [stepAttr(StepAttr.EndedAt), param('now')],
] as const;

/**
 * What a transition that raises an alert also writes, in the same UpdateItem (DESIGN.md, Alert
 * outbox): the entry `AlertOutbox.<alertId>` and the sparse AlertOutboxIndex keys, so the alert
 * exists exactly when the state change does. The claim created AlertOutbox (ensureMap).
 */
export function raiseAlert<const P extends string>(
  type: (typeof AlertType)['OrderFailed' | 'CompensationFailed'],
  reason: string,
  entry: Readonly<Record<string, Constant | Param<P>>>,
) {
  return [
    [
      alertEntry,
      {
        placeholder: 'alertEntry',
        map: {
          [AlertOutboxAttr.AlertId]: param(ALERT_ID_PARAM),
          [AlertOutboxAttr.Type]: constant(type),
          [AlertOutboxAttr.Reason]: constant(reason),
          [AlertOutboxAttr.At]: param('now'),
          [AlertOutboxAttr.Attempt]: param('attempt'),
          [AlertOutboxAttr.CorrelationId]: param('correlationId'),
          [AlertOutboxAttr.LastError]: param('lastError'),
          ...entry,
        },
      },
    ],
    [attr(StateAttr.AlertOutboxShard), constant(ALERT_OUTBOX_SHARD)],
    [attr(StateAttr.AlertOutboxSince), param('now')],
  ] as const;
}
/** What every alert-raising transition binds besides its own: the id, the attempt, the correlation id. */
export const ALERT_PARAMS = { alertId: 'S', attempt: 'N', correlationId: 'S' } as const;
/** The alert's attempt is the record's (its id is made from it): checked, not trusted. */
export const atThisAttempt: Condition<'attempt'> = {
  path: attr(StateAttr.Attempt),
  equals: param('attempt'),
};

export const isState = (state: ProcessState): Condition<never> => ({
  path: attr(StateAttr.ProcessState),
  equals: constant(state),
});

/** What every operator action binds: what it saw, the start window, the index shard, its log entry. */
export const OPERATOR_PARAMS = {
  seenUpdatedAt: 'S',
  completeBy: 'N',
  dueShard: 'S',
  entry: 'L',
  now: 'S',
} as const;

/** The operator's fence (after an absent lock): the record is still at the UpdatedAt it saw. */
export const SEEN_BY_OPERATOR = [
  { path: attr(StateAttr.UpdatedAt), equals: param('seenUpdatedAt') },
] as const;

/**
 * Unlocked and back in the supervisor index with a claim window (CompleteBy, as for a new order):
 * the start message is a hint, and the supervisor re-queues a record nobody claimed in time.
 */
export const BACK_TO_THE_STARTER = [
  [attr(StateAttr.CompleteBy), param('completeBy')],
  [attr(StateAttr.DueShard), param('dueShard')],
  [attr(StateAttr.UpdatedAt), param('now')],
  [attr(StateAttr.OperatorLog), { appendList: param('entry') }],
] as const;

/**
 * Scheduler: a step completed; a later attempt never redoes it. The same write records its
 * compensation log entry (one item: atomic without a transaction), so a completed step can never
 * lack what is needed to undo it.
 */
export const MARK_STEP_COMPLETED = transition({
  by: 'scheduler',
  summary:
    'The step is Completed, with the result its agent returned, and its compensation is Recorded in the log',
  params: {
    instanceId: 'S',
    result: 'M',
    seq: 'N',
    compensation: 'S',
    undoes: 'S',
    confirmationId: 'S',
    now: 'S',
  },
  fence: HELD_BY_THIS_EXECUTION,
  condition: [isProcessing],
  set: [
    [stepAttr(StepAttr.Status), constant(StepStatus.Completed)],
    [stepAttr(StepAttr.CompletedAt), param('now')],
    [stepAttr(StepAttr.Result), param('result')],
    [
      logEntry,
      {
        placeholder: 'compensationEntry',
        map: {
          [CompensationAttr.Seq]: param('seq'),
          [CompensationAttr.Compensation]: param('compensation'),
          [CompensationAttr.Undoes]: param('undoes'),
          [CompensationAttr.ConfirmationId]: param('confirmationId'),
          [CompensationAttr.Status]: constant(CompensationStatus.Recorded),
          [CompensationAttr.RecordedAt]: param('now'),
        },
      },
    ],
    [attr(StateAttr.UpdatedAt), param('now')],
  ],
  remove: [attr(StateAttr.RunningStep)],
});

/**
 * Scheduler: a step starts; its deadline is the one planned at claim time. RunningStep names it,
 * so the supervisor can mark exactly this step TimedOut if the attempt expires.
 */
export const MARK_STEP_RUNNING = transition({
  by: 'scheduler',
  summary: 'The step is Running and is the RunningStep; CompleteBy is its planned deadline',
  params: { instanceId: 'S', runningStep: 'S', completeBy: 'N', now: 'S' },
  fence: HELD_BY_THIS_EXECUTION,
  condition: [isProcessing],
  set: [
    [stepAttr(StepAttr.Status), constant(StepStatus.Running)],
    [stepAttr(StepAttr.StartedAt), param('now')],
    [attr(StateAttr.RunningStep), param('runningStep')],
    [attr(StateAttr.CompleteBy), param('completeBy')],
    [attr(StateAttr.UpdatedAt), param('now')],
  ],
  remove: [],
});

/**
 * Scheduler, lean shape: markStepCompleted, and CompleteBy becomes the next step's planned deadline
 * in the same write. A lean execution has no MarkRunning of its own: the next step's request is in
 * flight (queue, agent start) until its agent marks the step Running, and with the completed
 * step's CompleteBy left in place the supervisor could expire a healthy attempt in that gap (the
 * short chaos campaign did, on a loaded machine). Classic executions keep markStepCompleted.
 */
export const MARK_STEP_COMPLETED_HANDING_OVER = transition({
  ...MARK_STEP_COMPLETED,
  summary: `${MARK_STEP_COMPLETED.summary}; CompleteBy is the next step's planned deadline`,
  params: { ...MARK_STEP_COMPLETED.params, completeBy: 'N' },
  set: [...MARK_STEP_COMPLETED.set, [attr(StateAttr.CompleteBy), param('completeBy')]],
});

/**
 * A step write that stamps ProgressAt where `transition` stamps UpdatedAt: a progress write. UpdatedAt
 * is the sort key of StateIndex and AdmissionIndex, so a write that changes it rewrites both
 * entries (delete and put: 4 write units); ProgressAt is in no index. The transition must SET
 * UpdatedAt and nothing either index keys or projects besides (checked in the unit tests).
 */
export function stampingProgress<T extends StateTransition>(transition: T, summary: string): T {
  const stamps = transition.set.filter(([path]) => path.length === 1 && path[0] === StateAttr.UpdatedAt);
  if (stamps.length !== 1) {
    throw new Error(`stampingProgress: '${transition.summary}' must SET UpdatedAt exactly once`);
  }
  return {
    ...transition,
    by: 'agent',
    summary,
    set: transition.set.map((clause) =>
      clause === stamps[0] ? ([attr(StateAttr.ProgressAt), clause[1]] as const) : clause,
    ),
  };
}
