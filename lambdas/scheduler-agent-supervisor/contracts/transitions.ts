/**
 * The transitions of the state record, as data: for each one its fence on LockedBy, the rest of
 * its condition, its SET and REMOVE updates, the constants it compares or writes and the
 * parameters its caller binds. Both writers of the store are generated from this table, and a
 * transition is written nowhere else:
 *   - the scheduler's UpdateItem states (JSONPath ASL; parameters bound to execution paths) in
 *     lib/scheduler-agent-supervisor/scheduler/store-updates.ts;
 *   - the starter's and the supervisor's SDK UpdateCommands (parameters bound to request values)
 *     in adapters/state-store.ts;
 *   - for lean workflow versions, markStepRunning applied by the agent on behalf of its execution
 *     (the execution's instanceId is the fence), in its call reservation (adapters/call-budget.ts).
 *
 * Rendering is deterministic, so both sides send the very same expressions: an attribute's
 * placeholder is `#` + its name in lower camel case (`LockedBy` -> `#lockedBy`), the step a step
 * transition applies to is `#step`, a constant's is `:` + its value in lower camel case
 * (`Processing` -> `:processing`) unless the constant names one, a parameter's is `:` + its name.
 */
import { AlertOutboxAttr, AlertType } from './events';
import {
  ALERT_OUTBOX_SHARD,
  CompensationAttr,
  CompensationStatus,
  StateAttr,
  StepAttr,
} from './state-record';
import { ProcessState, StepStatus } from './states';

/** DynamoDB type of a parameter: string, number, map or list. */
export type ParamType = 'S' | 'N' | 'M' | 'L';

/** Who applies a transition: the scheduler's are ASL states, the others SDK calls. */
export type TransitionActor = 'starter' | 'scheduler' | 'supervisor' | 'operator';

/** Stands for the step a step transition applies to (`Steps.<step>`); named when rendered. */
export const THIS_STEP = '<step>';

/**
 * Stands for the alert a transition raises (`AlertOutbox.<alertId>`): its name is the value of the
 * transition's `alertId` parameter, which the caller binds (an ASL path, a request value), since
 * the id holds the order and its attempt (alertIdFor).
 */
export const THIS_ALERT = '<alertId>';
/** The parameter that names THIS_ALERT. */
export const ALERT_ID_PARAM = 'alertId';

type StateAttrName = (typeof StateAttr)[keyof typeof StateAttr];
type StepAttrName = (typeof StepAttr)[keyof typeof StepAttr];
type CompensationAttrName = (typeof CompensationAttr)[keyof typeof CompensationAttr];

/**
 * A top-level attribute of the record, an attribute of the step the transition applies to, or
 * that step's compensation log entry (whole, or one of its attributes).
 */
export type AttributePath =
  | readonly [StateAttrName]
  | readonly [typeof StateAttr.Steps, typeof THIS_STEP, StepAttrName]
  | readonly [typeof StateAttr.CompensationLog, typeof THIS_STEP]
  | readonly [typeof StateAttr.CompensationLog, typeof THIS_STEP, CompensationAttrName]
  | readonly [typeof StateAttr.AlertOutbox, typeof THIS_ALERT];

/** A value written into the expression's values as is. */
export interface Constant {
  readonly constant: string | number | boolean;
  /** Placeholder name without `:`. @default - the value in lower camel case */
  readonly placeholder?: string;
}

/** A value the caller binds: an execution path in ASL, a request value in the SDK. */
export interface Param<P extends string = string> {
  readonly param: P;
}

/**

 * A map value (DynamoDB M) composed of constants and parameters, under one placeholder: a whole
 * compensation log entry is written at once, because DynamoDB cannot SET an attribute inside a map
 * that does not exist yet. Its constants stay in this table; the caller binds its parameters and
 * composes the map its own way (see bindParams).
 */
export interface MapOperand<P extends string = string> {
  readonly map: Readonly<Record<string, Constant | Param<P>>>;
  /** Placeholder name without `:`. */
  readonly placeholder: string;
}

