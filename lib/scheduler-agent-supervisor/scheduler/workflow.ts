import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import {
  AgentError,
  ALERT_EVENT_SOURCE,
  AlertType,
  ORDER_STEPS,
  ProcessState,
  StateAttr,
  StepAttr,
  type StepDefinition,
  StepStatus,
  WORKFLOW_VERSION,
  type WorkflowTimings,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';

/**
 * Explicit TimeoutSeconds of every DynamoDB and EventBridge task: each is one small request, so
 * anything slower is an outage better handled as a failed attempt than as a stuck execution.
 */
export const DATA_TASK_TIMEOUT_SECONDS = 10;

/**
 * Retry budget of the data tasks (a later issue budgets all layers end to end): at most
 * 1 + DATA_TASK_MAX_RETRIES calls per task, and only for throttling and service-side errors.
 * Every store update here is idempotent under retry (same values, same fence), and the fencing
 * failure (ConditionalCheckFailedException) is never retried.
 */
export const DATA_TASK_MAX_RETRIES = 2;
const DYNAMODB_RETRYABLE_ERRORS = [
  'DynamoDB.ProvisionedThroughputExceededException',
  'DynamoDB.RequestLimitExceeded',
  'DynamoDB.ThrottlingException',
  'DynamoDB.InternalServerErrorException',
  // The name Step Functions gives DynamoDB service errors without a more specific class.
  'DynamoDB.AmazonDynamoDBException',
];

/** The error a direct DynamoDB integration raises when a condition (here: the fence) fails. */
export const CONDITIONAL_CHECK_FAILED = 'DynamoDB.ConditionalCheckFailedException';

/** Where the execution keeps what it loaded and received (JSONPath, no variables). */
export const WorkflowPath = {
  /** GetItem output of the state record: `$.record.Item.<Attr>.<Type>`. */
  record: '$.record',
  item: '$.record.Item',
  /** GetItem output of the order (business database). */
  order: '$.order',
  /** Agent results by step name. */
  results: '$.results',
  /** Catch output of a permanent agent failure, and the step it came from. */
  error: '$.error',
  failedStep: '$.failedStep',
  abandoned: '$.abandoned',
  fencedOut: '$.fencedOut',
} as const;

/** Execution input fields (built by the starter: StartExecution input). */
const Input = {
  orderId: '$.orderId',
  instanceId: '$.instanceId',
  attempt: '$.attempt',
  correlationId: '$.correlationId',
} as const;

const ENTERED_TIME = '$$.State.EnteredTime';
const STEP_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9]*$/;

export interface SchedulerWorkflowProps {
  /** State store table (records are read and updated directly by the state machine). */
  readonly stateTable: dynamodb.ITable;
  /** Business database (the order is read once per execution). */
  readonly ordersTable: dynamodb.ITable;
  /** The request queue of each step's agent, by step name; one per step, no more. */
  readonly agentQueues: Readonly<Record<string, sqs.IQueue>>;
  /** Operator alert bus (OrderFailed events). */
  readonly alertBus: events.IEventBus;
  readonly timings: WorkflowTimings;
  readonly logRetentionDays: number;
  readonly retainData: boolean;
  /**
   * The steps, in order.
   * @default ORDER_STEPS
   */
  readonly steps?: readonly StepDefinition[];
}

/**
 * The scheduler of the pattern: a Standard state machine (JSONPath only) that runs the order's
 * steps in order, recording each step in the state store with updates fenced on LockedBy, so
 * an attempt that lost its lock can never change the state of its replacement. It never writes
 * after a timeout: an abandoned attempt leaves the record Processing with an expired CompleteBy
 * for the supervisor to find.
 */
