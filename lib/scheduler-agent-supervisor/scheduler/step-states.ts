import { Duration } from 'aws-cdk-lib';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import {
  AgentError,
  type AgentRequest,
  agentCallStateName,
  CompensationStatus,
  isLeanShape,
  PERMANENT_AGENT_ERRORS,
  type StepDefinition,
  StepStatus,
  type WorkflowShape,
  type WorkflowTimings,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import {
  compensationResultPath,
  ENTERED_TIME,
  ExecutionInput,
  OrderPath,
  RecordPath,
  stepResultPath,
  WorkflowPath,
} from './execution-data';
import type { StoreUpdates } from './store-updates';

/** The windows of one agent call. */
export type CallbackTimings = Pick<
  WorkflowTimings,
  'stepTimeoutSeconds' | 'stepHeartbeatSeconds' | 'agentMaxCallAttempts'
>;

export interface AgentCallProps {
  /** The step the agent call is for (its operation, compensation and service). */
  readonly step: StepDefinition;
  /** The request queue of the step's agent. */
  readonly queue: sqs.IQueue;
  /** TimeoutSeconds and HeartbeatSeconds of the callback task, and the agent's call budget. */
  readonly timings: CallbackTimings;
  /**
   * The version's shape (contracts/workflows.ts): a lean request takes the order from the execution
   * input and, to perform, asks the agent to mark the step Running (AgentRequest.markRunning).
   * @default 'classic'
   */
  readonly shape?: WorkflowShape;
  /**
   * Compact shape, perform only: the agent records the step Completed once its call succeeded
   * (AgentRequest.recordCompletion): its position, and the step that runs next (its planned deadline
   * becomes CompleteBy), none for the last step (the write makes the order Processed).
   * @default - none: the execution records the completion (MarkCompleted)
   */
  readonly completion?: { readonly seq: number; readonly nextStep?: string };
}

/**
 * `<Step>.CallAgent` (action `perform`) or `<Step>.Undo.CallAgent` (action `compensate`): sends
 * the AgentRequest to the step's queue and waits for the task token
 * (sqs:sendMessage.waitForTaskToken), for at most TimeoutSeconds, and HeartbeatSeconds between
 * signs of life. Without both a lost reply would park the execution for up to a year. A
 * compensation runs through the step's own agent, keyed on `<orderId>:<compensation>`, and names
 * the key of the effect it undoes (`<orderId>:<step>`).
 */
export function agentCall(
  scope: Construct,
  props: AgentCallProps & { readonly action?: AgentRequest['action'] },
): tasks.SqsSendMessage {
  const { step, timings } = props;
  const compensate = props.action === 'compensate';
  const lean = props.shape !== undefined && isLeanShape(props.shape);
  validateTimings(`Agent call ${scope.node.path}/${step.name}`, timings);
  const operation = compensate ? step.compensation.name : step.name;
  const deadline = RecordPath.plannedDeadline(operation);
  const orderId = sfn.JsonPath.stringAt(ExecutionInput.orderId);
  const request: Record<
    Exclude<keyof AgentRequest, 'undoes' | 'markRunning' | 'recordCompletion'>,
    unknown
  > & {
    undoes?: string;
    markRunning?: true;
    recordCompletion?: Record<string, unknown>;
  } = {
    taskToken: sfn.JsonPath.taskToken,
    orderId,
    step: step.name,
    action: compensate ? 'compensate' : 'perform',
    operation,
    ...(compensate && { undoes: sfn.JsonPath.format(`{}:${step.name}`, orderId) }),
    instanceId: sfn.JsonPath.stringAt(ExecutionInput.instanceId),
    attempt: sfn.JsonPath.numberAt(ExecutionInput.attempt),
    // Stable across retries and attempts, never the token: the downstream de-duplicates on it.
    idempotencyKey: sfn.JsonPath.format(`{}:${operation}`, orderId),
    deadlineEpochMillis: sfn.JsonPath.stringToJson(sfn.JsonPath.stringAt(deadline)),
    taskEnteredAt: sfn.JsonPath.stringAt(ENTERED_TIME),
    taskTimeoutSeconds: timings.stepTimeoutSeconds,
    heartbeatSeconds: timings.stepHeartbeatSeconds,
    maxCallAttempts: timings.agentMaxCallAttempts,
    ...(lean && !compensate && { markRunning: true }),
    ...(props.completion !== undefined &&
      !compensate && {
        recordCompletion:
          props.completion.nextStep === undefined
            ? { seq: props.completion.seq, finishesOrder: true }
            : {
                seq: props.completion.seq,
                nextDeadlineEpochMillis: sfn.JsonPath.stringToJson(
                  sfn.JsonPath.stringAt(RecordPath.plannedDeadline(props.completion.nextStep)),
                ),
              },
      }),
    order: lean
      ? sfn.JsonPath.objectAt(ExecutionInput.order)
      : {
          customerId: sfn.JsonPath.stringAt(OrderPath.customerId),
          items: sfn.JsonPath.stringToJson(sfn.JsonPath.stringAt(OrderPath.items)),
          totalCents: sfn.JsonPath.stringToJson(sfn.JsonPath.stringAt(OrderPath.totalCents)),
          currency: sfn.JsonPath.stringAt(OrderPath.currency),
        },
    correlationId: sfn.JsonPath.stringAt(ExecutionInput.correlationId),
  };
  return tasks.SqsSendMessage.jsonPath(
    scope,
    agentCallStateName(step.name, compensate ? 'compensate' : 'perform'),
    {
      comment: compensate
        ? `Ask the ${step.service} agent to ${operation} and wait for its answer (task token).`
        : `Ask the ${step.service} agent and wait for its answer (task token).`,
      queue: props.queue,
      integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
      messageBody: sfn.TaskInput.fromObject(request),
      taskTimeout: sfn.Timeout.duration(Duration.seconds(timings.stepTimeoutSeconds)),
      heartbeatTimeout: sfn.Timeout.duration(Duration.seconds(timings.stepHeartbeatSeconds)),
      resultPath: compensate ? compensationResultPath(step.name) : stepResultPath(step.name),
    },
  );
}

export interface StepStatesProps extends AgentCallProps {
  /** 1-based position of the step in the step list (its compensation log entry's Seq). */
  readonly seq: number;
  /** The compensation that runs first once a step fails (that of the last step): its deadline becomes CompleteBy. */
  readonly firstCompensation: string;
  /** The fenced store updates (MarkRunning, MarkCompleted and BeginCompensation of this step). */
  readonly updates: StoreUpdates;
  /** Where the step goes once completed, or skipped because an earlier attempt completed it. */
  readonly next: sfn.IChainable;
  /** The compensation chain, entered after `<Step>.BeginCompensation` on a permanent agent failure. */
  readonly onPermanentFailure: sfn.IChainable;
  /** Where every other end of the agent call goes (timeout, heartbeat timeout, transient failure). */
  readonly onAbandoned: sfn.IChainable;
}

/** The states of one step, entered at `check`. */
export interface StepStates {
  readonly check: sfn.Choice;
  readonly markRunning: tasks.DynamoUpdateItem;
  readonly callAgent: tasks.SqsSendMessage;
  readonly markCompleted: tasks.DynamoUpdateItem;
  readonly beginCompensation: tasks.DynamoUpdateItem;
}

/**
 * `<Step>.Check` -> `<Step>.MarkRunning` -> `<Step>.CallAgent` -> `<Step>.MarkCompleted` -> next.
 * A step an earlier attempt completed is skipped (recovery from the store, never redone).
 * A permanent agent failure -> `<Step>.BeginCompensation` -> the compensation chain.
 */
export function stepStates(scope: Construct, props: StepStatesProps): StepStates {
  const { step } = props;
  const markRunning = props.updates.markStepRunning(step.name);
  const callAgent = agentCall(scope, { ...props, action: 'perform' });
  const markCompleted = props.updates.markStepCompleted(step, props.seq);
  const beginCompensation = props.updates.beginCompensation(step.name, props.firstCompensation);
  beginCompensation.next(props.onPermanentFailure);
  callAgent
    // A refusal, or the order's retry budget for the step spent: both are final.
    .addCatch(beginCompensation, { errors: [...PERMANENT_AGENT_ERRORS], resultPath: WorkflowPath.error })
    // Timeout, heartbeat timeout, Agent.TransientFailure, a send that failed: abandon the attempt.
    .addCatch(props.onAbandoned, { errors: [sfn.Errors.ALL], resultPath: WorkflowPath.abandoned });
  markRunning.next(callAgent).next(markCompleted).next(props.next);

  const status = RecordPath.stepStatus(step.name);
  const check = new sfn.Choice(scope, `${step.name}.Check`, {
    comment: `Skip ${step.name} when an earlier attempt completed it.`,
  })
    .when(
      sfn.Condition.and(
        sfn.Condition.isPresent(status),
        sfn.Condition.stringEquals(status, StepStatus.Completed),
      ),
      props.next,
    )
    .otherwise(markRunning);
  return { check, markRunning, callAgent, markCompleted, beginCompensation };
}

export interface LeanStepStatesProps extends Omit<StepStatesProps, 'shape'> {
  /** Where the agent's Agent.FencedOut goes: its execution no longer holds the lock. */
  readonly fencedOut: sfn.IChainable;
  /**
   * The step that runs next: MarkCompleted then sets CompleteBy to its planned deadline, since no
   * MarkRunning does before its agent has the request.
   * @default - none (the last step: MarkProcessed follows at once)
   */
  readonly nextStep?: string;
}

/** The states of one step of a lean version, entered at `callAgent`. */
export interface LeanStepStates {
  readonly callAgent: tasks.SqsSendMessage;
  readonly markCompleted: tasks.DynamoUpdateItem;
  readonly beginCompensation: tasks.DynamoUpdateItem;
}

/**
 * Lean shape: `<Step>.CallAgent` -> `<Step>.MarkCompleted` -> next. No `<Step>.Check` (CheckLock
 * routes to the first step not completed, and steps complete in order) and no `<Step>.MarkRunning`:
 * the agent marks the step Running in the write that reserves its call, fenced on this execution's
 * lock; a failed fence comes back as Agent.FencedOut, having changed nothing.
 */
export function leanStepStates(scope: Construct, props: LeanStepStatesProps): LeanStepStates {
  const { step } = props;
  const callAgent = agentCall(scope, { ...props, shape: 'lean', action: 'perform' });
  const markCompleted =
    props.nextStep === undefined
      ? props.updates.markStepCompleted(step, props.seq)
      : props.updates.markStepCompletedHandingOver(step, props.seq, props.nextStep);
  const beginCompensation = catchLeanAgentFailures(callAgent, props);
  callAgent.next(markCompleted).next(props.next);
  return { callAgent, markCompleted, beginCompensation };
}

export interface CompactStepStatesProps extends Omit<StepStatesProps, 'shape' | 'completion'> {
  /** Where the agent's Agent.FencedOut goes: its execution no longer holds the lock. */
  readonly fencedOut: sfn.IChainable;
  /**
   * Where `<Step>.BeginCompensationUncertain` goes once the step's retry budget was spent: this
   * step's own `<Step>.Undo.MarkUncertain`, so the step is undone just in case, then the rest of the
   * compensation chain.
   */
  readonly onUncertainFailure: sfn.IChainable;
  /**
   * The step that runs next: the agent's completion write sets CompleteBy to its planned deadline.
   * @default - none (the last step: the agent's write makes the order Processed, and `next` is the end)
   */
  readonly nextStep?: string;
}

/** The states of one step of a compact version, entered at `callAgent`. */
export interface CompactStepStates {
  readonly callAgent: tasks.SqsSendMessage;
  readonly beginCompensation: tasks.DynamoUpdateItem;
  readonly beginCompensationUncertain: tasks.DynamoUpdateItem;
}

/**
 * Compact shape: `<Step>.CallAgent` -> next, one state per step. The agent marks the step Running in
 * the write that reserves its call and records it Completed (result, compensation log entry,
 * CompleteBy handed to the next step; the order Processed after the last) in a fenced write before
 * it answers, so the execution moves straight on. A failed fence, at either write, comes back as
 * Agent.FencedOut, having changed nothing.
 *
 * A spent retry budget (Agent.RetryBudgetExhausted) is an uncertain outcome, not a refusal: it
 * follows calls that were made, and any of them may have had its effect with its answer lost. So it
 * goes to `<Step>.BeginCompensationUncertain` (the step TimedOut), then straight to this step's
 * `<Step>.Undo.MarkUncertain` (the step's Undo.Check reads the record of the input, which does not
 * know), and the chain goes on from there. A refusal (Agent.PermanentFailure) is still
 * `<Step>.BeginCompensation` (the step Failed, nothing to undo).
 */
export function compactStepStates(scope: Construct, props: CompactStepStatesProps): CompactStepStates {
  const callAgent = agentCall(scope, {
    ...props,
    shape: 'compact',
    action: 'perform',
    completion: { seq: props.seq, ...(props.nextStep !== undefined && { nextStep: props.nextStep }) },
  });
  const beginCompensationUncertain = props.updates.beginCompensationUncertain(props.step);
  beginCompensationUncertain.next(props.onUncertainFailure);
  const beginCompensation = catchLeanAgentFailures(callAgent, props, beginCompensationUncertain);
  callAgent.next(props.next);
  return { callAgent, beginCompensation, beginCompensationUncertain };
}

/**
 * Where a lean or compact `<Step>.CallAgent` goes when it fails: Agent.FencedOut (a lost lock) to
 * FencedOut; a refusal or a spent budget to `<Step>.BeginCompensation`, then the compensation chain;
 * anything else (timeout, heartbeat timeout, a transient failure) to AttemptAbandoned. With
 * `onBudgetExhausted` (the compact shape), a spent budget goes there instead, caught first.
 */
function catchLeanAgentFailures(
  callAgent: tasks.SqsSendMessage,
  props: Pick<
    LeanStepStatesProps,
    'step' | 'updates' | 'firstCompensation' | 'onPermanentFailure' | 'onAbandoned' | 'fencedOut'
  >,
  onBudgetExhausted?: sfn.IChainable,
): tasks.DynamoUpdateItem {
  const beginCompensation = props.updates.beginCompensation(props.step.name, props.firstCompensation);
  beginCompensation.next(props.onPermanentFailure);
  callAgent.addCatch(props.fencedOut, {
    errors: [AgentError.FencedOut],
    resultPath: WorkflowPath.fencedOut,
  });
  if (onBudgetExhausted !== undefined) {
    callAgent.addCatch(onBudgetExhausted, {
      errors: [AgentError.RetryBudgetExhausted],
      resultPath: WorkflowPath.error,
    });
  }
  const refusals = PERMANENT_AGENT_ERRORS.filter(
    (error) => onBudgetExhausted === undefined || error !== AgentError.RetryBudgetExhausted,
  );
  callAgent
    .addCatch(beginCompensation, { errors: [...refusals], resultPath: WorkflowPath.error })
    .addCatch(props.onAbandoned, { errors: [sfn.Errors.ALL], resultPath: WorkflowPath.abandoned });
  return beginCompensation;
}

/** Whether an earlier attempt completed `step`, as the loaded record says. */
export function stepCompleted(step: string): sfn.Condition {
  const status = RecordPath.stepStatus(step);
  return sfn.Condition.and(
    sfn.Condition.isPresent(status),
    sfn.Condition.stringEquals(status, StepStatus.Completed),
  );
}

export interface UndoStatesProps extends AgentCallProps {
  /** 1-based position of the step in the step list (Seq of an Uncertain log entry). */
  readonly seq: number;
  /** The fenced store updates of this step's compensation. */
  readonly updates: StoreUpdates;
  /** Where the chain goes once the step is undone, or has nothing to undo. */
  readonly next: sfn.IChainable;
  /** Where a refused compensation goes, after `<Step>.Undo.MarkCompensationFailed`. */
  readonly onPermanentFailure: sfn.IChainable;
  /** Where every other end of the compensating call goes: the supervisor takes over. */
  readonly onAbandoned: sfn.IChainable;
}

/** The states of one step's compensation, entered at `check`. */
export interface UndoStates {
  readonly check: sfn.Choice;
  readonly markCompensating: tasks.DynamoUpdateItem;
  readonly markUncertain: tasks.DynamoUpdateItem;
  readonly callAgent: tasks.SqsSendMessage;
  readonly markCompensated: tasks.DynamoUpdateItem;
  readonly markFailed: tasks.DynamoUpdateItem;
}

/**
 * `<Step>.Undo.Check` -> `<Step>.Undo.MarkCompensating` (or `.MarkUncertain`) ->
 * `<Step>.Undo.CallAgent` -> `<Step>.Undo.MarkCompensated` -> next.
 *
 * The check undoes the step when:
 *   - its log entry, in the loaded record, is not Compensated (an earlier attempt completed the
 *     step, or started undoing it: the same key is called again);
 *   - or `$.results.<Step>` is present: it completed in this execution (its entry was written by
 *     MarkCompleted after the record was loaded);
 *   - or it is TimedOut without an entry: its effect is uncertain, so it is undone just in case,
 *     with an Uncertain entry (`.MarkUncertain`).
 * Anything else (NotStarted, Failed, already Compensated) has nothing to undo.
 */
export function undoStates(scope: Construct, props: UndoStatesProps): UndoStates {
  const { step } = props;
  const markCompensating = props.updates.markCompensating(step);
  const markUncertain = props.updates.markCompensatingUncertain(step, props.seq);
  const callAgent = agentCall(scope, { ...props, action: 'compensate' });
  const markCompensated = props.updates.markStepCompensated(step.name);
  const markFailed = props.updates.markCompensationFailed(step);
  const permanentFailure = new sfn.Pass(scope, `${step.name}.Undo.PermanentFailure`, {
    comment: 'Remember which step could not be undone, for the alert.',
    result: sfn.Result.fromString(step.name),
    resultPath: WorkflowPath.failedStep,
  });
  permanentFailure.next(markFailed).next(props.onPermanentFailure);
  callAgent
    .addCatch(permanentFailure, { errors: [...PERMANENT_AGENT_ERRORS], resultPath: WorkflowPath.error })
    .addCatch(props.onAbandoned, { errors: [sfn.Errors.ALL], resultPath: WorkflowPath.abandoned });
  markCompensating.next(callAgent);
  markUncertain.next(callAgent);
  callAgent.next(markCompensated).next(props.next);

  const logStatus = RecordPath.compensationStatus(step.name);
  const stepStatus = RecordPath.stepStatus(step.name);
  const check = new sfn.Choice(scope, `${step.name}.Undo.Check`, {
    comment: `Undo ${step.name} when it has an effect that is not undone yet, or may have one (TimedOut).`,
  })
    .when(
      sfn.Condition.and(
        sfn.Condition.isPresent(logStatus),
        sfn.Condition.not(sfn.Condition.stringEquals(logStatus, CompensationStatus.Compensated)),
      ),
      markCompensating,
    )
    .when(sfn.Condition.isPresent(logStatus), props.next)
    .when(sfn.Condition.isPresent(stepResultPath(step.name)), markCompensating)
    .when(
      sfn.Condition.and(
        sfn.Condition.isPresent(stepStatus),
        sfn.Condition.stringEquals(stepStatus, StepStatus.TimedOut),
      ),
      markUncertain,
    )
    .otherwise(props.next);
  return { check, markCompensating, markUncertain, callAgent, markCompensated, markFailed };
}

function validateTimings(where: string, timings: CallbackTimings): void {
  const problems: string[] = [];
  for (const key of ['stepTimeoutSeconds', 'stepHeartbeatSeconds', 'agentMaxCallAttempts'] as const) {
    if (!Number.isInteger(timings[key]) || timings[key] < 1) {
      problems.push(`${key} must be a positive integer, got ${timings[key]}`);
    }
  }
  if (problems.length === 0 && timings.stepHeartbeatSeconds >= timings.stepTimeoutSeconds) {
    problems.push(
      `stepHeartbeatSeconds (${timings.stepHeartbeatSeconds}) must be below stepTimeoutSeconds (${timings.stepTimeoutSeconds}), or the heartbeat never fires`,
    );
  }
  if (problems.length > 0) throw new Error(`${where}: ${problems.join('; ')}`);
}