/**
 * SET only: the list the caller binds, appended to the list attribute being set, which is created
 * empty when absent: `list_append(if_not_exists(<path>, :emptyList), :<param>)`. An append never
 * reads what it extends, so a log grows without its writer having seen it.
 */
export interface AppendToList<P extends string = string> {
  readonly appendList: Param<P>;
}

/**
 * SET only: the map attribute being set is created empty when absent, and kept as it is otherwise:
 * `if_not_exists(<path>, :emptyMap)`, so a later transition can SET an entry inside it by path.
 */
export interface EnsureMap {
  readonly ensureMap: true;
}

export type Operand<P extends string = string> = Constant | Param<P>;
/** What a SET clause writes: an operand, a composed map, an append to the list it sets, or an empty map if absent. */
export type SetValue<P extends string = string> = Operand<P> | MapOperand<P> | AppendToList<P> | EnsureMap;

export type Condition<P extends string = string> =
  | { readonly path: AttributePath; readonly equals: Operand<P> }
  | { readonly path: AttributePath; readonly atMost: Operand<P> }
  /** attribute_exists (true) or attribute_not_exists (false). */
  | { readonly path: AttributePath; readonly exists: boolean }
  | { readonly anyOf: readonly Condition<P>[] };

/**
 * Fencing (MISSION item 4): who may write. `absent` takes the lock (only a record nobody holds);
 * a parameter names the lock the writer must find: its own, or the expired one it read.
 */
export type LockFence<P extends string = string> =
  | { readonly lockedBy: 'absent' }
  | { readonly lockedBy: Param<P> };

/**
 * One transition. `Names` are the parameter names (inferred from `params` by the table's helper, so
 * an operand naming an undeclared parameter does not compile).
 */
export interface StateTransition<
  Params extends Readonly<Record<string, ParamType>> = Readonly<Record<string, ParamType>>,
  Names extends string = string,
> {
  readonly by: TransitionActor;
  /** What the transition means, for people (and error messages). */
  readonly summary: string;
  /** The values the caller binds, with their DynamoDB types. */
  readonly params: Params;
  /** The first clause of the condition, always present. */
  readonly fence: LockFence<Names>;
  /** The other clauses, all required (AND). */
  readonly condition: readonly Condition<Names>[];
  /** SET clauses, in order. */
  readonly set: readonly (readonly [AttributePath, SetValue<Names>])[];
  /** REMOVE clauses, in order. */
  readonly remove: readonly AttributePath[];
}

/** Keeps each entry's parameters as literal types, so operands and callers get them checked. */
function transition<const Params extends Readonly<Record<string, ParamType>>>(
  definition: StateTransition<Params, NoInfer<keyof Params & string>>,
): StateTransition<Params, keyof Params & string> {
  return definition;
}

const attr = <N extends StateAttrName>(name: N) => [name] as const;
const stepAttr = <N extends StepAttrName>(name: N) => [StateAttr.Steps, THIS_STEP, name] as const;
/** The compensation log entry of the step the transition applies to. */
const logEntry = [StateAttr.CompensationLog, THIS_STEP] as const;
const logAttr = <N extends CompensationAttrName>(name: N) =>
  [StateAttr.CompensationLog, THIS_STEP, name] as const;
/** The outbox entry of the alert the transition raises (named by its alertId parameter). */
const alertEntry = [StateAttr.AlertOutbox, THIS_ALERT] as const;
const constant = (value: string | number | boolean, placeholder?: string): Constant =>
  placeholder === undefined ? { constant: value } : { constant: value, placeholder };
const param = <P extends string>(name: P): Param<P> => ({ param: name });

