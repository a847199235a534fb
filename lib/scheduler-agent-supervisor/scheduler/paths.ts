import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import {
  isLeanShape,
  ProcessState,
  type StepDefinition,
  type WorkflowShape,
  type WorkflowTimings,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { loadOrder, loadStateRecord } from './data-tasks';
import { ExecutionInput, RecordPath } from './execution-data';
import {
  compactStepStates,
  leanStepStates,
  stepCompleted,
  stepStates,
  type UndoStates,
  undoStates,
} from './step-states';
import { StoreUpdates } from './store-updates';

const STEP_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9]*$/;

/** The states every path ends in. */
export const SchedulerEnd = {
  /** Every step completed and recorded. */
  processed: 'Processed',
  /** A step failed for good (or an operator cancelled): every completed step undone. */
  compensated: 'Compensated',
  /** A compensation was refused for good: CompensationFailed recorded with its alert (AlertOutbox). */
  compensationFailed: 'CompensationFailed',
  /** This execution lost the lock: it changed nothing and stops quietly. */
  fencedOut: 'FencedOut',
  /** The agent did not answer in time: the record is left for the supervisor. */
  attemptAbandoned: 'AttemptAbandoned',
} as const;

export interface SchedulerPathsProps {
  /** The steps, in order (letters and digits: they are used in JSONPath and state names). */
  readonly steps: readonly StepDefinition[];
  /** The request queue of each step's agent, by step name; one per step, no more. */
  readonly agentQueues: Readonly<Record<string, sqs.IQueue>>;
  /** The state table the scheduler's UpdateItem tasks write. */
  readonly stateTable: dynamodb.ITable;
  /** The business orders table the scheduler reads. */
  readonly ordersTable: dynamodb.ITable;
  /** The deployment's workflow timings (step timeouts, heartbeats, supervisor rate), from its profile. */
  readonly timings: WorkflowTimings;
  /**
   * The version's shape (contracts/workflows.ts WorkflowShape): `lean` has no LoadOrder (the order is
   * in the input), no `<Step>.Check` and no `<Step>.MarkRunning` (see leanSchedulerSteps).
   * @default 'classic'
   */
  readonly shape?: WorkflowShape;
}

/** What is wrong with a step list and its queues (empty when nothing is). */
export function stepProblems(
  steps: readonly StepDefinition[],
  agentQueues: Readonly<Record<string, sqs.IQueue>>,
): string[] {
  const problems: string[] = [];
  if (steps.length === 0) problems.push('steps must not be empty');
  const names = steps.map((step) => step.name);
  for (const name of names) {
    if (!STEP_NAME_PATTERN.test(name)) {
      problems.push(
        `step name '${name}' must be letters and digits (it is used in JSONPath and state names)`,
      );
    }
    if (!agentQueues[name]) problems.push(`no agent queue for step '${name}'`);
  }
  const duplicates = names.filter((name, index) => names.indexOf(name) !== index);
  if (duplicates.length > 0) problems.push(`duplicate steps: ${duplicates.join(', ')}`);
  // Compensation names are Plan keys next to the step names, and JSONPath segments.
  const compensations = steps.map((step) => step.compensation.name);
  for (const name of compensations) {
    if (!STEP_NAME_PATTERN.test(name)) {
      problems.push(`compensation name '${name}' must be letters and digits (it is used in JSONPath)`);
    }
  }
  const operations = [...new Set(names), ...compensations];
  const clashes = operations.filter((name, index) => operations.indexOf(name) !== index);
  if (clashes.length > 0) {
    problems.push(
      `compensation names must be unique and differ from step names: ${[...new Set(clashes)].join(', ')}`,
    );
  }
  const unknown = Object.keys(agentQueues).filter((name) => !names.includes(name));
  if (unknown.length > 0) problems.push(`agent queues for unknown steps: ${unknown.join(', ')}`);
  return problems;
}

