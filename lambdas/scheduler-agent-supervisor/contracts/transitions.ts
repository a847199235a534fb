/**
 * The transitions of the state record, as data: for each one its fence on LockedBy, the rest of
 * its condition, its SET and REMOVE updates, the constants it compares or writes and the
 * parameters its caller binds. Both writers of the store are generated from this table, and a
 * transition is written nowhere else:
 *   - the scheduler's UpdateItem states (JSONPath ASL; parameters bound to execution paths) in
 *     lib/scheduler-agent-supervisor/scheduler/store-updates.ts;
 *   - the starter's and the supervisor's SDK UpdateCommands (parameters bound to request values)
 *     in adapters/state-store.ts.
 *
 * Rendering is deterministic, so both sides send the very same expressions: an attribute's
 * placeholder is `#` + its name in lower camel case (`LockedBy` -> `#lockedBy`), the step a step
 * transition applies to is `#step`, a constant's is `:` + its value in lower camel case
 * (`Processing` -> `:processing`) unless the constant names one, a parameter's is `:` + its name.
 */
import { StateAttr, StepAttr } from './state-record';
import { ProcessState, StepStatus } from './states';

/** DynamoDB type of a parameter: string, number, map or list. */
export type ParamType = 'S' | 'N' | 'M' | 'L';

/** Who applies a transition: the scheduler's are ASL states, the others SDK calls. */
export type TransitionActor = 'starter' | 'scheduler' | 'supervisor' | 'operator';

/** Stands for the step a step transition applies to (`Steps.<step>`); named when rendered. */
export const THIS_STEP = '<step>';

type StateAttrName = (typeof StateAttr)[keyof typeof StateAttr];
type StepAttrName = (typeof StepAttr)[keyof typeof StepAttr];

/** A top-level attribute of the record, or an attribute of the step the transition applies to. */
export type AttributePath =
  | readonly [StateAttrName]
  | readonly [typeof StateAttr.Steps, typeof THIS_STEP, StepAttrName];

/** A value written into the expression's values as is. */
export interface Constant {
  readonly constant: string | number;
  /** Placeholder name without `:`. @default - the value in lower camel case */
  readonly placeholder?: string;
}

/** A value the caller binds: an execution path in ASL, a request value in the SDK. */
export interface Param<P extends string = string> {
  readonly param: P;
}

/**
 * SET only: the list the caller binds, appended to the list attribute being set, which is created
 * empty when absent: `list_append(if_not_exists(<path>, :emptyList), :<param>)`. An append never
 * reads what it extends, so a log grows without its writer having seen it.
 */
export interface AppendToList<P extends string = string> {
  readonly appendList: Param<P>;
}

export type Operand<P extends string = string> = Constant | Param<P>;
/** What a SET clause writes: an operand, or an append to the list it sets. */
export type SetValue<P extends string = string> = Operand<P> | AppendToList<P>;

