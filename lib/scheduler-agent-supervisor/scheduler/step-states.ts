import { Duration } from 'aws-cdk-lib';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import {
  AgentError,
  type AgentRequest,
  type StepDefinition,
  StepStatus,
  type WorkflowTimings,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import {
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
  readonly step: StepDefinition;
  /** The request queue of the step's agent. */
  readonly queue: sqs.IQueue;
  /** TimeoutSeconds and HeartbeatSeconds of the callback task, and the agent's call budget. */
  readonly timings: CallbackTimings;
}

/**
 * `<Step>.CallAgent`: sends the AgentRequest to the step's queue and waits for the task token
 * (sqs:sendMessage.waitForTaskToken), for at most TimeoutSeconds, and HeartbeatSeconds between
 * signs of life. Without both a lost reply would park the execution for up to a year.
 */
export function agentCall(scope: Construct, props: AgentCallProps): tasks.SqsSendMessage {
  const { step, timings } = props;
  validateTimings(`Agent call ${scope.node.path}/${step.name}`, timings);
  const deadline = RecordPath.plannedDeadline(step.name);
  const request: Record<Exclude<keyof AgentRequest, 'undoes'>, unknown> = {
    taskToken: sfn.JsonPath.taskToken,
    orderId: sfn.JsonPath.stringAt(ExecutionInput.orderId),
    step: step.name,
    action: 'perform',
    operation: step.name,
    instanceId: sfn.JsonPath.stringAt(ExecutionInput.instanceId),
    attempt: sfn.JsonPath.numberAt(ExecutionInput.attempt),
    // Stable across retries and attempts, never the token: the downstream de-duplicates on it.
    idempotencyKey: sfn.JsonPath.format(`{}:${step.name}`, sfn.JsonPath.stringAt(ExecutionInput.orderId)),
    deadlineEpochMillis: sfn.JsonPath.stringToJson(sfn.JsonPath.stringAt(deadline)),
    taskEnteredAt: sfn.JsonPath.stringAt(ENTERED_TIME),
    taskTimeoutSeconds: timings.stepTimeoutSeconds,
    heartbeatSeconds: timings.stepHeartbeatSeconds,
    maxCallAttempts: timings.agentMaxCallAttempts,
    order: {
      customerId: sfn.JsonPath.stringAt(OrderPath.customerId),
      items: sfn.JsonPath.stringToJson(sfn.JsonPath.stringAt(OrderPath.items)),
      totalCents: sfn.JsonPath.stringToJson(sfn.JsonPath.stringAt(OrderPath.totalCents)),
      currency: sfn.JsonPath.stringAt(OrderPath.currency),
    },
    correlationId: sfn.JsonPath.stringAt(ExecutionInput.correlationId),
  };
  return tasks.SqsSendMessage.jsonPath(scope, `${step.name}.CallAgent`, {
    comment: `Ask the ${step.service} agent and wait for its answer (task token).`,
    queue: props.queue,
    integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
    messageBody: sfn.TaskInput.fromObject(request),
    taskTimeout: sfn.Timeout.duration(Duration.seconds(timings.stepTimeoutSeconds)),
    heartbeatTimeout: sfn.Timeout.duration(Duration.seconds(timings.stepHeartbeatSeconds)),
    resultPath: stepResultPath(step.name),
  });
}

export interface StepStatesProps extends AgentCallProps {
  /** The fenced store updates (MarkRunning and MarkCompleted of this step). */
  readonly updates: StoreUpdates;
  /** Where the step goes once completed, or skipped because an earlier attempt completed it. */
  readonly next: sfn.IChainable;
  /** Where a permanent agent failure goes, once the step is remembered in `$.failedStep`. */
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
  readonly permanentFailure: sfn.Pass;
}

/**
 * `<Step>.Check` -> `<Step>.MarkRunning` -> `<Step>.CallAgent` -> `<Step>.MarkCompleted` -> next.
 * A step an earlier attempt completed is skipped (recovery from the store, never redone).
 */
export function stepStates(scope: Construct, props: StepStatesProps): StepStates {
  const { step } = props;
  const markRunning = props.updates.markStepRunning(step.name);
  const callAgent = agentCall(scope, props);
  const markCompleted = props.updates.markStepCompleted(step.name);
  const permanentFailure = new sfn.Pass(scope, `${step.name}.PermanentFailure`, {
    comment: 'Remember which step failed for LastError.Source.',
    result: sfn.Result.fromString(step.name),
    resultPath: WorkflowPath.failedStep,
  });
  permanentFailure.next(props.onPermanentFailure);
  callAgent
    .addCatch(permanentFailure, { errors: [AgentError.Permanent], resultPath: WorkflowPath.error })
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
  return { check, markRunning, callAgent, markCompleted, permanentFailure };
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
