/**
 * The vocabulary of a state transition: the paths it names, its operands, conditions and fence, the
 * entry of the table (StateTransition), and what rendering one gives (RenderedTransition). Types and
 * reserved names only; the table is table.ts, the renderer renderer.ts.
 */
import type { CompensationAttr, StateAttr, StepAttr } from '../state-record';

/** DynamoDB type of a parameter: string, number, map or list. */
export type ParamType = 'S' | 'N' | 'M' | 'L';

/**
 * Who applies a transition: the scheduler's are ASL states, the others SDK calls. An agent's are
 * applied on behalf of its execution, fenced on that execution's lock: its step marked Running in
 * the write that reserves its call (lean and compact versions), its step recorded Completed once the
 * call succeeded (compact versions; contracts/workflows.ts).
 */
export type TransitionActor = 'starter' | 'scheduler' | 'agent' | 'supervisor' | 'operator';

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
