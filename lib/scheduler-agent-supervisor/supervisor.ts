import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  EnvKey,
  METRICS_NAMESPACE,
  RoleServiceName,
  type WorkflowTimings,
} from '../../lambdas/scheduler-agent-supervisor/contracts';
import { LambdaFunction } from '../platform/lambda-function';
import { type WorkflowStateMachineMap, workflowStateMachinesEnv } from './scheduler/workflow';
import type { StateStore } from './state-store';

/** Time a run keeps after its sweeps to finish the page in hand and flush metrics. */
const SUPERVISOR_TIMEOUT_MARGIN_SECONDS = 15;

export interface SupervisorProps {
  /** The state store: its table, indexes and key, and the grants its readers and writers get. */
  readonly stateStore: StateStore;
  /** Where expired and never-started orders are handed back to the starter. */
  readonly startQueue: sqs.IQueue;
  /** Operator alerts: the supervisor re-delivers outbox alerts the stream relay left behind. */
  readonly alertBus: events.IEventBus;
  /** The deployment's workflow timings (step timeouts, heartbeats, supervisor rate), from its profile. */
  readonly timings: WorkflowTimings;
  /** Partitions of DueIndex the supervisor queries one by one. */
  readonly dueShardCount: number;
  /**
   * The live workflow versions' state machines: the supervisor only reads which versions are live
   * (it leaves a record of any other version untouched); it starts nothing and gets no permission.
   */
  readonly stateMachines: WorkflowStateMachineMap;
}

/**
 * The supervisor of the pattern: a scheduled function (EventBridge rate) that queries the due
 * index for expired work and resets or fails it. One instance at a time (reserved concurrency
 * 1) so supervisors never compete for a record; conditional updates guard the rest.
 */
export class Supervisor extends Construct {
  readonly supervisor: LambdaFunction;
  readonly schedule: events.Rule;

  constructor(scope: Construct, id: string, props: SupervisorProps) {
    super(scope, id);
    const { supervisorRateSeconds, supervisorBudgetSeconds } = props.timings;
    if (supervisorRateSeconds % 60 !== 0) {
      throw new Error(
        `Supervisor ${this.node.path}: supervisorRateSeconds must be a whole number of minutes (EventBridge rates start at 1 minute), got ${supervisorRateSeconds}`,
      );
    }
    // A run spreads its sweeps across the rate (sub-minute cadence), and stops paging at its budget.
    const timeout = Duration.seconds(
      Math.max(supervisorRateSeconds, supervisorBudgetSeconds) + SUPERVISOR_TIMEOUT_MARGIN_SECONDS,
    );
    this.supervisor = new LambdaFunction(this, 'Supervisor', {
      handler: 'scheduler-agent-supervisor/handlers/supervisor',
      metricsNamespace: METRICS_NAMESPACE,
      description: 'Finds expired or never-started orders in DueIndex and retries or fails them',
      serviceName: RoleServiceName.Supervisor,
      timeout,
      reservedConcurrentExecutions: 1,
      environment: {
        [EnvKey.StateTableName]: props.stateStore.tableName,
        [EnvKey.StartQueueUrl]: props.startQueue.queueUrl,
        [EnvKey.AlertBusName]: props.alertBus.eventBusName,
        [EnvKey.WorkflowTimings]: JSON.stringify(props.timings),
        [EnvKey.DueShardCount]: String(props.dueShardCount),
        [EnvKey.WorkflowStateMachines]: workflowStateMachinesEnv(this, props.stateMachines),
      },
    });
    const fn = this.supervisor.function;
    // The next scheduled run replaces a failed or throttled one: no retries, no stale events.
    fn.configureAsyncInvoke({
      retryAttempts: 0,
      maxEventAge: Duration.seconds(Math.max(60, supervisorRateSeconds)),
    });
    props.stateStore.grantQueryDueIndex(fn);
    // The order gauges (orders in Error, stuck compensations, oldest in flight) read the StateIndex.
    props.stateStore.grantQueryStateIndex(fn);
    props.stateStore.grantQueryAlertOutboxIndex(fn);
    props.stateStore.grant(fn, 'dynamodb:UpdateItem');
    // It reads a due record's versions before acting on it (and nothing else of the record).
    props.stateStore.grantReadVersions(fn);
    props.startQueue.grantSendMessages(fn);
    props.alertBus.grantPutEventsTo(fn);

    this.schedule = new events.Rule(this, 'Schedule', {
      description: 'Runs the supervisor',
      schedule: events.Schedule.rate(Duration.seconds(supervisorRateSeconds)),
      targets: [new targets.LambdaFunction(fn, { retryAttempts: 0 })],
    });
  }
}
