/**
 * The order's workflow graph (issue 26, item 2), derived from the Amazon States Language definition
 * that ran its latest attempt and the states that attempt entered: pure, so a unit test checks it
 * against the deployed versions' real definitions. Nodes are states, edges their transitions (Next,
 * each Choice branch and Default, each Catch labelled with its errors, a Parallel's or Map's way
 * into its branches and out of them); End is a node with no edge out. The states of a Parallel's
 * branches or a Map's iterator are flattened into the graph (ASL state names are unique across the
 * whole state machine), each naming the state it belongs to. Each node says whether it was entered,
 * how it ended (its last entry) and whether it is a compensation state; each edge whether it was
 * taken.
 */
import type {
  OperatorWorkflowStateRun,
  WorkflowStateOutcome,
} from '../../lambdas/scheduler-agent-supervisor/contracts/operator-workflow';

/** One state of a definition, as much of it as the graph reads. */
interface AslState {
  readonly Type: string;
  readonly Next?: string;
  readonly End?: boolean;
  readonly Default?: string;
  readonly Choices?: readonly { readonly Next?: string }[];
  readonly Catch?: readonly { readonly ErrorEquals?: readonly string[]; readonly Next: string }[];
  readonly Branches?: readonly AslMachine[];
  readonly Iterator?: AslMachine;
  readonly ItemProcessor?: AslMachine;
}

interface AslMachine {
  readonly StartAt: string;
  readonly States: Readonly<Record<string, AslState>>;
}

export type WorkflowEdgeKind = 'next' | 'choice' | 'default' | 'catch' | 'branch' | 'join';

export interface WorkflowNode {
  /** The state's name (unique in the definition). */
  readonly id: string;
  readonly type: string;
  /** The Parallel or Map state whose branch holds it, if any. */
  readonly within?: string;
  /** A state of the compensation path (its name says so: `<Step>.Undo.*`, `*Compensat*`). */
  readonly compensation: boolean;
  /** The times this attempt entered it (a loop enters a state more than once). */
  readonly runs: readonly OperatorWorkflowStateRun[];
  /** How its last entry ended; undefined when never entered. */
  readonly outcome?: WorkflowStateOutcome;
  /** What its box says: the name, and `failed`, `caught` or `running` when it ended so (never colour only). */
  readonly label: string;
  /** Its detail in words: name, type, entered or not, how it ended, error and cause. */
  readonly detail: string;
}

export interface WorkflowEdge {
  readonly id: string;
  readonly from: string;
  readonly to: string;
  readonly kind: WorkflowEdgeKind;
  /** What takes it: `choice 2`, `default`, the Catch's errors. */
  readonly label?: string;
  /** Whether this attempt went this way. */
  readonly taken: boolean;
}

export interface WorkflowGraph {
  readonly startAt: string;
  /** In the definition's order, nested states after the state that holds them. */
  readonly nodes: readonly WorkflowNode[];
  readonly edges: readonly WorkflowEdge[];
  /** The states entered, in order (the text equivalent's list). */
  readonly path: readonly OperatorWorkflowStateRun[];
  /** The definition's states this attempt never entered. */
  readonly notEntered: readonly string[];
  /** Whether the attempt entered a compensation state. */
  readonly compensationTaken: boolean;
  /** The states whose last entry failed. */
  readonly failed: readonly string[];
}

/** The compensation states, as the scheduler names them (lib/scheduler-agent-supervisor/scheduler). */
const COMPENSATION_NAME = /\.Undo\.|Compensat/;

export function isCompensationState(name: string): boolean {
  return COMPENSATION_NAME.test(name);
}

/** Parses a definition's JSON text; throws an Error saying what is wrong with it. */
export function parseDefinition(text: string): AslMachine {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('The workflow definition is not JSON');
  }
  const machine = parsed as Partial<AslMachine> | null;
  if (typeof machine?.StartAt !== 'string' || typeof machine.States !== 'object' || machine.States === null) {
    throw new Error('The workflow definition has no StartAt or States');
  }
  return machine as AslMachine;
}

/** How an entered state ended, in words. */
export function outcomeWords(run: OperatorWorkflowStateRun): string {
  const error = [run.error, run.cause].filter(Boolean).join(': ');
  switch (run.outcome) {
    case 'Succeeded':
      return run.next === undefined ? 'succeeded' : `succeeded, then ${run.next}`;
    case 'Caught':
      return `failed (${error}), caught, then ${run.next ?? '?'}`;
    case 'Failed':
      return error ? `failed: ${error}` : 'failed';
    default:
      return 'running';
  }
}

const OUTCOME_TAG: Readonly<Record<WorkflowStateOutcome, string | undefined>> = {
  Succeeded: undefined,
  Caught: 'caught',
  Failed: 'failed',
  Running: 'running',
};

