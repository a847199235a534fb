import { Duration } from 'aws-cdk-lib';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  EnvKey,
  METRICS_NAMESPACE,
  RoleServiceName,
  type WorkflowTimings,
} from '../../lambdas/scheduler-agent-supervisor/contracts';
import { LambdaFunction } from '../platform/lambda-function';
import { WorkQueue } from '../platform/work-queue';
import type { OrdersDatabase } from './orders-database';
import { type WorkflowStateMachineMap, workflowStateMachinesEnv } from './scheduler/workflow';
import type { StateStore } from './state-store';

const STARTER_TIMEOUT = Duration.seconds(30);
/**
 * Receives before a start request is dead-lettered. A message that keeps failing is safe to
 * drop: the record stays Pending and the supervisor re-queues it after CompleteBy.
 */
const START_MAX_RECEIVE_COUNT = 5;
const START_BATCH_SIZE = 10;

export interface OrderStarterProps {
  /** The state store: its table, indexes and key, and the grants its readers and writers get. */
  readonly stateStore: StateStore;
  /** The business database: a lean workflow version's execution gets the order in its input (GetItem). */
  readonly ordersDatabase: OrdersDatabase;
  /** The state machine of each live workflow version: a record is started on its version's. */
  readonly stateMachines: WorkflowStateMachineMap;
  /** The deployment's workflow timings (step timeouts, heartbeats, supervisor rate), from its profile. */
  readonly timings: WorkflowTimings;
}

/**
 * The starting half of the scheduler: the start queue (fed by the submission and the
 * supervisor) and the function that claims a Pending record and starts its execution.
 */
export class OrderStarter extends Construct {
  readonly startRequests: WorkQueue;
  readonly starter: LambdaFunction;

  constructor(scope: Construct, id: string, props: OrderStarterProps) {
    super(scope, id);
    this.startRequests = new WorkQueue(this, 'StartRequests', {
      consumerTimeout: STARTER_TIMEOUT,
      maxReceiveCount: START_MAX_RECEIVE_COUNT,
    });
    this.starter = new LambdaFunction(this, 'Starter', {
      handler: 'scheduler-agent-supervisor/handlers/starter',
      metricsNamespace: METRICS_NAMESPACE,
      description: 'Claims Pending orders (conditional update) and starts their scheduler execution',
      serviceName: RoleServiceName.Starter,
      timeout: STARTER_TIMEOUT,
      environment: {
        [EnvKey.StateTableName]: props.stateStore.tableName,
        [EnvKey.OrdersTableName]: props.ordersDatabase.table.tableName,
        [EnvKey.WorkflowStateMachines]: workflowStateMachinesEnv(this, props.stateMachines),
        [EnvKey.WorkflowTimings]: JSON.stringify(props.timings),
      },
    });
    const fn = this.starter.function;
    this.startRequests.consumeWith(fn, START_BATCH_SIZE);
    props.stateStore.grant(fn, 'dynamodb:GetItem', 'dynamodb:UpdateItem');
    props.ordersDatabase.grant(fn, 'dynamodb:GetItem');
    for (const stateMachine of props.stateMachines.values()) stateMachine.grantStartExecution(fn);
  }

  get startQueue(): sqs.IQueue {
    return this.startRequests.queue;
  }
}
