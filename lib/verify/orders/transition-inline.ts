/**
 * One transition of STATE_TRANSITIONS as a Promela inline: its fence and condition become the guard,
 * its SET and REMOVE clauses the assignments, applied in one atomic step as DynamoDB applies one
 * conditional UpdateItem. Nothing here is written per transition: change a condition in the table
 * and the generated inline changes with it.
 */
import type {
  AttributePath,
  Condition,
  Operand,
  SetValue,
  StateTransition,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { symbolOf } from './promela-symbols';
import { type Encoding, encodingOf, pathKey, STEP_INDEX } from './record-encoding';

/** A transition as the model applies it: the table's entry, possibly a broken variant of it. */
export type ModelTransition = Omit<StateTransition, 'fence'> & {
  /** @default - no fence (only a broken variant lacks one) */
  readonly fence?: StateTransition['fence'];
};

/**
 * What the model composer adds to a transition: properties (Promela expressions) asserted before and
 * after its write. A write that breaks one first prints itself, so a trail ends with the write that
 * broke the property (its actor's own line comes after the write, and is never reached).
 */
export interface TransitionChecks {
  /** Asserted on the state before the write, once its guard held. */
  readonly before: readonly string[];
  /** Asserted on the state after the write. */
  readonly after: readonly string[];
}

/** Asserts `properties`, after printing `what` as the trail's last step if one of them fails. */
function asserted(properties: readonly string[], what: string): string[] {
  if (properties.length === 0) return [];
  const all = properties.map((property) => `(${property})`).join(' && ');
  return [
    `if :: !(${all}) -> printf("@@ ${what} and breaks a property\\n", g_writer) :: else -> skip fi`,
    ...properties.map((property) => `assert(${property})`),
  ];
}

/** A rendered inline, with the parameters its caller binds (in order) and the paths it left out. */
export interface RenderedInline {
  readonly name: string;
  readonly params: readonly string[];
  readonly source: string;
  readonly leftOut: readonly string[];
}

const PHASE_CLAIMABLE = 'PHASE_CLAIMABLE';

function variableOf(encoding: Encoding, step: number | undefined): string {
  const variable = encoding.variable;
  if (!variable.includes(STEP_INDEX)) return variable;
  if (step === undefined) throw new Error(`'${variable}' is a step's attribute, and no step was given`);
  return variable.replace(STEP_INDEX, String(step));
}

class InlineBuilder {
  readonly used = new Set<string>();
  readonly leftOut: string[] = [];

  constructor(
    private readonly name: string,
    private readonly step: number | undefined,
  ) {}

  operand(operand: Operand): string {
    if ('param' in operand) {
      this.used.add(operand.param);
      return `p_${operand.param}`;
    }
    const value = operand.constant;
    if (typeof value === 'string') return symbolOf(value);
    if (typeof value === 'boolean') return value ? '1' : '0';
    return String(value);
  }

  private encoded(path: AttributePath, role: string): Encoding {
    const encoding = encodingOf(path);
    if (encoding === undefined) {
      throw new Error(
        `${this.name}: its ${role} names ${pathKey(path)}, which the orders model leaves out; encode it in record-encoding.ts`,
      );
    }
    return encoding;
  }

  condition(condition: Condition): string {
    if ('anyOf' in condition) {
      return `(${condition.anyOf.map((clause) => this.condition(clause)).join(' || ')})`;
    }
    const encoding = this.encoded(condition.path, 'condition');
    const variable = variableOf(encoding, this.step);
    if ('equals' in condition) {
      if (encoding.kind !== 'value' && encoding.kind !== 'deadline') {
        throw new Error(`${this.name}: an equality on ${pathKey(condition.path)} (${encoding.kind})`);
      }
      return `(${variable} == ${this.operand(condition.equals)})`;
    }
    if ('atMost' in condition) {
      // CompleteBy <= now + start grace: the deadline's back-off is over (or it has passed).
      if (encoding.kind !== 'deadline') throw new Error(`${this.name}: atMost on ${pathKey(condition.path)}`);
      this.operand(condition.atMost);
      return `(${encoding.phase} >= ${PHASE_CLAIMABLE})`;
    }
    // Every encoding holds 0 for absent.
    return condition.exists ? `(${variable} != 0)` : `(${variable} == 0)`;
  }

  set(path: AttributePath, value: SetValue): string[] {
    const encoding = encodingOf(path);
    if (encoding === undefined) {
      this.leftOut.push(pathKey(path));
      return [];
    }
    const variable = variableOf(encoding, this.step);
    if ('appendList' in value || 'ensureMap' in value) {
      throw new Error(`${this.name}: ${pathKey(path)} is modelled, and an append or ensureMap cannot be`);
    }
    switch (encoding.kind) {
      case 'value':
        if ('map' in value) throw new Error(`${this.name}: a map written into the value ${pathKey(path)}`);
        return [`${variable} = ${this.operand(value)}`];
      case 'flag':
        if (!('map' in value)) this.operand(value);
        return [`${variable} = 1`];
      case 'deadline':
        if ('map' in value) throw new Error(`${this.name}: a map written into the deadline ${pathKey(path)}`);
        return [`${variable} = ${this.operand(value)}`, `${encoding.phase} = 0`];
      case 'named-entry':
        this.used.add(encoding.nameParam);
        return [`${variable} = p_${encoding.nameParam}`];
      case 'entry': {
        if (!('map' in value)) throw new Error(`${this.name}: ${pathKey(path)} is written whole, as a map`);
        const fields = Object.entries(encoding.fields).map(([field, fieldVariable]) => {
          const entry = value.map[field];
          const target = fieldVariable.replace(STEP_INDEX, String(this.step));
          return `${target} = ${entry === undefined ? '0' : this.operand(entry)}`;
        });
        return [`${variable} = 1`, ...fields];
      }
    }
  }

  remove(path: AttributePath): string[] {
    const encoding = encodingOf(path);
    if (encoding === undefined) {
      this.leftOut.push(pathKey(path));
      return [];
    }
    if (encoding.kind === 'deadline')
      throw new Error(`${this.name}: REMOVE of the deadline ${pathKey(path)}`);
    const variable = variableOf(encoding, this.step);
    const fields =
      encoding.kind === 'entry'
        ? Object.values(encoding.fields).map((field) => `${field.replace(STEP_INDEX, String(this.step))} = 0`)
        : [];
    return [`${variable} = 0`, ...fields];
  }
}

/** The Promela name of transition `name` (applied to step `step`, for a step transition). */
export function inlineName(name: string, step?: number): string {
  return step === undefined ? `T_${name}` : `T_${name}_${step}`;
}

/**
 * Renders `transition` as `inline T_<name>[_<step>](p_<param>..., ok)`: ok is 1 when the write landed,
 * 0 when its condition failed (and nothing changed). `tick` is this write's fresh stamp (FRESH_STAMP):
 * a parameter bound to it stamps this write (UpdatedAt, ProgressAt, a new CompleteBy).
 */
export function renderTransition(
  name: string,
  transition: ModelTransition,
  checks: TransitionChecks,
  step?: number,
): RenderedInline {
  const inline = inlineName(name, step);
  const builder = new InlineBuilder(inline, step);
  const fence = transition.fence;
  const guard = [
    ...(fence === undefined
      ? []
      : [
          fence.lockedBy === 'absent'
            ? '(r_LockedBy == 0)'
            : `(r_LockedBy == ${builder.operand(fence.lockedBy)})`,
        ]),
    ...transition.condition.map((condition) => builder.condition(condition)),
  ];
  const writes = [
    ...transition.set.flatMap(([path, value]) => builder.set(path, value)),
    ...transition.remove.flatMap((path) => builder.remove(path)),
  ];
  const params = Object.keys(transition.params).filter((param) => builder.used.has(param));
  const body = [
    't_pre = r_ProcessState',
    'FRESH_STAMP()',
    ...asserted(checks.before, `${inline} (by the ${transition.by}, writer %d) would land`),
    ...writes,
    ...asserted(checks.after, `${inline} (by the ${transition.by}, writer %d) lands`),
    'ok = 1',
  ];
  const source = [
    `/* ${name}${step === undefined ? '' : ` (step ${step})`}, by the ${transition.by}: ${transition.summary} */`,
    `inline ${inline}(${[...params.map((param) => `p_${param}`), 'ok'].join(', ')}) {`,
    '  atomic {',
    '    if',
    `    :: ${guard.length === 0 ? 'true' : guard.join(' &&\n       ')} ->`,
    ...body.map((statement) => `       ${statement};`),
    '    :: else -> ok = 0',
    '    fi',
    '  }',
    '}',
  ].join('\n');
  return { name: inline, params, source, leftOut: [...new Set(builder.leftOut)] };
}