export class SchedulerWorkflow extends Construct {
  readonly stateMachine: sfn.StateMachine;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: SchedulerWorkflowProps) {
    super(scope, id);
    const steps = props.steps ?? ORDER_STEPS;
    validateProps(this.node.path, steps, props.agentQueues);

    const states = new WorkflowStates(this, props);
    const fencedOut = new sfn.Succeed(this, 'FencedOut', {
      comment:
        'This execution no longer holds the lock (a newer attempt or a finished order): it changes nothing.',
    });
    const attemptAbandoned = new sfn.Fail(this, 'AttemptAbandoned', {
      error: 'AttemptAbandoned',
      cause:
        'The agent did not answer in time or gave up on transient errors. The record stays Processing; the supervisor retries the order once its CompleteBy has passed.',
      comment: 'Touches nothing: the store deliberately does not distinguish a slow agent from a failed one.',
    });

    const markError = states
      .fencedUpdate('MarkError', {
        comment: 'A step failed for good: Error, with the reason, and out of the supervisor index.',
        update: `SET #processState = :error, #lastError = :lastError, #updatedAt = :now REMOVE #lockedBy, #dueShard`,
        names: {
          '#lastError': StateAttr.LastError,
          '#updatedAt': StateAttr.UpdatedAt,
          '#dueShard': StateAttr.DueShard,
        },
        values: {
          ':error': tasks.DynamoAttributeValue.fromString(ProcessState.Error),
          ':lastError': tasks.DynamoAttributeValue.fromMap({
            Source: tasks.DynamoAttributeValue.fromString(sfn.JsonPath.stringAt(WorkflowPath.failedStep)),
            Error: tasks.DynamoAttributeValue.fromString(
              sfn.JsonPath.stringAt(`${WorkflowPath.error}.Error`),
            ),
            // The whole catch output as text: the agent's Cause is optional in SendTaskFailure.
            Cause: tasks.DynamoAttributeValue.fromString(
              sfn.JsonPath.jsonToString(sfn.JsonPath.objectAt(WorkflowPath.error)),
            ),
            At: tasks.DynamoAttributeValue.fromString(sfn.JsonPath.stringAt(ENTERED_TIME)),
          }),
          ':now': tasks.DynamoAttributeValue.fromString(sfn.JsonPath.stringAt(ENTERED_TIME)),
        },
      })
      .addCatch(fencedOut, { errors: [CONDITIONAL_CHECK_FAILED], resultPath: WorkflowPath.fencedOut });
    markError.next(states.raiseOrderFailedAlert()).next(
      new sfn.Fail(this, 'OrderFailed', {
        error: 'OrderFailed',
        cause: 'A step failed permanently: the order is in Error and an operator was alerted.',
      }),
    );

    const markProcessed = states
      .fencedUpdate('MarkProcessed', {
        comment: 'Every step completed: Processed, unlocked, out of the supervisor index.',
        update: 'SET #processState = :processed, #updatedAt = :now REMOVE #lockedBy, #dueShard',
        names: { '#updatedAt': StateAttr.UpdatedAt, '#dueShard': StateAttr.DueShard },
        values: {
          ':processed': tasks.DynamoAttributeValue.fromString(ProcessState.Processed),
          ':now': tasks.DynamoAttributeValue.fromString(sfn.JsonPath.stringAt(ENTERED_TIME)),
        },
      })
      .addCatch(fencedOut, { errors: [CONDITIONAL_CHECK_FAILED], resultPath: WorkflowPath.fencedOut });
    markProcessed.next(new sfn.Succeed(this, 'Processed'));

    // Built from the last step backwards so each step knows where a completed (or skipped) step goes.
    let next: sfn.IChainable = markProcessed;
    for (const step of [...steps].reverse()) {
      const queue = props.agentQueues[step.name] as sqs.IQueue;
      next = states.stepStates(step, queue, next, { fencedOut, attemptAbandoned, markError });
    }

    const checkLock = new sfn.Choice(this, 'CheckLock', {
      comment: 'Run only while this execution holds the lock of a Processing record.',
    })
      .when(
        sfn.Condition.and(
          sfn.Condition.isPresent(`${WorkflowPath.item}.${StateAttr.LockedBy}.S`),
          sfn.Condition.stringEqualsJsonPath(
            `${WorkflowPath.item}.${StateAttr.LockedBy}.S`,
            Input.instanceId,
          ),
          sfn.Condition.isPresent(`${WorkflowPath.item}.${StateAttr.ProcessState}.S`),
          sfn.Condition.stringEquals(
            `${WorkflowPath.item}.${StateAttr.ProcessState}.S`,
            ProcessState.Processing,
          ),
        ),
        next,
      )
      .otherwise(fencedOut);

    const definition = states.loadStateRecord().next(states.loadOrder()).next(checkLock);

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetentionDays as logs.RetentionDays,
      removalPolicy: props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    const stepWindowSeconds = props.timings.stepTimeoutSeconds + props.timings.stepDeadlineSlackSeconds;
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      stateMachineType: sfn.StateMachineType.STANDARD,
      queryLanguage: sfn.QueryLanguage.JSON_PATH,
      comment: `Order scheduler (Scheduler Agent Supervisor), workflow version ${WORKFLOW_VERSION}`,
      definitionBody: sfn.DefinitionBody.fromChainable(definition),
      // Safety net: an execution can never outlive the plan written at claim time.
      timeout: Duration.seconds(steps.length * stepWindowSeconds + DATA_TASK_TIMEOUT_SECONDS * 10),
      tracingEnabled: true,
      // Execution data holds order contents: events are logged, payloads are not.
      logs: { destination: this.logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
    });
    Validations.of(this.stateMachine.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'CloudWatch Logs delivery (logs:CreateLogDelivery and friends) and X-Ray tracing actions support no resource-level permissions.',
    });
    props.stateTable.encryptionKey?.grantEncryptDecrypt(this.stateMachine);
    props.ordersTable.encryptionKey?.grantDecrypt(this.stateMachine);
  }
}

