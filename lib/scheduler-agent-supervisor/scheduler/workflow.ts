import { Duration, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { IConstruct } from 'constructs';
import { Construct } from 'constructs';
import {
  type StepDefinition,
  type WorkflowStateMachines,
  type WorkflowTimings,
  workflowShape,
  workflowSteps,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { DataSettings } from '../../platform/data-settings';
import { grantTableKeyUse } from '../../platform/data-table';
import { ScopedRole } from '../../platform/scoped-role';
import { DATA_TASK_TIMEOUT_SECONDS } from './data-tasks';
import { schedulerPaths, stepProblems } from './paths';

export interface SchedulerWorkflowProps {
  /** State store table (records are read and updated directly by the state machine). */
  readonly stateTable: dynamodb.ITable;
  /** Business database (a classic version's execution reads the order once; a lean one gets it in its input). */
  readonly ordersTable: dynamodb.ITable;
  /** The request queue of each step's agent, by step name; one per step, no more. */
  readonly agentQueues: Readonly<Record<string, sqs.IQueue>>;
  /** The deployment's workflow timings (step timeouts, heartbeats, supervisor rate), from its profile. */
  readonly timings: WorkflowTimings;
  /**
   * The workflow version this state machine runs (contracts/workflows.ts): records of this version
   * are started on it. Its definition depends on the version's steps only, never on which version is
   * current, so a deployment never changes a live version's definition.
   */
  readonly version: number;
  /**
   * The steps, in order.
   * @default workflowSteps(version)
   */
  readonly steps?: readonly StepDefinition[];
}

/**
 * The scheduler of the pattern: a Standard state machine (JSONPath only) that runs the order's
 * steps in order (./paths), recording each step in the state store with updates generated from
 * the state transitions table and fenced on LockedBy (./store-updates), so an attempt that lost
 * its lock can never change the state of its replacement. It never writes after a timeout: an
 * abandoned attempt leaves the record Processing with an expired CompleteBy for the supervisor.
 */
export class SchedulerWorkflow extends Construct {
  readonly stateMachine: sfn.StateMachine;
  readonly logGroup: logs.LogGroup;

  readonly version: number;

  constructor(scope: Construct, id: string, props: SchedulerWorkflowProps) {
    super(scope, id);
    this.version = props.version;
    const steps = props.steps ?? workflowSteps(props.version);
    const problems = stepProblems(steps, props.agentQueues);
    if (problems.length > 0) {
      throw new Error(`SchedulerWorkflow ${this.node.path}: ${problems.join('; ')}`);
    }

    const shape = workflowShape(props.version);
    const definition = schedulerPaths(this, {
      shape,
      steps,
      agentQueues: props.agentQueues,
      stateTable: props.stateTable,
      ordersTable: props.ordersTable,
      timings: props.timings,
    });

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: DataSettings.of(this).logRetention,
      removalPolicy: DataSettings.of(this).removalPolicy,
    });
    const stepWindowSeconds = props.timings.stepTimeoutSeconds + props.timings.stepDeadlineSlackSeconds;
    // Every step and every compensation may use its window; the data tasks around them (two loads,
    // two updates per step and per compensation, BeginCompensation, the last update, an alert) theirs.
    const dataTasks = 4 * steps.length + 5;
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      stateMachineType: sfn.StateMachineType.STANDARD,
      queryLanguage: sfn.QueryLanguage.JSON_PATH,
      comment: `Order scheduler (Scheduler Agent Supervisor), workflow version ${props.version}`,
      definitionBody: sfn.DefinitionBody.fromChainable(definition),
      // Logging and tracing add actions with no resource-level permissions: a ScopedRole keeps them
      // in a policy of their own, so a wildcard added to this role later fails cdk-nag.
      role: new ScopedRole(this, 'StateMachineRole', {
        assumedBy: new iam.ServicePrincipal('states.amazonaws.com'),
      }),
      // Safety net: an execution can never outlive the plan written at claim time.
      timeout: Duration.seconds(2 * steps.length * stepWindowSeconds + DATA_TASK_TIMEOUT_SECONDS * dataTasks),
      tracingEnabled: true,
      // Execution data holds order contents: events are logged, payloads are not.
      logs: { destination: this.logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
    });
    grantTableKeyUse(props.stateTable, this.stateMachine);
    // A lean execution never reads the business database: the starter puts the order in its input.
    if (shape === 'classic') grantTableKeyUse(props.ordersTable, this.stateMachine, 'read');
  }
}

/** The state machine of each live workflow version, by version. */
export type WorkflowStateMachineMap = ReadonlyMap<number, sfn.IStateMachine>;

/**
 * The value of EnvKey.WorkflowStateMachines: `{ "<version>": "<ARN>" }` (contracts
 * WorkflowStateMachines), rendered by the stack so the ARNs resolve at deploy time.
 */
export function workflowStateMachinesEnv(scope: IConstruct, machines: WorkflowStateMachineMap): string {
  if (machines.size === 0)
    throw new Error(`${scope.node.path}: at least one workflow state machine is required`);
  const value: WorkflowStateMachines = Object.fromEntries(
    [...machines].map(([version, machine]) => [String(version), machine.stateMachineArn]),
  );
  return Stack.of(scope).toJsonString(value);
}