/**
 * The scheduler's paths, start to end (classic shape; the lean shape below):
 *   LoadStateRecord -> LoadOrder -> CheckLock -> each step in order -> MarkProcessed -> Processed
 *   a permanent agent failure of a step: <Step>.BeginCompensation -> the compensation chain
 *   CheckLock of a claimed CompensationInProgress record: the compensation chain
 *   the compensation chain: each step in reverse order, <Step>.Undo.Check -> (.MarkCompensating |
 *     .MarkUncertain) -> .CallAgent -> .MarkCompensated; then MarkCompensated -> Compensated
 *   a refused compensation: <Step>.Undo.PermanentFailure -> <Step>.Undo.MarkCompensationFailed
 *     (with its alert in the outbox) -> CompensationFailed
 *   a lost lock (CheckLock, or any fenced update): FencedOut, changing nothing
 *   a timed-out or transiently failed agent (step or compensation): AttemptAbandoned, touching
 *     nothing (the supervisor retries)
 * Lean shape: LoadStateRecord -> CheckLock -> the first step not completed -> each step
 *   (<Step>.CallAgent -> <Step>.MarkCompleted) -> MarkProcessed -> Processed; the agent marks its
 *   step Running, and its Agent.FencedOut (a lost lock) ends in FencedOut. The rest is the same.
 * Compact shape: CheckLock (the claimed record comes in the input) -> the first step not completed
 *   -> each step's <Step>.CallAgent -> Processed; the agent also records its step Completed, and the
 *   last one the order Processed, before it answers. A spent retry budget (an uncertain outcome):
 *   <Step>.BeginCompensationUncertain (the step TimedOut) -> <Step>.Undo.MarkUncertain -> the
 *   chain from there. The rest is the lean shape's.
 * Returns the first state.
 */
export function schedulerPaths(scope: Construct, props: SchedulerPathsProps): sfn.IChainable {
  const problems = stepProblems(props.steps, props.agentQueues);
  if (problems.length > 0) throw new Error(`Scheduler paths ${scope.node.path}: ${problems.join('; ')}`);

  const lean = isLeanShape(props.shape ?? 'classic');
  const fencedOut = new sfn.Succeed(scope, SchedulerEnd.fencedOut, {
    comment:
      'This execution no longer holds the lock (a newer attempt or a finished order): it changes nothing.',
  });
  const attemptAbandoned = new sfn.Fail(scope, SchedulerEnd.attemptAbandoned, {
    error: 'AttemptAbandoned',
    cause:
      'The agent did not answer in time or gave up on transient errors. The record stays Processing (or CompensationInProgress); the supervisor retries the order once its CompleteBy has passed.',
    comment: 'Touches nothing: the store deliberately does not distinguish a slow agent from a failed one.',
  });
  const updates = new StoreUpdates(scope, { stateTable: props.stateTable, fencedOut });

  const { entry: compensationChain, undoOf } = compensationStates(scope, props, updates, attemptAbandoned);
  const lastStep = props.steps[props.steps.length - 1] as StepDefinition;
  // What every step's states take, in either shape: its place, its queue, where it goes next and on failure.
  const stepChain = (step: StepDefinition, seq: number, next: sfn.IChainable) => ({
    step,
    seq,
    firstCompensation: lastStep.compensation.name,
    queue: props.agentQueues[step.name] as sqs.IQueue,
    timings: props.timings,
    updates,
    next,
    onPermanentFailure: compensationChain,
    onAbandoned: attemptAbandoned,
  });

  const processed = new sfn.Succeed(scope, SchedulerEnd.processed);
  const markProcessed = updates.markProcessed();
  markProcessed.next(processed);

  const heldByThisExecution = (state: string) =>
    sfn.Condition.and(
      sfn.Condition.isPresent(RecordPath.lockedBy),
      sfn.Condition.stringEqualsJsonPath(RecordPath.lockedBy, ExecutionInput.instanceId),
      sfn.Condition.isPresent(RecordPath.processState),
      sfn.Condition.stringEquals(RecordPath.processState, state),
    );

  if (lean) {
    // Built from the last step backwards so each step knows the next. No check between steps: steps
    // complete in order, so every step after the first not-completed one is not completed either.
    // Compact: the last agent's completion write makes the order Processed, so its call ends the run.
    const compact = props.shape === 'compact';
    const entries: { readonly step: StepDefinition; readonly entry: sfn.IChainable }[] = [];
    let leanNext: sfn.IChainable = compact ? processed : markProcessed;
    [...props.steps].reverse().forEach((step, reversedIndex) => {
      const chain = {
        ...stepChain(step, props.steps.length - reversedIndex, leanNext),
        fencedOut,
        ...(entries[0] !== undefined && { nextStep: entries[0].step.name }),
      };
      // Compact: a spent retry budget undoes the step just in case, from its own MarkUncertain.
      const uncertain = (undoOf.get(step.name) as UndoStates).markUncertain;
      leanNext = (
        compact
          ? compactStepStates(scope, { ...chain, onUncertainFailure: uncertain })
          : leanStepStates(scope, chain)
      ).callAgent;
      entries.unshift({ step, entry: leanNext });
    });
    const processing = heldByThisExecution(ProcessState.Processing);
    const checkLock = new sfn.Choice(scope, 'CheckLock', {
      comment:
        'Run only while this execution holds the lock: from the first step an earlier attempt did not complete (a Processing record), or the compensations (a CompensationInProgress one).',
    });
    for (const { step, entry } of entries) {
      checkLock.when(sfn.Condition.and(processing, sfn.Condition.not(stepCompleted(step.name))), entry);
    }
    checkLock
      // Every step completed by earlier attempts: only MarkProcessed is left (never, in the compact
      // shape, whose last completion is the Processed write itself; kept as the record would need it).
      .when(processing, markProcessed)
      .when(heldByThisExecution(ProcessState.CompensationInProgress), compensationChain)
      .otherwise(fencedOut);
    // Compact: the starter puts the claimed record in the input ($.record.Item): no LoadStateRecord.
    return compact ? checkLock : loadStateRecord(scope, props.stateTable).next(checkLock);
  }

  // Built from the last step backwards so each step knows where a completed (or skipped) step goes.
  let next: sfn.IChainable = markProcessed;
  [...props.steps].reverse().forEach((step, reversedIndex) => {
    next = stepStates(scope, stepChain(step, props.steps.length - reversedIndex, next)).check;
  });

  const checkLock = new sfn.Choice(scope, 'CheckLock', {
    comment:
      'Run only while this execution holds the lock: the steps of a Processing record, the compensations of a CompensationInProgress one.',
  })
    .when(heldByThisExecution(ProcessState.Processing), next)
    .when(heldByThisExecution(ProcessState.CompensationInProgress), compensationChain)
    .otherwise(fencedOut);

  return loadStateRecord(scope, props.stateTable).next(loadOrder(scope, props.ordersTable)).next(checkLock);
}

