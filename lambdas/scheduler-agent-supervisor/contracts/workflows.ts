import { ORDER_STEPS, type OrderStep, type StepName } from './steps';

/**
 * The shape of a version's state machine (DESIGN.md "Workflow versions", "Lean shape"):
 *   - `classic`: LoadStateRecord -> LoadOrder -> CheckLock -> per step `<Step>.Check` (skip a step an
 *     earlier attempt completed) -> `<Step>.MarkRunning` -> `<Step>.CallAgent` -> `<Step>.MarkCompleted`;
 *   - `lean`: the order comes in the execution input (no LoadOrder), CheckLock routes straight to the
 *     first step not completed (no `<Step>.Check`), and the agent marks its step Running in the
 *     conditional write that reserves its call (no `<Step>.MarkRunning`): 2 transitions per step
 *     instead of 4, and one fewer fixed;
 *   - `compact`: lean, and the agent also records its step Completed (the result, the compensation
 *     log entry, CompleteBy handed to the next step's deadline) in one fenced conditional write once
 *     its call succeeded, before it answers; the last step's write also makes the order Processed.
 *     The starter puts the claimed record in the execution input (no LoadStateRecord), and the
 *     state machine goes from one agent call to the next: 1 transition per step, and 2 fixed
 *     (CheckLock, the end).
 * The agent and the starter act per request, so executions of every shape run side by side.
 */
export type WorkflowShape = 'classic' | 'lean' | 'compact';

/**
 * Whether a shape's executions get the order in their input (no LoadOrder) and have the agent mark
 * each step Running in the write that reserves its call: every shape but `classic`.
 */
export function isLeanShape(shape: WorkflowShape): boolean {
  return shape !== 'classic';
}

/** A version: the steps it runs, in order, and the shape of its state machine. */
export interface WorkflowVersionDefinition {
  readonly steps: readonly StepName[];
  readonly shape: WorkflowShape;
}

const V1_STEPS = ['ReserveInventory', 'ChargePayment', 'ScheduleShipping'] as const;
const V2_STEPS = [...V1_STEPS, 'AwardLoyaltyPoints'] as const;

/**
 * Workflow versions (MISSION item 12): what each version runs (steps and shape), by version number.
 * An order keeps the version it was submitted on (StateAttr.WorkflowVersion) for its whole life, so
 * a version's entry is never edited once deployed: changed steps or a changed shape is a new
 * version. Each version deployed at the same time gets its own state machine
 * (lib/scheduler-agent-supervisor, DESIGN.md "Workflow versions"), generated from this entry.
 */
export const WORKFLOW_VERSIONS = {
  1: { steps: V1_STEPS, shape: 'classic' },
  2: { steps: V2_STEPS, shape: 'classic' },
  3: { steps: V1_STEPS, shape: 'lean' },
  4: { steps: V2_STEPS, shape: 'lean' },
  5: { steps: V1_STEPS, shape: 'compact' },
  6: { steps: V2_STEPS, shape: 'compact' },
} as const satisfies Readonly<Record<number, WorkflowVersionDefinition>>;

/** A workflow version this code knows (a key of WORKFLOW_VERSIONS). */
export type WorkflowVersion = keyof typeof WORKFLOW_VERSIONS;

/** Every version this code knows, ascending. */
export const KNOWN_WORKFLOW_VERSIONS: readonly WorkflowVersion[] = Object.keys(WORKFLOW_VERSIONS)
  .map(Number)
  .sort((a, b) => a - b) as WorkflowVersion[];

/**
 * The version new orders get unless the deployment says otherwise (CDK context `workflowVersion`):
 * every profile's `workflow.current` default. v5: v1's steps in the compact shape (one state
 * transition per step; the agents record their steps' completions).
 */
export const DEFAULT_WORKFLOW_VERSION: WorkflowVersion = 5;

/**
 * The versions every profile deploys by default: the current one, and the previous defaults (v3,
 * and v1 before it), so orders in flight when a deployment upgrades finish (or are retried) on
 * their own version's state machine. Retire the older ones (`-c retireWorkflowVersionsBefore=5`)
 * once no non-terminal order is on them.
 */
export const DEFAULT_LIVE_WORKFLOW_VERSIONS: readonly WorkflowVersion[] = [1, 3, DEFAULT_WORKFLOW_VERSION];

export function isKnownWorkflowVersion(version: unknown): version is WorkflowVersion {
  return typeof version === 'number' && Object.hasOwn(WORKFLOW_VERSIONS, version);
}

function knownVersion(version: number): WorkflowVersion {
  if (!isKnownWorkflowVersion(version)) {
    throw new Error(
      `Unknown workflow version ${JSON.stringify(version)}. Known versions: ${KNOWN_WORKFLOW_VERSIONS.join(', ')}`,
    );
  }
  return version;
}

/** The shape of one workflow version's state machine; throws naming an unknown version. */
export function workflowShape(version: number): WorkflowShape {
  return WORKFLOW_VERSIONS[knownVersion(version)].shape;
}

/** The steps of one version: never empty. */
export type WorkflowStepList = readonly [OrderStep, ...OrderStep[]];

/** The steps of one workflow version, in the order they run; throws naming an unknown version. */
export function workflowSteps(version: number): WorkflowStepList {
  const [first, ...rest] = WORKFLOW_VERSIONS[knownVersion(version)].steps.map((name) => {
    const step = ORDER_STEPS.find((candidate) => candidate.name === name);
    // WORKFLOW_VERSIONS is typed by StepName, so every name is in the catalogue.
    if (!step) throw new Error(`Workflow version ${version} names step '${name}', not in ORDER_STEPS`);
    return step;
  });
  if (!first) throw new Error(`Workflow version ${version} has no steps`);
  return [first, ...rest];
}

/** The step kinds any of `versions` runs, in catalogue order (what a deployment needs agents for). */
export function stepsOfVersions(versions: readonly number[]): readonly OrderStep[] {
  const used = new Set(versions.flatMap((version) => workflowSteps(version).map((step) => step.name)));
  return ORDER_STEPS.filter((step) => used.has(step.name));
}

/**
 * The state machine of each live workflow version, as the starter and the operator read it from
 * EnvKey.WorkflowStateMachines: JSON `{ "<version>": "<state machine ARN>" }`. Its keys are the
 * live versions: a record of any other version is refused (UnsupportedRecordVersion).
 */
export type WorkflowStateMachines = Readonly<Record<string, string>>;