function detailOf(name: string, state: AslState, runs: readonly OperatorWorkflowStateRun[]): string {
  const last = runs.at(-1);
  const kind = `${state.Type}${isCompensationState(name) ? ', compensation' : ''}`;
  const catches = (state.Catch ?? []).map(
    (handler) => `${(handler.ErrorEquals ?? ['States.ALL']).join(', ')} → ${handler.Next}`,
  );
  const catching = catches.length > 0 ? `; catches ${catches.join('; ')}` : '';
  if (last === undefined) return `${name} (${kind}): not entered${catching}`;
  const times = runs.length > 1 ? `entered ${runs.length} times, last ` : 'entered, ';
  return `${name} (${kind}): ${times}${outcomeWords(last)}${catching}`;
}

/** The graph of `definition` with `path` (the states entered, in order) marked on it. */
export function workflowGraphOf(
  definition: AslMachine,
  path: readonly OperatorWorkflowStateRun[],
): WorkflowGraph {
  const runsOf = new Map<string, OperatorWorkflowStateRun[]>();
  for (const run of path) runsOf.set(run.name, [...(runsOf.get(run.name) ?? []), run]);
  const taken = new Set(
    path.filter((run) => run.next !== undefined).map((run) => `${run.name}\u0000${run.next}`),
  );

  const nodes: WorkflowNode[] = [];
  const edges = new Map<string, { from: string; to: string; kind: WorkflowEdgeKind; labels: string[] }>();
  const addEdge = (from: string, to: string, kind: WorkflowEdgeKind, label?: string) => {
    // One edge per pair of states (a Choice's branch and its Default may both lead to one state).
    const id = `${from}\u0000${to}`;
    const edge = edges.get(id) ?? { from, to, kind, labels: [] };
    if (label !== undefined && !edge.labels.includes(label)) edge.labels.push(label);
    edges.set(id, edge);
  };

  /** Adds a machine's states; returns the states that end it (End: true), for a join. */
  const addMachine = (machine: AslMachine, within?: string): string[] => {
    const ends: string[] = [];
    for (const [name, state] of Object.entries(machine.States)) {
      const runs = runsOf.get(name) ?? [];
      const last = runs.at(-1);
      nodes.push({
        id: name,
        type: state.Type,
        ...(within !== undefined && { within }),
        compensation: isCompensationState(name),
        runs,
        ...(last !== undefined && { outcome: last.outcome }),
        label: [name, last && OUTCOME_TAG[last.outcome]].filter(Boolean).join(' — '),
        detail: detailOf(name, state, runs),
      });
      if (state.Next !== undefined) addEdge(name, state.Next, 'next');
      state.Choices?.forEach((choice, index) => {
        if (choice.Next !== undefined) addEdge(name, choice.Next, 'choice', `choice ${index + 1}`);
      });
      if (state.Default !== undefined) addEdge(name, state.Default, 'default', 'default');
      for (const handler of state.Catch ?? []) {
        addEdge(name, handler.Next, 'catch', (handler.ErrorEquals ?? ['States.ALL']).join(', '));
      }
      const branches = [...(state.Branches ?? []), state.ItemProcessor ?? state.Iterator].filter(
        (branch): branch is AslMachine => branch !== undefined,
      );
      for (const branch of branches) {
        addEdge(name, branch.StartAt, 'branch');
        // Out of a branch: its ends lead back to the state that holds it, which goes on.
        for (const end of addMachine(branch, name)) addEdge(end, name, 'join');
      }
      const terminal = state.End === true || state.Type === 'Succeed' || state.Type === 'Fail';
      if (terminal && state.Type !== 'Fail') ends.push(name);
    }
    return ends;
  };
  addMachine(definition);

  const known = new Set(nodes.map((node) => node.id));
  const edgeList: WorkflowEdge[] = [...edges.entries()]
    // A transition to a state the definition lacks would be refused by Step Functions: never drawn.
    .filter(([, edge]) => known.has(edge.from) && known.has(edge.to))
    .map(([id, edge]) => ({
      id,
      from: edge.from,
      to: edge.to,
      kind: edge.kind,
      ...(edge.labels.length > 0 && { label: edge.labels.join(' / ') }),
      taken: taken.has(`${edge.from}\u0000${edge.to}`),
    }));
  return {
    startAt: definition.StartAt,
    nodes,
    edges: edgeList,
    path,
    notEntered: nodes.filter((node) => node.runs.length === 0).map((node) => node.id),
    compensationTaken: path.some((run) => isCompensationState(run.name)),
    failed: nodes.filter((node) => node.outcome === 'Failed').map((node) => node.id),
  };
}