/**
 * The compensation chain, with its ends (MarkCompensated -> Compensated, CompensationFailed): each
 * step's undo states, built from the first step forwards so that each undo knows its next (the undo
 * of the step before it). It is entered at the undo of the last step; `undoOf` names each step's
 * states (a compact step enters its own at `<Step>.Undo.MarkUncertain`).
 */
function compensationStates(
  scope: Construct,
  props: SchedulerPathsProps,
  updates: StoreUpdates,
  attemptAbandoned: sfn.IChainable,
): { readonly entry: sfn.IChainable; readonly undoOf: ReadonlyMap<string, UndoStates> } {
  const lean = isLeanShape(props.shape ?? 'classic');
  // The alert was written with MarkCompensationFailed (AlertOutbox): the outbox delivers it.
  const compensationFailed = new sfn.Fail(scope, SchedulerEnd.compensationFailed, {
    error: 'CompensationFailed',
    cause:
      'A compensation was refused for good: the order is CompensationFailed, with its operator alert in the outbox.',
  });
  const markCompensated = updates.markCompensated();
  markCompensated.next(new sfn.Succeed(scope, SchedulerEnd.compensated));

  let undoNext: sfn.IChainable = markCompensated;
  const undoOf = new Map<string, UndoStates>();
  props.steps.forEach((step, index) => {
    const undo = undoStates(scope, {
      step,
      seq: index + 1,
      queue: props.agentQueues[step.name] as sqs.IQueue,
      timings: props.timings,
      ...(props.shape !== undefined && lean && { shape: props.shape }),
      updates,
      next: undoNext,
      onPermanentFailure: compensationFailed,
      onAbandoned: attemptAbandoned,
    });
    undoOf.set(step.name, undo);
    undoNext = undo.check;
  });
  return { entry: undoNext, undoOf };
}
