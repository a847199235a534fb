/**
 * Renders a transition into the expressions and placeholder tables of an UpdateItem request,
 * deterministically (model.ts's naming rule), checking the entry as it goes: every parameter
 * declared and used, no placeholder holding two values, step transitions rendered for a step.
 */
import { StateAttr } from '../state-record';
import {
  ALERT_ID_PARAM,
  ALERT_NAME_PLACEHOLDER,
  type AttributePath,
  type Condition,
  EMPTY_LIST_PLACEHOLDER,
  EMPTY_MAP_PLACEHOLDER,
  type MapOperand,
  type Operand,
  type ParamType,
  type RenderedMapEntry,
  type RenderedTransition,
  type RenderOptions,
  type SetValue,
  type StateTransition,
  THIS_ALERT,
  THIS_STEP,
} from './model';
import { STATE_TRANSITIONS, type TransitionName } from './table';

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
  const tables = new PlaceholderTables(transition, options.step ?? '', fail);
  const fence =
    transition.fence.lockedBy === 'absent'
      ? `attribute_not_exists(${tables.pathOf([StateAttr.LockedBy])})`
      : `${tables.pathOf([StateAttr.LockedBy])} = ${tables.operandOf(transition.fence.lockedBy)}`;
  const conditionExpression = [fence, ...transition.condition.map((c) => tables.conditionOf(c))].join(
    ' AND ',
  );
  if (transition.set.length === 0) fail('it sets nothing');
  const clauses = [
    `SET ${transition.set.map(([path, value]) => `${tables.pathOf(path)} = ${tables.setValueOf(path, value)}`).join(', ')}`,
  ];
  if (transition.remove.length > 0) {
    clauses.push(`REMOVE ${transition.remove.map((path) => tables.pathOf(path)).join(', ')}`);
  }
  const { names, constants, params, maps, nameParams } = tables;
  const rendered: RenderedTransition = {
    updateExpression: clauses.join(' '),
    conditionExpression,
    names,
    constants,
    params,
    maps,
    ...(tables.appends && { emptyLists: [EMPTY_LIST_PLACEHOLDER] }),
    ...(tables.ensuresMap && { emptyMaps: [EMPTY_MAP_PLACEHOLDER] }),
    ...(Object.keys(nameParams).length > 0 && { nameParams }),
  };
  checkPlaceholders(rendered, transition, tables.mapParams, fail);
  return rendered;
}

/**
 * The placeholder tables of one rendering, filled as its clauses are written: each path segment,
 * operand, condition and SET value becomes an expression over placeholders, and the tables record
 * what each placeholder holds (refusing one that would hold two values).
 */
class PlaceholderTables {
  readonly names: Record<string, string> = {};
  readonly constants: Record<string, string | number | boolean> = {};
  readonly params: Record<string, { name: string; type: ParamType }> = {};
  readonly maps: Record<string, Record<string, RenderedMapEntry>> = {};
  readonly nameParams: Record<string, { name: string; type: ParamType }> = {};
  /** Parameters used only inside map values (they have no placeholder of their own). */
  readonly mapParams = new Set<string>();
  /** Whether a SET appends to a list (its empty list placeholder is then needed). */
  appends = false;
  /** Whether a SET ensures a map exists (its empty map placeholder is then needed). */
  ensuresMap = false;

  constructor(
    private readonly transition: StateTransition,
    private readonly step: string,
    private readonly fail: (problem: string) => never,
  ) {}

  pathOf(path: AttributePath): string {
    return path
      .map((segment) => {
        if (segment === THIS_STEP) return this.nameOf('#step', this.step);
        if (segment === THIS_ALERT) {
          if (this.declaredType(ALERT_ID_PARAM) !== 'S')
            this.fail(`parameter '${ALERT_ID_PARAM}' must be declared 'S'`);
          this.nameParams[ALERT_NAME_PLACEHOLDER] = { name: ALERT_ID_PARAM, type: 'S' };
          return ALERT_NAME_PLACEHOLDER;
        }
        return this.nameOf(`#${lowerFirst(segment)}`, segment);
      })
      .join('.');
  }

  operandOf(operand: Operand | MapOperand): string {
    if ('map' in operand) return this.mapOf(operand);
    if ('param' in operand) {
      const placeholder = `:${operand.param}`;
      this.params[placeholder] = { name: operand.param, type: this.declaredType(operand.param) };
      return placeholder;
    }
    const placeholder = `:${operand.placeholder ?? lowerFirst(String(operand.constant))}`;
    if (!/^:[A-Za-z][A-Za-z0-9]*$/.test(placeholder)) {
      this.fail(`constant ${JSON.stringify(operand.constant)} needs a placeholder name (letters and digits)`);
    }
    if (placeholder in this.constants && this.constants[placeholder] !== operand.constant) {
      this.fail(
        `placeholder ${placeholder} would hold both ${this.constants[placeholder]} and ${operand.constant}`,
      );
    }
    this.constants[placeholder] = operand.constant;
    return placeholder;
  }