export type Condition<P extends string = string> =
  | { readonly path: AttributePath; readonly equals: Operand<P> }
  | { readonly path: AttributePath; readonly atMost: Operand<P> }
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
const constant = (value: string | number, placeholder?: string): Constant =>
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
      workflowVersion: 'N',
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
      [attr(StateAttr.WorkflowVersion), param('workflowVersion')],
      [attr(StateAttr.Plan), param('plan')],
      [attr(StateAttr.CompleteBy), param('completeBy')],
      [attr(StateAttr.UpdatedAt), param('now')],
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

  /** Scheduler: a step starts; its deadline is the one planned at claim time. */
  markStepRunning: transition({
    by: 'scheduler',
    summary: 'The step is Running; CompleteBy is its planned deadline',
    params: { instanceId: 'S', completeBy: 'N', now: 'S' },
    fence: HELD_BY_THIS_EXECUTION,
    condition: [isProcessing],
    set: [
      [stepAttr(StepAttr.Status), constant(StepStatus.Running)],
      [stepAttr(StepAttr.StartedAt), param('now')],
      [attr(StateAttr.CompleteBy), param('completeBy')],
      [attr(StateAttr.UpdatedAt), param('now')],
    ],
    remove: [],
  }),

  /** Scheduler: a step completed; a later attempt never redoes it. */
  markStepCompleted: transition({
    by: 'scheduler',
    summary: 'The step is Completed, with the result its agent returned',
    params: { instanceId: 'S', result: 'M', now: 'S' },
    fence: HELD_BY_THIS_EXECUTION,
    condition: [isProcessing],
    set: [
      [stepAttr(StepAttr.Status), constant(StepStatus.Completed)],
      [stepAttr(StepAttr.CompletedAt), param('now')],
      [stepAttr(StepAttr.Result), param('result')],
      [attr(StateAttr.UpdatedAt), param('now')],
    ],
    remove: [],
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

  /** Scheduler: an agent failed for good (MISSION item 8). */
  markError: transition({
    by: 'scheduler',
    summary: 'A step failed for good: Error, with the reason, unlocked, out of the supervisor index',
    params: { instanceId: 'S', lastError: 'M', now: 'S' },
    fence: HELD_BY_THIS_EXECUTION,
    condition: [isProcessing],
    set: [
      [attr(StateAttr.ProcessState), constant(ProcessState.Error)],
      [attr(StateAttr.LastError), param('lastError')],
      [attr(StateAttr.UpdatedAt), param('now')],
    ],
    remove: [attr(StateAttr.LockedBy), attr(StateAttr.DueShard)],
  }),

  /** Supervisor: an attempt expired below the failure threshold (fenced on that attempt). */
  resetExpired: transition({
    by: 'supervisor',
    summary:
      'The expired attempt the supervisor read: Pending again, unlocked, one more failure, after a back-off',
    params: {
      seenLock: 'S',
      seenCompleteBy: 'N',
      seenFailureCount: 'N',
      failureCount: 'N',
      completeBy: 'N',
      now: 'S',
    },
    ...EXPIRED_ATTEMPT,
    set: [
      [attr(StateAttr.ProcessState), constant(ProcessState.Pending)],
      [attr(StateAttr.FailureCount), param('failureCount')],
      [attr(StateAttr.CompleteBy), param('completeBy')],
      [attr(StateAttr.UpdatedAt), param('now')],
    ],
    remove: [attr(StateAttr.LockedBy)],
  }),

  /** Supervisor: an attempt expired at the failure threshold (same fence as resetExpired). */
  failExpired: transition({
    by: 'supervisor',
    summary:
      'The expired attempt the supervisor read, at the threshold: Error, unlocked, out of the supervisor index',
    params: {
      seenLock: 'S',
      seenCompleteBy: 'N',
      seenFailureCount: 'N',
      failureCount: 'N',
      lastError: 'M',
      now: 'S',
    },
    ...EXPIRED_ATTEMPT,
    set: [
      [attr(StateAttr.ProcessState), constant(ProcessState.Error)],
      [attr(StateAttr.FailureCount), param('failureCount')],
      [attr(StateAttr.LastError), param('lastError')],
      [attr(StateAttr.UpdatedAt), param('now')],
    ],
    remove: [attr(StateAttr.LockedBy), attr(StateAttr.DueShard)],
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
  readonly constants: Readonly<Record<string, string | number>>;
  /** `:placeholder` -> the parameter the caller binds, with its type. */
  readonly params: Readonly<Record<string, { readonly name: string; readonly type: ParamType }>>;
  /**
   * Placeholders that stand for an empty list (the start of an appended list, see AppendToList).
   * @default - none (only transitions that append have them)
   */
  readonly emptyLists?: readonly string[];
}

/** Placeholder of the empty list an append starts from. */
export const EMPTY_LIST_PLACEHOLDER = ':emptyList';

export interface RenderOptions {
  /** The step a step transition applies to (required for those, refused for the others). */
  readonly step?: string;
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
  return paths.some((path) => path.length > 1);
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
  const constants: Record<string, string | number> = {};
  const params: Record<string, { name: string; type: ParamType }> = {};

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
      .map((segment) =>
        segment === THIS_STEP
          ? nameOf('#step', options.step ?? '')
          : nameOf(`#${lowerFirst(segment)}`, segment),
      )
      .join('.');
  const operandOf = (operand: Operand): string => {
    if ('param' in operand) {
      const type = transition.params[operand.param];
      if (type === undefined) fail(`parameter '${operand.param}' is used but not declared in params`);
      const placeholder = `:${operand.param}`;
      params[placeholder] = { name: operand.param, type: type as ParamType };
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
    if ('equals' in condition) return `${pathOf(condition.path)} = ${operandOf(condition.equals)}`;
    return `${pathOf(condition.path)} <= ${operandOf(condition.atMost)}`;
  };

  const fence =
    transition.fence.lockedBy === 'absent'
      ? `attribute_not_exists(${pathOf([StateAttr.LockedBy])})`
      : `${pathOf([StateAttr.LockedBy])} = ${operandOf(transition.fence.lockedBy)}`;
  // Set by setValueOf while the SET clause is rendered (a closure: TypeScript cannot narrow it).
  let appends = false as boolean;
  const setValueOf = (path: AttributePath, value: SetValue): string => {
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
  const unused = Object.keys(transition.params).filter((name) => !placeholders.has(`:${name}`));
  if (unused.length > 0) fail(`declared parameters never used: ${unused.join(', ')}`);

  if (appends && (EMPTY_LIST_PLACEHOLDER in constants || EMPTY_LIST_PLACEHOLDER in params)) {
    fail(`${EMPTY_LIST_PLACEHOLDER} is reserved for the empty list an append starts from`);
  }
  return {
    updateExpression: clauses.join(' '),
    conditionExpression,
    names,
    constants,
    params,
    ...(appends && { emptyLists: [EMPTY_LIST_PLACEHOLDER] }),
  };
}

/**
 * Binds the caller's values to a rendered transition's parameters: exactly the declared ones, each
 * of its declared type (`typeOf` tells the type of a value on the caller's side). Throws naming
 * every missing, unknown or mistyped parameter.
 */
export function bindParams<V>(
  label: string,
  rendered: RenderedTransition,
  values: Readonly<Record<string, V>>,
  typeOf: (value: V) => ParamType | undefined,
): Record<string, V> {
  const problems: string[] = [];
  const bound: Record<string, V> = {};
  const declared = new Set(Object.values(rendered.params).map((p) => p.name));
  for (const [placeholder, { name, type }] of Object.entries(rendered.params)) {
    const value = values[name];
    if (value === undefined) {
      problems.push(`missing parameter '${name}'`);
      continue;
    }
    const actual = typeOf(value);
    if (actual !== type)
      problems.push(`parameter '${name}' must be of type ${type}, got ${actual ?? 'an unknown type'}`);
    bound[placeholder] = value;
  }
  for (const name of Object.keys(values)) {
    if (!declared.has(name)) problems.push(`unknown parameter '${name}'`);
  }
  if (problems.length > 0) throw new Error(`State transition '${label}': ${problems.join('; ')}`);
  return bound;
}

function conditionPaths(condition: Condition): AttributePath[] {
  return 'anyOf' in condition ? condition.anyOf.flatMap(conditionPaths) : [condition.path];
}

function lowerFirst(value: string): string {
  return value.charAt(0).toLowerCase() + value.slice(1);
}
