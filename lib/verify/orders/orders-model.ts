/**
 * Composes the orders model (DESIGN.md "Model-checked"): the record's variables, every transition of
 * the table rendered as an inline (per step for the step transitions), the reservation's guard, the
 * supervisor's decision table, the properties, and the actors that bind each write by parameter name.
 */
import {
  THIS_STEP,
  workflowShape,
  workflowSteps,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import type { SpinModel } from '../spin';
import { actorsSource, REPLY_DEFINES } from './actors';
import type { CallTransition } from './actors-context';
import { maxAttempt, type OrdersBounds, resolveOrdersBounds } from './orders-bounds';
import { ORDERS_PROTOCOL, type OrdersProtocol } from './orders-protocol';
import { symbolDefines } from './promela-symbols';
import { recordDeclarations } from './record-encoding';
import { reservationGuard } from './reservation-guard';
import { decisionDefines, modelTimings, supervisionTable } from './supervision-table';
import {
  inlineName,
  type ModelTransition,
  type RenderedInline,
  renderTransition,
  type TransitionChecks,
} from './transition-inline';

/** The properties the orders model asserts, for people (the docs quote them). */
export const ORDERS_PROPERTIES: readonly string[] = [
  'Only the lock holder writes: every write of an execution or of its agent lands only while that execution holds the lock.',
  'The supervisor ends only an attempt whose deadline has passed.',
  'An effect is performed at most once per idempotency key, and never on an order that is Compensated.',
  'Every effect of a Compensated order is undone, exactly once, after the effects of every later step.',
  'Calls never exceed the retry budget of their operation.',
  'Terminal states stay terminal: Compensated is final; Processed, Error and CompensationFailed change only by an operator action.',
  'Accepted work is never lost: a record is in the supervisor index exactly when it is not settled, and a settled record is unlocked.',
  'A failed order (Error, CompensationFailed) carries the alert of its attempt.',
  'No actor blocks where it may not stop (no invalid end state).',
  'Liveness, under weak fairness: every accepted order settles for good (Processed, Compensated, Error or CompensationFailed).',
];

const SETTLED =
  '(r_ProcessState == S_Processed || r_ProcessState == S_Compensated || r_ProcessState == S_Error || r_ProcessState == S_CompensationFailed)';

function isStepTransition(transition: ModelTransition): boolean {
  const paths = [
    ...transition.condition.flatMap(function paths(condition): readonly (readonly string[])[] {
      return 'anyOf' in condition ? condition.anyOf.flatMap(paths) : [condition.path];
    }),
    ...transition.set.map(([path]) => path),
    ...transition.remove,
  ];
  return paths.some((path) => path.includes(THIS_STEP));
}

/** The properties that hold in every state a write leaves (`allUndone`: every effect is undone). */
function invariants(allUndone: string): string[] {
  return [
    'IS_SETTLED(r_ProcessState) == (r_DueShard == 0)',
    '!IS_SETTLED(r_ProcessState) || r_LockedBy == 0',
    '!(r_ProcessState == S_Error || r_ProcessState == S_CompensationFailed) || r_Alert == r_Attempt',
    `r_ProcessState != S_Compensated || (${allUndone})`,
  ];
}

function checksFor(transition: ModelTransition, allUndone: string): TransitionChecks {
  const before: string[] = [];
  if (transition.by === 'scheduler' || transition.by === 'agent') before.push('r_LockedBy == g_writer');
  if (transition.by === 'supervisor') before.push('r_CompleteByPhase == PHASE_DUE');
  const after = ['t_pre != S_Compensated || r_ProcessState == S_Compensated'];
  if (transition.by !== 'operator') after.push('!IS_SETTLED(t_pre) || r_ProcessState == t_pre');
  return { before, after: [...after, ...invariants(allUndone)] };
}

interface Rendered {
  readonly inlines: string[];
  readonly byName: Map<
    string,
    { readonly params: readonly string[]; readonly perStep: boolean; readonly by: string }
  >;
  readonly leftOut: Set<string>;
}

function renderAll(transitions: OrdersProtocol['transitions'], steps: number): Rendered {
  const allUndone = Array.from(
    { length: steps },
    (_, step) => `(effect[${step}] != 1 || undone[${step}] == 1)`,
  ).join(' && ');
  const inlines: string[] = [];
  const byName = new Map<string, { params: readonly string[]; perStep: boolean; by: string }>();
  const leftOut = new Set<string>();
  for (const [name, transition] of Object.entries(transitions)) {
    const checks = checksFor(transition, allUndone);
    if (!isStepTransition(transition)) {
      const rendered = renderTransition(name, transition, checks);
      inlines.push(rendered.source);
      for (const path of rendered.leftOut) leftOut.add(path);
      byName.set(name, { params: rendered.params, perStep: false, by: transition.by });
      continue;
    }
    const perStep: RenderedInline[] = [];
    for (let step = 0; step < steps; step++) perStep.push(renderTransition(name, transition, checks, step));
    const params = perStep[0]?.params ?? [];
    inlines.push(...perStep.map((rendered) => rendered.source));
    for (const rendered of perStep) for (const path of rendered.leftOut) leftOut.add(path);
    const args = [...params.map((param) => `p_${param}`), 'ok'].join(', ');
    inlines.push(
      [
        `inline D_${name}(step, ${args}) {`,
        '  if',
        ...perStep.map((_, step) => `  :: step == ${step} -> ${inlineName(name, step)}(${args})`),
        '  fi',
        '}',
      ].join('\n'),
    );
    byName.set(name, { params, perStep: true, by: transition.by });
  }
  return { inlines, byName, leftOut };
}

function binder(rendered: Rendered): CallTransition {
  return (name, bindings, options = {}) => {
    const entry = rendered.byName.get(name);
    if (entry === undefined)
      throw new Error(`The orders model calls transition '${name}', which the table does not have`);
    const missing = entry.params.filter((param) => bindings[param] === undefined);
    if (missing.length > 0) {
      throw new Error(
        `The orders model calls '${name}' without binding ${missing.join(', ')}: bind it in actors.ts`,
      );
    }
    if (entry.perStep !== (options.step !== undefined)) {
      throw new Error(`The orders model calls '${name}' ${entry.perStep ? 'without' : 'with'} a step`);
    }
    const args = [...entry.params.map((param) => bindings[param] as string), 'ok'].join(', ');
    const writer = options.writer === undefined ? '' : `g_writer = ${options.writer}; `;
    return options.step === undefined
      ? `${writer}${inlineName(name)}(${args});`
      : `${writer}D_${name}(${options.step}, ${args});`;
  };
}

/** The orders model of `protocol` (the code's, unless a broken variant's) within `bounds`. */
// long-function: one Promela template, the model read top to bottom (declarations, inlines, actors, init)
export function ordersModel(
  protocol: OrdersProtocol = ORDERS_PROTOCOL,
  options: { readonly bounds?: OrdersBounds; readonly name?: string } = {},
): SpinModel {
  const bounds = resolveOrdersBounds(options.bounds);
  const shape = workflowShape(protocol.workflowVersion);
  const stepNames = workflowSteps(protocol.workflowVersion).map((step) => step.name);
  if (bounds.steps > stepNames.length) {
    throw new Error(
      `Workflow version ${protocol.workflowVersion} has ${stepNames.length} steps; the bounds ask for ${bounds.steps}`,
    );
  }
  const steps = bounds.steps;
  const maxId = maxAttempt(bounds);
  const rendered = renderAll(protocol.transitions, steps);
  const call = binder(rendered);
  const timings = modelTimings(bounds.maxFailures, bounds.maxCompensationFailures);
  const source = `/* The orders protocol: workflow version ${protocol.workflowVersion} (${shape}), steps ${stepNames.slice(0, steps).join(', ')}.
   Generated by lib/verify/orders from the code's transition table, retry budget reservation,
   supervisor rule and workflow version: do not edit. Left out (written, never read by a guard):
   ${[...rendered.leftOut].sort().join(', ')}. */
${symbolDefines()}
#define STEPS ${steps}
#define BUDGET ${bounds.budget}
#define AGENT_CALLS ${bounds.agentCalls}
#define MAX_ID ${maxId}
#define MAX_HINTS 2
#define PHASE_CLAIMABLE 1
#define PHASE_DUE 2
#define IS_SETTLED(ps) (ps == S_Processed || ps == S_Compensated || ps == S_Error || ps == S_CompensationFailed)
#define RESERVE_GUARD ${reservationGuard(protocol.reservation)}
${REPLY_DEFINES}
${decisionDefines()}

${recordDeclarations(steps)}
byte tick = 1;
byte m_claimedAt[${bounds.starters}];
byte m_seenUpdatedAt = 0;
byte m_seenCompleteBy = 0;
mtype t_pre;
byte g_writer;
byte j;
byte hints = 1;
byte calls[STEPS * 2];
bit stored[STEPS * 2];
byte effect[STEPS];
byte performed[STEPS];
bit closed[STEPS];
byte undo[STEPS];
byte undone[STEPS];
bit started[MAX_ID + 1];
byte waitTok[MAX_ID + 1];
byte reply[MAX_ID + 1];
mtype in_ps[MAX_ID + 1];
mtype in_StepStatus[(MAX_ID + 1) * STEPS];
bit in_Log[(MAX_ID + 1) * STEPS];
mtype in_LogStatus[(MAX_ID + 1) * STEPS];
byte crashes = ${bounds.crashes};
byte duplicates = ${bounds.duplicates};
byte losses = ${bounds.losses};
byte startFailures = ${bounds.startFailures};
byte retries = ${bounds.operatorRetries};
byte compensationRetries = ${bounds.operatorCompensationRetries};
byte cancels = ${bounds.operatorCancels};
chan agentq = [${Math.min(maxId, 4)}] of { byte, byte, byte };

/* A stamp (UpdatedAt, ProgressAt, CompleteBy) for this write: the smallest value no field and no
   actor's memory holds, so it equals none of them, as a new time would; values nobody holds any more
   are reused, which keeps the state space finite. */
inline FRESH_STAMP() {
  tick = 1;
  do
  :: tick == r_UpdatedAt || tick == r_ProgressAt || tick == r_CompleteBy || tick == m_seenUpdatedAt ||
     tick == m_seenCompleteBy${Array.from({ length: bounds.starters }, (_, index) => ` || tick == m_claimedAt[${index}]`).join('')} -> tick++
  :: else -> break
  od
}

/* An undo lands only once every later step's effect is undone (compensation runs in reverse order). */
inline UNDO_ORDER_CHECK(step) {
  for (j : step + 1 .. STEPS - 1) {
    if :: !(effect[j] != 1 || undone[j] == 1) -> printf("@@ remote service of step %d undoes before step %d is undone\\n", step, j) :: else -> skip fi;
    assert(effect[j] != 1 || undone[j] == 1)
  }
}

${supervisionTable(protocol.supervision, timings)}

${rendered.inlines.join('\n\n')}
${actorsSource({ bounds, call, maxId, shape })}

init {
  byte i;
  atomic {
    for (i : 0 .. STEPS - 1) { r_StepStatus[i] = S_NotStarted }
    r_CompleteBy = 1; r_UpdatedAt = 1; r_ProgressAt = 1;
    ${Array.from({ length: bounds.starters }, (_, index) => `run starter(${index});`).join(' ')}
    ${Array.from({ length: bounds.agents }, () => 'run agent();').join(' ')}
    run supervisor(); run operator(); run clock()
  }
}

ltl settles { <> [] ${SETTLED} }
`;
  return {
    name: options.name ?? 'orders',
    source,
    bounds: { ...bounds, attempts: maxId },
    properties: ORDERS_PROPERTIES,
    liveness: ['settles'],
  };
}