const isProcessing: Condition<never> = {
  path: attr(StateAttr.ProcessState),
  equals: constant(ProcessState.Processing),
};
const isPending: Condition<never> = {
  path: attr(StateAttr.ProcessState),
  equals: constant(ProcessState.Pending),
};
const isCompensating: Condition<never> = {
  path: attr(StateAttr.ProcessState),
  equals: constant(ProcessState.CompensationInProgress),
};
/** No step is running (the attempt expired between steps, or never started one). */
const noRunningStep: Condition<never> = { path: attr(StateAttr.RunningStep), exists: false };
/** The step the supervisor saw running is still the one running (MarkCompleted did not remove it since). */
const runningThisStep: Condition<'runningStep'> = {
  path: attr(StateAttr.RunningStep),
  equals: param('runningStep'),
};
/** The scheduler's fence: this execution (its instance id) still holds the lock of a Processing record. */
const HELD_BY_THIS_EXECUTION = { lockedBy: param('instanceId') } as const;

/**
 * The supervisor's fence: the very attempt it saw expire (same lock, deadline and failure count).
 * A re-claim, a finished execution or another supervisor's transition changes at least one of them.
 */
const EXPIRED_ATTEMPT = {
  fence: { lockedBy: param('seenLock') },
  condition: [
    isProcessing,
    { path: attr(StateAttr.CompleteBy), equals: param('seenCompleteBy') },
    { path: attr(StateAttr.FailureCount), equals: param('seenFailureCount') },
  ],
} as const;
const EXPIRED_ATTEMPT_PARAMS = { seenLock: 'S', seenCompleteBy: 'N', seenFailureCount: 'N' } as const;