interface Terminals {
  readonly fencedOut: sfn.IChainable;
  readonly attemptAbandoned: sfn.IChainable;
  readonly markError: sfn.IChainable;
}

interface FencedUpdateSpec {
  readonly comment: string;
  readonly update: string;
  readonly names: Readonly<Record<string, string>>;
  readonly values: Readonly<Record<string, tasks.DynamoAttributeValue>>;
}

/** Builds the states; holds the props so each builder stays a few lines. */
class WorkflowStates {
  constructor(
    private readonly scope: Construct,
    private readonly props: SchedulerWorkflowProps,
  ) {}

  loadStateRecord(): sfn.TaskStateBase {
    return this.withDataRetry(
      tasks.DynamoGetItem.jsonPath(this.scope, 'LoadStateRecord', {
        comment: 'Consistent read of the state record: the lock and the plan of this attempt.',
        table: this.props.stateTable,
        key: this.orderKey(),
        consistentRead: true,
        resultPath: WorkflowPath.record,
        taskTimeout: sfn.Timeout.duration(Duration.seconds(DATA_TASK_TIMEOUT_SECONDS)),
      }),
    );
  }

  loadOrder(): sfn.TaskStateBase {
    return this.withDataRetry(
      tasks.DynamoGetItem.jsonPath(this.scope, 'LoadOrder', {
        comment: 'The immutable order from the business database, for the agents.',
        table: this.props.ordersTable,
        key: this.orderKey(),
        // Written just before the state record: an eventually consistent read could miss it.
        consistentRead: true,
        resultPath: WorkflowPath.order,
        taskTimeout: sfn.Timeout.duration(Duration.seconds(DATA_TASK_TIMEOUT_SECONDS)),
      }),
    );
  }

  /** A store update that succeeds only while this execution holds the lock of a Processing record. */
  fencedUpdate(id: string, spec: FencedUpdateSpec): tasks.DynamoUpdateItem {
    return this.withDataRetry(
      tasks.DynamoUpdateItem.jsonPath(this.scope, id, {
        comment: spec.comment,
        table: this.props.stateTable,
        key: this.orderKey(),
        updateExpression: spec.update,
        conditionExpression: '#lockedBy = :instanceId AND #processState = :processing',
        expressionAttributeNames: {
          ...spec.names,
          '#lockedBy': StateAttr.LockedBy,
          '#processState': StateAttr.ProcessState,
        },
        expressionAttributeValues: {
          ...spec.values,
          ':instanceId': tasks.DynamoAttributeValue.fromString(sfn.JsonPath.stringAt(Input.instanceId)),
          ':processing': tasks.DynamoAttributeValue.fromString(ProcessState.Processing),
        },
        resultPath: sfn.JsonPath.DISCARD,
        taskTimeout: sfn.Timeout.duration(Duration.seconds(DATA_TASK_TIMEOUT_SECONDS)),
      }),
    );
  }

