import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import {
  AlertType,
  bindNames,
  bindParams,
  CompensationResultAttr,
  LastErrorAttr,
  type ParamType,
  renderTransition,
  STATE_TRANSITIONS,
  type StepDefinition,
  StepResultAttr,
  type TransitionName,
  type ValueComposer,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { CONDITIONAL_CHECK_FAILED, dataTaskTimeout, orderKey, withDataRetry } from './data-tasks';
import {
  compensationResultPath,
  ENTERED_TIME,
  ExecutionInput,
  RecordPath,
  stepResultPath,
  WorkflowPath,
} from './execution-data';

export interface StoreUpdateProps {
  /** The state store table. */
  readonly stateTable: dynamodb.ITable;
  /** A scheduler transition of STATE_TRANSITIONS: the task is generated from it. */
  readonly transition: TransitionName;
  /**
   * The step a step transition applies to.
   * @default - none (required for step transitions, refused for the others)
   */
  readonly step?: string;
  /**
   * Where each parameter of the transition comes from in the execution, besides `instanceId`
   * (the execution's lock) and `now` (the state's entered time), which every scheduler update
   * binds the same way.
   * @default - none
   */
  readonly bindings?: Readonly<Record<string, tasks.DynamoAttributeValue>>;
  /** Where the update goes when its fence fails (this execution no longer holds the lock). */
  readonly fencedOut: sfn.IChainable;
}

/** What every scheduler transition binds alike: the fence (this execution) and the time stamp. */
function commonBindings(): Record<string, tasks.DynamoAttributeValue> {
  return {
    instanceId: tasks.DynamoAttributeValue.fromString(sfn.JsonPath.stringAt(ExecutionInput.instanceId)),
    now: tasks.DynamoAttributeValue.fromString(sfn.JsonPath.stringAt(ENTERED_TIME)),
  };
}

/** A table constant as an ASL attribute value. */
function constantValue(value: string | number | boolean): tasks.DynamoAttributeValue {
  if (typeof value === 'number') return tasks.DynamoAttributeValue.fromNumber(value);
  if (typeof value === 'boolean') return tasks.DynamoAttributeValue.fromBoolean(value);
  return tasks.DynamoAttributeValue.fromString(value);
}

/** Map values of the table are composed as `{ M: { ... } }` of their constants and bindings. */
const COMPOSE: ValueComposer<tasks.DynamoAttributeValue> = {
  constant: constantValue,
  map: (entries) => tasks.DynamoAttributeValue.fromMap({ ...entries }),
};

/** The DynamoDB type a binding renders to (`{ S }`, `{ N }`, `{ M }`). */
function bindingType(value: tasks.DynamoAttributeValue): ParamType | undefined {
  const [type] = Object.keys(value.toObject() as object);
  return type === 'S' || type === 'N' || type === 'M' ? type : undefined;
}

/**
 * One fenced UpdateItem task (JSONPath), generated from a scheduler transition of
 * STATE_TRANSITIONS: its expressions, names and constants are the table's, its parameters are
 * bound to execution paths. A failed fence ends in `fencedOut`; throttling is retried.
 */
export function storeUpdate(scope: Construct, id: string, props: StoreUpdateProps): tasks.DynamoUpdateItem {
  const transition = STATE_TRANSITIONS[props.transition];
  const where = `Store update ${scope.node.path}/${id}`;
  if (transition === undefined) {
    throw new Error(`${where}: '${props.transition}' is not a state transition`);
  }
  if (transition.by !== 'scheduler') {
    throw new Error(
      `${where}: transition '${props.transition}' belongs to the ${transition.by}, not the scheduler`,
    );
  }
  const rendered = renderTransition(props.transition, props.step === undefined ? {} : { step: props.step });
  const bound = bindParams(
    props.transition,
    rendered,
    { ...commonBindings(), ...props.bindings },
    bindingType,
    COMPOSE,
  );
  const constants = Object.fromEntries(
    Object.entries(rendered.constants).map(([placeholder, value]) => [placeholder, constantValue(value)]),
  );
  const task = withDataRetry(
    tasks.DynamoUpdateItem.jsonPath(scope, id, {
      comment: `${props.step === undefined ? '' : `${props.step}: `}${transition.summary} (transition ${props.transition}).`,
      table: props.stateTable,
      key: orderKey(),
      updateExpression: rendered.updateExpression,
      conditionExpression: rendered.conditionExpression,
      expressionAttributeNames: {
        ...rendered.names,
        // THIS_ALERT: the alert's id, an execution value (a States.Format of the order and attempt).
        ...bindNames(rendered, { ...commonBindings(), ...props.bindings }, attributeName),
      },
      expressionAttributeValues: {
        ...constants,
        ...Object.fromEntries(
          (rendered.emptyMaps ?? []).map((placeholder) => [
            placeholder,
            tasks.DynamoAttributeValue.fromMap({}),
          ]),
        ),
        ...bound,
      },
      resultPath: sfn.JsonPath.DISCARD,
      taskTimeout: dataTaskTimeout(),
    }),
  );
  task.addCatch(props.fencedOut, { errors: [CONDITIONAL_CHECK_FAILED], resultPath: WorkflowPath.fencedOut });
  return task;
}

export interface StoreUpdatesProps {
  /** The state store table. */
  readonly stateTable: dynamodb.ITable;
  /** Where an update goes when its fence fails. */
  readonly fencedOut: sfn.IChainable;
}

/**
 * The scheduler's store updates, one method per scheduler transition: the state names and the
 * execution paths each parameter is read from.
 */
export class StoreUpdates {
  constructor(
    private readonly scope: Construct,
    private readonly props: StoreUpdatesProps,
  ) {}

  /**
   * `<Step>.MarkRunning`: CompleteBy is the step's deadline in the plan written at claim time;
   * RunningStep is the step's name.
   */
  markStepRunning(step: string): tasks.DynamoUpdateItem {
    return this.update(`${step}.MarkRunning`, 'markStepRunning', step, {
      runningStep: text(step),
      completeBy: plannedDeadline(step),
    });
  }

  /**
   * `<Step>.MarkCompleted`: the Result is the agent's confirmation; the compensation log entry
   * names the step's position (`seq`, 1-based), its compensation and the key of the effect.
   */
  markStepCompleted(step: StepDefinition, seq: number): tasks.DynamoUpdateItem {
    return this.update(
      `${step.name}.MarkCompleted`,
      'markStepCompleted',
      step.name,
      completedBindings(step, seq),
    );
  }

  /**
   * `<Step>.MarkCompleted` of a lean execution followed by another step: as markStepCompleted, and
   * CompleteBy is `nextStep`'s planned deadline (transition markStepCompletedHandingOver), so the
   * record covers the next request until its agent marks that step Running.
   */
  markStepCompletedHandingOver(step: StepDefinition, seq: number, nextStep: string): tasks.DynamoUpdateItem {
    return this.update(`${step.name}.MarkCompleted`, 'markStepCompletedHandingOver', step.name, {
      ...completedBindings(step, seq),
      completeBy: plannedDeadline(nextStep),
    });
  }

  markProcessed(): tasks.DynamoUpdateItem {
    return this.update('MarkProcessed', 'markProcessed', undefined, {});
  }

  /**
   * `<Step>.BeginCompensation`: LastError names the failed step and keeps the agent's whole catch
   * output; CompleteBy is the planned deadline of `firstCompensation`, the first to run.
   */
  beginCompensation(step: string, firstCompensation: string): tasks.DynamoUpdateItem {
    return this.update(`${step}.BeginCompensation`, 'beginCompensation', step, {
      lastError: lastError(text(step)),
      completeBy: plannedDeadline(firstCompensation),
    });
  }

  /**
   * `<Step>.BeginCompensationUncertain` (compact shape): the step's retry budget was spent, so its
   * effect is uncertain: the step is TimedOut, LastError keeps the agent's catch output, and CompleteBy
   * is the planned deadline of the step's own compensation, the first to run (its
   * `<Step>.Undo.MarkUncertain` follows).
   */
  beginCompensationUncertain(step: StepDefinition): tasks.DynamoUpdateItem {
    return this.update(`${step.name}.BeginCompensationUncertain`, 'beginCompensationUncertain', step.name, {
      lastError: lastError(text(step.name)),
      completeBy: plannedDeadline(step.compensation.name),
    });
  }

  /** `<Step>.Undo.MarkCompensating`: the intent, before the call; CompleteBy is the compensation's deadline. */
  markCompensating(step: StepDefinition): tasks.DynamoUpdateItem {
    return this.update(`${step.name}.Undo.MarkCompensating`, 'markCompensating', step.name, {
      completeBy: plannedDeadline(step.compensation.name),
    });
  }

  /** `<Step>.Undo.MarkUncertain`: the intent for a TimedOut step, creating its Uncertain log entry. */
  markCompensatingUncertain(step: StepDefinition, seq: number): tasks.DynamoUpdateItem {
    return this.update(`${step.name}.Undo.MarkUncertain`, 'markCompensatingUncertain', step.name, {
      seq: tasks.DynamoAttributeValue.fromNumber(seq),
      compensation: text(step.compensation.name),
      undoes: effectKey(step.name),
      completeBy: plannedDeadline(step.compensation.name),
    });
  }

  /** `<Step>.Undo.MarkCompensated`: the Result is the compensating agent's answer. */
  markStepCompensated(step: string): tasks.DynamoUpdateItem {
    const result = compensationResultPath(step);
    return this.update(`${step}.Undo.MarkCompensated`, 'markStepCompensated', step, {
      result: tasks.DynamoAttributeValue.fromMap({
        [CompensationResultAttr.ConfirmationId]: text(sfn.JsonPath.stringAt(`${result}.confirmationId`)),
        [CompensationResultAttr.Undone]: tasks.DynamoAttributeValue.booleanFromJsonPath(
          sfn.JsonPath.stringAt(`${result}.undone`),
        ),
      }),
    });
  }

  markCompensated(): tasks.DynamoUpdateItem {
    return this.update('MarkCompensated', 'markCompensated', undefined, {});
  }

  /**
   * `<Step>.Undo.MarkCompensationFailed`: LastError names the compensation that was refused; the
   * CompensationFailed alert goes into the outbox in the same write (DESIGN.md, Alert outbox), its
   * id `<orderId>:CompensationFailed:<attempt>` as alertIdFor makes it.
   */
  markCompensationFailed(step: StepDefinition): tasks.DynamoUpdateItem {
    return this.update(`${step.name}.Undo.MarkCompensationFailed`, 'markCompensationFailed', step.name, {
      lastError: lastError(text(step.compensation.name)),
      alertId: text(
        sfn.JsonPath.format(
          `{}:${AlertType.CompensationFailed}:{}`,
          sfn.JsonPath.stringAt(ExecutionInput.orderId),
          // A number in the input; States.Format prints it as alertIdFor does (no decimals).
          sfn.JsonPath.stringAt(ExecutionInput.attempt),
        ),
      ),
      attempt: tasks.DynamoAttributeValue.numberFromString(
        sfn.JsonPath.format('{}', sfn.JsonPath.stringAt(ExecutionInput.attempt)),
      ),
      correlationId: text(sfn.JsonPath.stringAt(ExecutionInput.correlationId)),
      compensationFailureCount: tasks.DynamoAttributeValue.numberFromString(
        sfn.JsonPath.stringAt(RecordPath.compensationFailureCount),
      ),
      failedStep: text(sfn.JsonPath.stringAt(WorkflowPath.failedStep)),
    });
  }

  private update(
    id: string,
    transition: TransitionName,
    step: string | undefined,
    bindings: Record<string, tasks.DynamoAttributeValue>,
  ): tasks.DynamoUpdateItem {
    return storeUpdate(this.scope, id, {
      stateTable: this.props.stateTable,
      transition,
      ...(step !== undefined && { step }),
      bindings,
      fencedOut: this.props.fencedOut,
    });
  }
}

const text = (value: string) => tasks.DynamoAttributeValue.fromString(value);

/** What MarkCompleted binds: the agent's confirmation, and the compensation log entry of the step. */
function completedBindings(step: StepDefinition, seq: number): Record<string, tasks.DynamoAttributeValue> {
  const confirmationId = text(sfn.JsonPath.stringAt(`${stepResultPath(step.name)}.confirmationId`));
  return {
    result: tasks.DynamoAttributeValue.fromMap({ [StepResultAttr.ConfirmationId]: confirmationId }),
    seq: tasks.DynamoAttributeValue.fromNumber(seq),
    compensation: text(step.compensation.name),
    undoes: effectKey(step.name),
    confirmationId,
  };
}

/** The string a `{ S }` binding holds, as an attribute name (a JSONPath or intrinsic renders as `.$`). */
function attributeName(value: tasks.DynamoAttributeValue): string {
  const name = (value.toObject() as { S?: unknown }).S;
  if (typeof name !== 'string') throw new Error('An attribute name must be bound to a string value');
  return name;
}

const plannedDeadline = (operation: string) =>
  tasks.DynamoAttributeValue.numberFromString(sfn.JsonPath.stringAt(RecordPath.plannedDeadline(operation)));

/** The idempotency key of the step's effect (`<orderId>:<step>`, see operationKey): what an undo undoes. */
const effectKey = (step: string) =>
  text(sfn.JsonPath.format(`{}:${step}`, sfn.JsonPath.stringAt(ExecutionInput.orderId)));

/** LastError from an agent's catch output (`$.error`): its whole output as the Cause. */
function lastError(source: tasks.DynamoAttributeValue): tasks.DynamoAttributeValue {
  return tasks.DynamoAttributeValue.fromMap({
    [LastErrorAttr.Source]: source,
    [LastErrorAttr.Error]: text(sfn.JsonPath.stringAt(`${WorkflowPath.error}.Error`)),
    // The whole catch output as text: the agent's Cause is optional in SendTaskFailure.
    [LastErrorAttr.Cause]: text(sfn.JsonPath.jsonToString(sfn.JsonPath.objectAt(WorkflowPath.error))),
    [LastErrorAttr.At]: text(sfn.JsonPath.stringAt(ENTERED_TIME)),
  });
}