/** The same fence for an expired compensation attempt: its lock, deadline and compensation failure count. */
const EXPIRED_COMPENSATION = {
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
const EXPIRED_COMPENSATION_PARAMS = {
  seenLock: 'S',
  seenCompleteBy: 'N',
  seenCompensationFailureCount: 'N',
} as const;

/** What an expired attempt's running step becomes: TimedOut (its effect is uncertain). */
const TIMED_OUT_STEP = [
  [stepAttr(StepAttr.Status), constant(StepStatus.TimedOut)],
  [stepAttr(StepAttr.EndedAt), param('now')],
] as const;

/**
 * What a transition that raises an alert also writes, in the same UpdateItem (DESIGN.md, Alert
 * outbox): the entry `AlertOutbox.<alertId>` and the sparse AlertOutboxIndex keys, so the alert
 * exists exactly when the state change does. The claim created AlertOutbox (ensureMap).
 */
function raiseAlert<const P extends string>(
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
const ALERT_PARAMS = { alertId: 'S', attempt: 'N', correlationId: 'S' } as const;
/** The alert's attempt is the record's (its id is made from it): checked, not trusted. */
const atThisAttempt: Condition<'attempt'> = { path: attr(StateAttr.Attempt), equals: param('attempt') };

const isState = (state: ProcessState): Condition<never> => ({
  path: attr(StateAttr.ProcessState),
  equals: constant(state),
});

/** What every operator action binds: what it saw, the start window, the index shard, its log entry. */
const OPERATOR_PARAMS = {
  seenUpdatedAt: 'S',
  completeBy: 'N',
  dueShard: 'S',
  entry: 'L',
  now: 'S',
} as const;

/** The operator's fence (after an absent lock): the record is still at the UpdatedAt it saw. */
const SEEN_BY_OPERATOR = [{ path: attr(StateAttr.UpdatedAt), equals: param('seenUpdatedAt') }] as const;

/**
 * Unlocked and back in the supervisor index with a claim window (CompleteBy, as for a new order):
 * the start message is a hint, and the supervisor re-queues a record nobody claimed in time.
 */
const BACK_TO_THE_STARTER = [
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
const MARK_STEP_COMPLETED = transition({
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
   * UpdatedAt included: an execution that did start (its answer lost) and already wrote, a
   * supervisor reset or a newer claim all change at least one of them, and then the record is
   * theirs, not the starter's to give back.
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

  /**
   * Scheduler: a step starts; its deadline is the one planned at claim time. RunningStep names it,
   * so the supervisor can mark exactly this step TimedOut if the attempt expires.
   */
  markStepRunning: transition({
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
  }),

  markStepCompleted: MARK_STEP_COMPLETED,

  /**
   * Scheduler, lean shape: markStepCompleted, and CompleteBy becomes the next step's planned deadline
   * in the same write. A lean execution has no MarkRunning of its own: the next step's request is in
   * flight (queue, agent start) until its agent marks the step Running, and with the completed
   * step's CompleteBy left in place the supervisor could expire a healthy attempt in that gap (the
   * short chaos campaign did, on a loaded machine). Classic executions keep markStepCompleted.
   */
  markStepCompletedHandingOver: transition({
    ...MARK_STEP_COMPLETED,
    summary: `${MARK_STEP_COMPLETED.summary}; CompleteBy is the next step's planned deadline`,
    params: { ...MARK_STEP_COMPLETED.params, completeBy: 'N' },
    set: [...MARK_STEP_COMPLETED.set, [attr(StateAttr.CompleteBy), param('completeBy')]],
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

/** A transition rendered as the expressions and tables an UpdateItem request carries. */
export interface RenderedTransition {
  readonly updateExpression: string;
  readonly conditionExpression: string;
  /** `#placeholder` -> attribute name (the step's name for `#step`). */
  readonly names: Readonly<Record<string, string>>;
  /** `:placeholder` -> constant value. */
  readonly constants: Readonly<Record<string, string | number | boolean>>;
  /** `:placeholder` -> the parameter the caller binds, with its type. */
  readonly params: Readonly<Record<string, { readonly name: string; readonly type: ParamType }>>;
  /**
   * `:placeholder` -> a map value (type M) composed of constants and parameters, key by key
   * (see MapOperand); bindParams composes it from the caller's values.
   */
  readonly maps: Readonly<Record<string, Readonly<Record<string, RenderedMapEntry>>>>;
  /**
   * Placeholders that stand for an empty list (the start of an appended list, see AppendToList).
   * @default - none (only transitions that append have them)
   */
  readonly emptyLists?: readonly string[];
  /**
   * Placeholders that stand for an empty map (what an ensureMap SET writes when the map is absent).
   * @default - none
   */
  readonly emptyMaps?: readonly string[];
  /**
   * `#placeholder` -> the parameter whose value is the attribute name (THIS_ALERT: the alertId).
   * bindNames gives the caller's names for them.
   * @default - none
   */
  readonly nameParams?: Readonly<Record<string, { readonly name: string; readonly type: ParamType }>>;
}

/** One key of a rendered map value: a constant, or a parameter the caller binds. */
export type RenderedMapEntry =
  | { readonly constant: string | number | boolean }
  | { readonly param: string; readonly type: ParamType };

/** Placeholder of the empty list an append starts from. */
export const EMPTY_LIST_PLACEHOLDER = ':emptyList';
/** Placeholder of the empty map an ensureMap SET writes when the map is absent. */
export const EMPTY_MAP_PLACEHOLDER = ':emptyMap';
/** Placeholder of the attribute name THIS_ALERT stands for. */
export const ALERT_NAME_PLACEHOLDER = '#alertId';

export interface RenderOptions {
  /** The step a step transition applies to (required for those, refused for the others). */
  readonly step?: string;
}

/**
 * The record's top-level attributes a transition's write names: the lock it is fenced on, what its
 * condition reads, what it sets and removes. It is what IAM's `dynamodb:Attributes` holds for the
 * transition's UpdateItem (the key aside), so a fine-grained grant to apply it is derived from the
 * table rather than written out again.
 */
export function topLevelAttributesOf(name: TransitionName): string[] {
  const transition: StateTransition = STATE_TRANSITIONS[name];
  const fromCondition = (condition: Condition): string[] =>
    'anyOf' in condition ? condition.anyOf.flatMap(fromCondition) : [condition.path[0]];
  return [
    ...new Set([
      StateAttr.LockedBy,
      ...transition.condition.flatMap(fromCondition),
      ...transition.set.map(([path]) => path[0]),
      ...transition.remove.map((path) => path[0]),
    ]),
  ];
}

/** Renders an entry of STATE_TRANSITIONS. */
export function renderTransition(name: TransitionName, options: RenderOptions = {}): RenderedTransition {
  return renderStateTransition(name, STATE_TRANSITIONS[name], options);
}

/** Whether the transition writes or reads an attribute of one step (it then needs `step` to render). */
export function appliesToStep(transition: StateTransition): boolean {
  const paths = [
    ...transition.set.map(([path]) => path),
    ...transition.remove,
    ...transition.condition.flatMap(conditionPaths),
  ];
  return paths.some((path) => (path as readonly string[]).includes(THIS_STEP));
}

/** Renders any transition; `label` names it in errors. */
export function renderStateTransition(
  label: string,
  transition: StateTransition,
  options: RenderOptions = {},
): RenderedTransition {
  const fail = (problem: string): never => {
    throw new Error(`State transition '${label}': ${problem}`);
  };
  const stepBound = appliesToStep(transition);
  if (stepBound && !options.step) fail('it applies to a step; render it with the step name');
  if (!stepBound && options.step !== undefined) {
    fail(`it applies to no step, but was rendered for step '${options.step}'`);
  }

  const names: Record<string, string> = {};
  const constants: Record<string, string | number | boolean> = {};
  const params: Record<string, { name: string; type: ParamType }> = {};
  const maps: Record<string, Record<string, RenderedMapEntry>> = {};
  const nameParams: Record<string, { name: string; type: ParamType }> = {};
  /** Parameters used only inside map values (they have no placeholder of their own). */
  const mapParams = new Set<string>();
  const declaredType = (name: string): ParamType => {
    const type = transition.params[name];
    if (type === undefined) fail(`parameter '${name}' is used but not declared in params`);
    return type as ParamType;
  };

  const nameOf = (placeholder: string, value: string): string => {
    const existing = names[placeholder];
    if (existing !== undefined && existing !== value) {
      fail(`placeholder ${placeholder} would name both '${existing}' and '${value}'`);
    }
    names[placeholder] = value;
    return placeholder;
  };
  const pathOf = (path: AttributePath): string =>
    path
      .map((segment) => {
        if (segment === THIS_STEP) return nameOf('#step', options.step ?? '');
        if (segment === THIS_ALERT) {
          if (declaredType(ALERT_ID_PARAM) !== 'S')
            fail(`parameter '${ALERT_ID_PARAM}' must be declared 'S'`);
          nameParams[ALERT_NAME_PLACEHOLDER] = { name: ALERT_ID_PARAM, type: 'S' };
          return ALERT_NAME_PLACEHOLDER;
        }
        return nameOf(`#${lowerFirst(segment)}`, segment);
      })
      .join('.');
  const operandOf = (operand: Operand | MapOperand): string => {
    if ('map' in operand) {
      const placeholder = `:${operand.placeholder}`;
      if (!/^:[A-Za-z][A-Za-z0-9]*$/.test(placeholder)) {
        fail(`map placeholder ${JSON.stringify(operand.placeholder)} must be letters and digits`);
      }
      if (placeholder in maps) fail(`placeholder ${placeholder} would hold two maps`);
      const entries: Record<string, RenderedMapEntry> = {};
      for (const [key, value] of Object.entries(operand.map)) {
        if ('param' in value) {
          entries[key] = { param: value.param, type: declaredType(value.param) };
          mapParams.add(value.param);
        } else {
          entries[key] = { constant: value.constant };
        }
      }
      if (Object.keys(entries).length === 0) fail(`map ${placeholder} is empty`);
      maps[placeholder] = entries;
      return placeholder;
    }
    if ('param' in operand) {
      const placeholder = `:${operand.param}`;
      params[placeholder] = { name: operand.param, type: declaredType(operand.param) };
      return placeholder;
    }
    const placeholder = `:${operand.placeholder ?? lowerFirst(String(operand.constant))}`;
    if (!/^:[A-Za-z][A-Za-z0-9]*$/.test(placeholder)) {
      fail(`constant ${JSON.stringify(operand.constant)} needs a placeholder name (letters and digits)`);
    }
    if (placeholder in constants && constants[placeholder] !== operand.constant) {
      fail(`placeholder ${placeholder} would hold both ${constants[placeholder]} and ${operand.constant}`);
    }
    constants[placeholder] = operand.constant;
    return placeholder;
  };
  const conditionOf = (condition: Condition): string => {
    if ('anyOf' in condition) return `(${condition.anyOf.map(conditionOf).join(' OR ')})`;
    if ('exists' in condition) {
      return `${condition.exists ? 'attribute_exists' : 'attribute_not_exists'}(${pathOf(condition.path)})`;
    }
    if ('equals' in condition) return `${pathOf(condition.path)} = ${operandOf(condition.equals)}`;
    return `${pathOf(condition.path)} <= ${operandOf(condition.atMost)}`;
  };

  const fence =
    transition.fence.lockedBy === 'absent'
      ? `attribute_not_exists(${pathOf([StateAttr.LockedBy])})`
      : `${pathOf([StateAttr.LockedBy])} = ${operandOf(transition.fence.lockedBy)}`;
  // Set by setValueOf while the SET clause is rendered (a closure: TypeScript cannot narrow it).
  let appends = false as boolean;
  let ensuresMap = false as boolean;
  const setValueOf = (path: AttributePath, value: SetValue): string => {
    if ('ensureMap' in value) {
      ensuresMap = true;
      return `if_not_exists(${pathOf(path)}, ${EMPTY_MAP_PLACEHOLDER})`;
    }
    if (!('appendList' in value)) return operandOf(value);
    if (transition.params[value.appendList.param] !== 'L') {
      fail(`parameter '${value.appendList.param}' is appended to a list, so it must be declared 'L'`);
    }
    appends = true;
    return `list_append(if_not_exists(${pathOf(path)}, ${EMPTY_LIST_PLACEHOLDER}), ${operandOf(value.appendList)})`;
  };
  const conditionExpression = [fence, ...transition.condition.map(conditionOf)].join(' AND ');
  if (transition.set.length === 0) fail('it sets nothing');
  const clauses = [
    `SET ${transition.set.map(([path, value]) => `${pathOf(path)} = ${setValueOf(path, value)}`).join(', ')}`,
  ];
  if (transition.remove.length > 0) clauses.push(`REMOVE ${transition.remove.map(pathOf).join(', ')}`);

  const placeholders = new Set(Object.keys(params));
  const clash = Object.keys(constants).filter((placeholder) => placeholders.has(placeholder));
  if (clash.length > 0) fail(`placeholders used for both a constant and a parameter: ${clash.join(', ')}`);
  const mapClash = Object.keys(maps).filter((p) => placeholders.has(p) || p in constants);
  if (mapClash.length > 0) fail(`placeholders used for both a map and another value: ${mapClash.join(', ')}`);
  const namingParams = new Set(Object.values(nameParams).map(({ name }) => name));
  const unused = Object.keys(transition.params).filter(
    (name) => !placeholders.has(`:${name}`) && !mapParams.has(name) && !namingParams.has(name),
  );
  if (unused.length > 0) fail(`declared parameters never used: ${unused.join(', ')}`);

  if (appends && (EMPTY_LIST_PLACEHOLDER in constants || EMPTY_LIST_PLACEHOLDER in params)) {
    fail(`${EMPTY_LIST_PLACEHOLDER} is reserved for the empty list an append starts from`);
  }
  if (ensuresMap && (EMPTY_MAP_PLACEHOLDER in constants || EMPTY_MAP_PLACEHOLDER in params)) {
    fail(`${EMPTY_MAP_PLACEHOLDER} is reserved for the empty map an ensureMap SET writes`);
  }
  return {
    updateExpression: clauses.join(' '),
    conditionExpression,
    names,
    constants,
    params,
    maps,
    ...(appends && { emptyLists: [EMPTY_LIST_PLACEHOLDER] }),
    ...(ensuresMap && { emptyMaps: [EMPTY_MAP_PLACEHOLDER] }),
    ...(Object.keys(nameParams).length > 0 && { nameParams }),
  };
}

/** How a caller turns constants and composed maps into its own values (needed when a transition has maps). */
export interface ValueComposer<V> {
  constant(value: string | number | boolean): V;
  map(entries: Readonly<Record<string, V>>): V;
}

/**
 * Binds the caller's values to a rendered transition's parameters: exactly the declared ones, each
 * of its declared type (`typeOf` tells the type of a value on the caller's side), and composes its
 * map values with `compose`. Throws naming every missing, unknown or mistyped parameter.
 */
export function bindParams<V>(
  label: string,
  rendered: RenderedTransition,
  values: Readonly<Record<string, V>>,
  typeOf: (value: V) => ParamType | undefined,
  compose?: ValueComposer<V>,
): Record<string, V> {
  const problems: string[] = [];
  const bound: Record<string, V> = {};
  const checked = new Set<string>();
  const boundValue = (name: string, type: ParamType): V | undefined => {
    const value = values[name];
    if (checked.has(name)) return value;
    checked.add(name);
    if (value === undefined) {
      problems.push(`missing parameter '${name}'`);
      return undefined;
    }
    const actual = typeOf(value);
    if (actual !== type)
      problems.push(`parameter '${name}' must be of type ${type}, got ${actual ?? 'an unknown type'}`);
    return value;
  };
  for (const [placeholder, { name, type }] of Object.entries(rendered.params)) {
    const value = boundValue(name, type);
    if (value !== undefined) bound[placeholder] = value;
  }
  // Parameters that name an attribute are checked here; bindNames puts them in the names.
  for (const { name, type } of Object.values(rendered.nameParams ?? {})) boundValue(name, type);
  for (const [placeholder, entries] of Object.entries(rendered.maps)) {
    if (compose === undefined) {
      problems.push(`map ${placeholder} needs a value composer`);
      continue;
    }
    const composed: Record<string, V> = {};
    for (const [key, entry] of Object.entries(entries)) {
      const value = 'param' in entry ? boundValue(entry.param, entry.type) : compose.constant(entry.constant);
      if (value !== undefined) composed[key] = value;
    }
    bound[placeholder] = compose.map(composed);
  }
  for (const name of Object.keys(values)) {
    if (!checked.has(name)) problems.push(`unknown parameter '${name}'`);
  }
  if (problems.length > 0) throw new Error(`State transition '${label}': ${problems.join('; ')}`);
  return bound;
}

/**
 * The attribute names a rendered transition takes from the caller's values (THIS_ALERT: the
 * alertId), as `nameOf` renders a bound value on the caller's side (bindParams checked them).
 */
export function bindNames<V>(
  rendered: RenderedTransition,
  values: Readonly<Record<string, V>>,
  nameOf: (value: V) => string,
): Record<string, string> {
  const names: Record<string, string> = {};
  for (const [placeholder, { name }] of Object.entries(rendered.nameParams ?? {})) {
    const value = values[name];
    if (value === undefined) throw new Error(`bindNames: missing parameter '${name}'`);
    names[placeholder] = nameOf(value);
  }
  return names;
}

function conditionPaths(condition: Condition): AttributePath[] {
  return 'anyOf' in condition ? condition.anyOf.flatMap(conditionPaths) : [condition.path];
}

function lowerFirst(value: string): string {
  return value.charAt(0).toLowerCase() + value.slice(1);
}