  /** `<Step>.Check` -> `<Step>.MarkRunning` -> `<Step>.CallAgent` -> `<Step>.MarkCompleted` -> next. */
  stepStates(
    step: StepDefinition,
    queue: sqs.IQueue,
    next: sfn.IChainable,
    terminals: Terminals,
  ): sfn.Choice {
    const statusPath = `${WorkflowPath.item}.${StateAttr.Steps}.M.${step.name}.M.${StepAttr.Status}.S`;
    const planPath = `${WorkflowPath.item}.${StateAttr.Plan}.M.${step.name}.N`;
    const resultPath = `${WorkflowPath.results}.${step.name}`;
    const now = tasks.DynamoAttributeValue.fromString(sfn.JsonPath.stringAt(ENTERED_TIME));
    const stepNames = {
      '#steps': StateAttr.Steps,
      '#step': step.name,
      '#status': StepAttr.Status,
      '#updatedAt': StateAttr.UpdatedAt,
    };

    const markRunning = this.fencedUpdate(`${step.name}.MarkRunning`, {
      comment: `${step.name} is running; its deadline (CompleteBy) is the plan written at claim time.`,
      update:
        'SET #steps.#step.#status = :running, #steps.#step.#startedAt = :now, #completeBy = :completeBy, #updatedAt = :now',
      names: { ...stepNames, '#startedAt': StepAttr.StartedAt, '#completeBy': StateAttr.CompleteBy },
      values: {
        ':running': tasks.DynamoAttributeValue.fromString(StepStatus.Running),
        ':completeBy': tasks.DynamoAttributeValue.numberFromString(sfn.JsonPath.stringAt(planPath)),
        ':now': now,
      },
    }).addCatch(terminals.fencedOut, {
      errors: [CONDITIONAL_CHECK_FAILED],
      resultPath: WorkflowPath.fencedOut,
    });

    const { stepTimeoutSeconds, stepHeartbeatSeconds, agentMaxCallAttempts } = this.props.timings;
    const callAgent = tasks.SqsSendMessage.jsonPath(this.scope, `${step.name}.CallAgent`, {
      comment: `Ask the ${step.service} agent and wait for its answer (task token).`,
      queue,
      integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
      messageBody: sfn.TaskInput.fromObject({
        taskToken: sfn.JsonPath.taskToken,
        orderId: sfn.JsonPath.stringAt(Input.orderId),
        step: step.name,
        instanceId: sfn.JsonPath.stringAt(Input.instanceId),
        attempt: sfn.JsonPath.numberAt(Input.attempt),
        // Stable across retries and attempts, never the token: the downstream de-duplicates on it.
        idempotencyKey: sfn.JsonPath.format(`{}:${step.name}`, sfn.JsonPath.stringAt(Input.orderId)),
        deadlineEpochMillis: sfn.JsonPath.stringToJson(sfn.JsonPath.stringAt(planPath)),
        taskEnteredAt: sfn.JsonPath.stringAt(ENTERED_TIME),
        taskTimeoutSeconds: stepTimeoutSeconds,
        heartbeatSeconds: stepHeartbeatSeconds,
        maxCallAttempts: agentMaxCallAttempts,
        order: {
          customerId: sfn.JsonPath.stringAt(`${WorkflowPath.order}.Item.CustomerId.S`),
          items: sfn.JsonPath.stringToJson(sfn.JsonPath.stringAt(`${WorkflowPath.order}.Item.Items.S`)),
          totalCents: sfn.JsonPath.stringToJson(
            sfn.JsonPath.stringAt(`${WorkflowPath.order}.Item.TotalCents.N`),
          ),
          currency: sfn.JsonPath.stringAt(`${WorkflowPath.order}.Item.Currency.S`),
        },
        correlationId: sfn.JsonPath.stringAt(Input.correlationId),
      }),
      taskTimeout: sfn.Timeout.duration(Duration.seconds(stepTimeoutSeconds)),
      heartbeatTimeout: sfn.Timeout.duration(Duration.seconds(stepHeartbeatSeconds)),
      resultPath,
    });
    const recordFailedStep = new sfn.Pass(this.scope, `${step.name}.PermanentFailure`, {
      comment: 'Remember which step failed for LastError.Source.',
      result: sfn.Result.fromString(step.name),
      resultPath: WorkflowPath.failedStep,
    }).next(terminals.markError);
    callAgent
      .addCatch(recordFailedStep, { errors: [AgentError.Permanent], resultPath: WorkflowPath.error })
      // Timeout, heartbeat timeout, Agent.TransientFailure, a send that failed: abandon the attempt.
      .addCatch(terminals.attemptAbandoned, { errors: [sfn.Errors.ALL], resultPath: WorkflowPath.abandoned });

    const markCompleted = this.fencedUpdate(`${step.name}.MarkCompleted`, {
      comment: `${step.name} completed: never redone by a later attempt.`,
      update:
        'SET #steps.#step.#status = :completed, #steps.#step.#completedAt = :now, #steps.#step.#result = :result, #updatedAt = :now',
      names: { ...stepNames, '#completedAt': StepAttr.CompletedAt, '#result': StepAttr.Result },
      values: {
        ':completed': tasks.DynamoAttributeValue.fromString(StepStatus.Completed),
        ':result': tasks.DynamoAttributeValue.fromMap({
          ConfirmationId: tasks.DynamoAttributeValue.fromString(
            sfn.JsonPath.stringAt(`${resultPath}.confirmationId`),
          ),
        }),
        ':now': now,
      },
    }).addCatch(terminals.fencedOut, {
      errors: [CONDITIONAL_CHECK_FAILED],
      resultPath: WorkflowPath.fencedOut,
    });

    markRunning.next(callAgent).next(markCompleted).next(next);
    return new sfn.Choice(this.scope, `${step.name}.Check`, {
      comment: `Skip ${step.name} when an earlier attempt completed it.`,
    })
      .when(
        sfn.Condition.and(
          sfn.Condition.isPresent(statusPath),
          sfn.Condition.stringEquals(statusPath, StepStatus.Completed),
        ),
        next,
      )
      .otherwise(markRunning);
  }