  conditionOf(condition: Condition): string {
    if ('anyOf' in condition) return `(${condition.anyOf.map((c) => this.conditionOf(c)).join(' OR ')})`;
    if ('exists' in condition) {
      return `${condition.exists ? 'attribute_exists' : 'attribute_not_exists'}(${this.pathOf(condition.path)})`;
    }
    if ('equals' in condition) return `${this.pathOf(condition.path)} = ${this.operandOf(condition.equals)}`;
    return `${this.pathOf(condition.path)} <= ${this.operandOf(condition.atMost)}`;
  }

  setValueOf(path: AttributePath, value: SetValue): string {
    if ('ensureMap' in value) {
      this.ensuresMap = true;
      return `if_not_exists(${this.pathOf(path)}, ${EMPTY_MAP_PLACEHOLDER})`;
    }
    if (!('appendList' in value)) return this.operandOf(value);
    if (this.transition.params[value.appendList.param] !== 'L') {
      this.fail(`parameter '${value.appendList.param}' is appended to a list, so it must be declared 'L'`);
    }
    this.appends = true;
    return `list_append(if_not_exists(${this.pathOf(path)}, ${EMPTY_LIST_PLACEHOLDER}), ${this.operandOf(value.appendList)})`;
  }

  private mapOf(operand: MapOperand): string {
    const placeholder = `:${operand.placeholder}`;
    if (!/^:[A-Za-z][A-Za-z0-9]*$/.test(placeholder)) {
      this.fail(`map placeholder ${JSON.stringify(operand.placeholder)} must be letters and digits`);
    }
    if (placeholder in this.maps) this.fail(`placeholder ${placeholder} would hold two maps`);
    const entries: Record<string, RenderedMapEntry> = {};
    for (const [key, value] of Object.entries(operand.map)) {
      if ('param' in value) {
        entries[key] = { param: value.param, type: this.declaredType(value.param) };
        this.mapParams.add(value.param);
      } else {
        entries[key] = { constant: value.constant };
      }
    }
    if (Object.keys(entries).length === 0) this.fail(`map ${placeholder} is empty`);
    this.maps[placeholder] = entries;
    return placeholder;
  }

  private nameOf(placeholder: string, value: string): string {
    const existing = this.names[placeholder];
    if (existing !== undefined && existing !== value) {
      this.fail(`placeholder ${placeholder} would name both '${existing}' and '${value}'`);
    }
    this.names[placeholder] = value;
    return placeholder;
  }

  private declaredType(name: string): ParamType {
    const type = this.transition.params[name];
    if (type === undefined) this.fail(`parameter '${name}' is used but not declared in params`);
    return type as ParamType;
  }
}

/**
 * What a rendering must hold once every clause is written: no placeholder holds two kinds of value,
 * every declared parameter is used, and the empty list and map placeholders are free for their use.
 */
function checkPlaceholders(
  rendered: RenderedTransition,
  transition: StateTransition,
  mapParams: ReadonlySet<string>,
  fail: (problem: string) => never,
): void {
  const { constants, params, maps } = rendered;
  const placeholders = new Set(Object.keys(params));
  const clash = Object.keys(constants).filter((placeholder) => placeholders.has(placeholder));
  if (clash.length > 0) fail(`placeholders used for both a constant and a parameter: ${clash.join(', ')}`);
  const mapClash = Object.keys(maps).filter((p) => placeholders.has(p) || p in constants);
  if (mapClash.length > 0) fail(`placeholders used for both a map and another value: ${mapClash.join(', ')}`);
  const namingParams = new Set(Object.values(rendered.nameParams ?? {}).map(({ name }) => name));
  const unused = Object.keys(transition.params).filter(
    (name) => !placeholders.has(`:${name}`) && !mapParams.has(name) && !namingParams.has(name),
  );
  if (unused.length > 0) fail(`declared parameters never used: ${unused.join(', ')}`);

  const reserves = (placeholder: string) => placeholder in constants || placeholder in params;
  if (rendered.emptyLists !== undefined && reserves(EMPTY_LIST_PLACEHOLDER)) {
    fail(`${EMPTY_LIST_PLACEHOLDER} is reserved for the empty list an append starts from`);
  }
  if (rendered.emptyMaps !== undefined && reserves(EMPTY_MAP_PLACEHOLDER)) {
    fail(`${EMPTY_MAP_PLACEHOLDER} is reserved for the empty map an ensureMap SET writes`);
  }
}

function conditionPaths(condition: Condition): AttributePath[] {
  return 'anyOf' in condition ? condition.anyOf.flatMap(conditionPaths) : [condition.path];
}

function lowerFirst(value: string): string {
  return value.charAt(0).toLowerCase() + value.slice(1);
}
