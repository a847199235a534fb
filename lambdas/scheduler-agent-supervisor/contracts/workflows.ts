import { ORDER_STEPS, type OrderStep, type StepName } from './steps';

/**
 * Workflow versions (MISSION item 12): the ordered step list each version runs, by version number.
 * An order keeps the version it was submitted on (StateAttr.WorkflowVersion) for its whole life, so
 * a version's entry is never edited once deployed: a changed step list is a new version. Each
 * version deployed at the same time gets its own state machine (lib/scheduler-agent-supervisor,
 * DESIGN.md "Workflow versions"), generated from this list.
 */
export const WORKFLOW_VERSIONS = {
  1: ['ReserveInventory', 'ChargePayment', 'ScheduleShipping'],
  2: ['ReserveInventory', 'ChargePayment', 'ScheduleShipping', 'AwardLoyaltyPoints'],
} as const satisfies Readonly<Record<number, readonly StepName[]>>;

/** A workflow version this code knows (a key of WORKFLOW_VERSIONS). */
export type WorkflowVersion = keyof typeof WORKFLOW_VERSIONS;

/** Every version this code knows, ascending. */
export const KNOWN_WORKFLOW_VERSIONS: readonly WorkflowVersion[] = Object.keys(WORKFLOW_VERSIONS)
  .map(Number)
  .sort((a, b) => a - b) as WorkflowVersion[];

/**
 * The version new orders get unless the deployment says otherwise (CDK context `workflowVersion`):
 * every profile's `workflow.current` default.
 */
export const DEFAULT_WORKFLOW_VERSION: WorkflowVersion = 1;

export function isKnownWorkflowVersion(version: unknown): version is WorkflowVersion {
  return typeof version === 'number' && Object.hasOwn(WORKFLOW_VERSIONS, version);
}

/** The steps of one version: never empty. */
export type WorkflowStepList = readonly [OrderStep, ...OrderStep[]];

/** The steps of one workflow version, in the order they run; throws naming an unknown version. */
export function workflowSteps(version: number): WorkflowStepList {
  if (!isKnownWorkflowVersion(version)) {
    throw new Error(
      `Unknown workflow version ${JSON.stringify(version)}. Known versions: ${KNOWN_WORKFLOW_VERSIONS.join(', ')}`,
    );
  }
  const [first, ...rest] = WORKFLOW_VERSIONS[version].map((name) => {
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