  raiseOrderFailedAlert(): sfn.TaskStateBase {
    return tasks.EventBridgePutEvents.jsonPath(this.scope, 'RaiseOrderFailedAlert', {
      comment: 'Tell an operator (OrderFailed on the alert bus).',
      entries: [
        {
          eventBus: this.props.alertBus,
          source: ALERT_EVENT_SOURCE,
          detailType: AlertType.OrderFailed,
          detail: sfn.TaskInput.fromObject({
            orderId: sfn.JsonPath.stringAt(Input.orderId),
            reason: 'AgentPermanentFailure',
            failureCount: sfn.JsonPath.stringToJson(
              sfn.JsonPath.stringAt(`${WorkflowPath.item}.${StateAttr.FailureCount}.N`),
            ),
            attempt: sfn.JsonPath.numberAt(Input.attempt),
            instanceId: sfn.JsonPath.stringAt(Input.instanceId),
            error: sfn.JsonPath.stringAt(`${WorkflowPath.error}.Error`),
            cause: sfn.JsonPath.jsonToString(sfn.JsonPath.objectAt(WorkflowPath.error)),
            correlationId: sfn.JsonPath.stringAt(Input.correlationId),
          }),
        },
      ],
      resultPath: sfn.JsonPath.DISCARD,
      taskTimeout: sfn.Timeout.duration(Duration.seconds(DATA_TASK_TIMEOUT_SECONDS)),
    }).addRetry({
      // A repeated alert is harmless; a lost one is not. The record is already Error either way.
      errors: [sfn.Errors.TASKS_FAILED, sfn.Errors.TIMEOUT],
      maxAttempts: DATA_TASK_MAX_RETRIES,
      interval: Duration.seconds(1),
      backoffRate: 2,
      jitterStrategy: sfn.JitterType.FULL,
    });
  }

  private orderKey(): Record<string, tasks.DynamoAttributeValue> {
    return {
      [StateAttr.OrderId]: tasks.DynamoAttributeValue.fromString(sfn.JsonPath.stringAt(Input.orderId)),
    };
  }

  private withDataRetry<T extends sfn.TaskStateBase>(task: T): T {
    task.addRetry({
      errors: DYNAMODB_RETRYABLE_ERRORS,
      maxAttempts: DATA_TASK_MAX_RETRIES,
      interval: Duration.seconds(1),
      backoffRate: 2,
      jitterStrategy: sfn.JitterType.FULL,
    });
    return task;
  }
}

function validateProps(
  where: string,
  steps: readonly StepDefinition[],
  agentQueues: Readonly<Record<string, sqs.IQueue>>,
): void {
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
  const unknown = Object.keys(agentQueues).filter((name) => !names.includes(name));
  if (unknown.length > 0) problems.push(`agent queues for unknown steps: ${unknown.join(', ')}`);
  if (problems.length > 0) {
    throw new Error(`SchedulerWorkflow ${where}: ${problems.join('; ')}`);
  }
}
