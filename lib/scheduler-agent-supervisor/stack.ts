import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { ORDER_STEPS } from '../../lambdas/scheduler-agent-supervisor/contracts';
import { RemoteServices } from '../fakes/remote-services';
import { applyGuardrails } from '../platform/guardrails';
import { IdempotencyStore } from '../platform/idempotency-store';
import { AgentWorker } from './agent';
import type { DeploymentConfig } from './config';
import { OperatorAlerts } from './operator-alerts';
import { OrdersDatabase } from './orders-database';
import { SchedulerWorkflow } from './scheduler/workflow';
import { OrderStarter } from './starter';
import { StateStore } from './state-store';
import { SubmissionApi } from './submission-api';
import { Supervisor } from './supervisor';

/** Stack name of the deployable app (bin/app.ts); the local runtime and the tests use it too. */
export const STACK_NAME = 'SchedulerAgentSupervisor';

/** CfnOutput names read by the acceptance suite and the local runtime. */
export const StackOutput = {
  ApiUrl: 'ApiUrl',
  ApiKeyId: 'ApiKeyId',
  StateTableName: 'StateTableName',
  OrdersTableName: 'OrdersTableName',
  LedgerTableName: 'LedgerTableName',
  IdempotencyTableName: 'IdempotencyTableName',
  StartQueueUrl: 'StartQueueUrl',
  ConflictQueueUrl: 'ConflictQueueUrl',
  AlertBusName: 'AlertBusName',
  AlertInboxQueueUrl: 'AlertInboxQueueUrl',
  StateMachineArn: 'StateMachineArn',
  RemoteServiceUrl: 'RemoteServiceUrl',
} as const;

export interface SchedulerAgentSupervisorStackProps extends StackProps {
  /** The deployment profile (lib/scheduler-agent-supervisor/config.ts). */
  readonly config: DeploymentConfig;
  /**
   * Operator email subscribed to alerts (CDK context `alertEmail`).
   * @default - no email subscription
   */
  readonly alertEmail?: string;
}

/**
 * Part A: the Scheduler Agent Supervisor pattern for order processing. Composition only: each
 * pattern role is one construct, the agents are generated from ORDER_STEPS.
 */
export class SchedulerAgentSupervisorStack extends Stack {
  readonly stateStore: StateStore;
  readonly ordersDatabase: OrdersDatabase;
  readonly idempotencyStore: IdempotencyStore;
  readonly alerts: OperatorAlerts;
  readonly remoteServices: RemoteServices;
  /** One per ORDER_STEPS entry, in order. */
  readonly agents: readonly AgentWorker[];
  readonly workflow: SchedulerWorkflow;
  readonly starter: OrderStarter;
  readonly supervisor: Supervisor;
  readonly submission: SubmissionApi;

  constructor(scope: Construct, id: string, props: SchedulerAgentSupervisorStackProps) {
    super(scope, id, props);
    const { config } = props;
    const { timings, retainData, logRetentionDays } = config;

    const stateStore = new StateStore(this, 'StateStore', { retainData });
    const ordersDatabase = new OrdersDatabase(this, 'OrdersDatabase', { retainData });
    const idempotencyStore = new IdempotencyStore(this, 'IdempotencyStore', { retainData });
    const alerts = new OperatorAlerts(this, 'OperatorAlerts', { retainData, alertEmail: props.alertEmail });
    const remoteServices = new RemoteServices(this, 'RemoteServices', {
      retainData,
      logRetentionDays,
      stallMillis: config.remoteStallMillis,
    });

    const agents = ORDER_STEPS.map((step) => {
      const worker = new AgentWorker(this, `${step.name}Agent`, {
        step,
        timings,
        remoteEndpointUrl: remoteServices.endpointUrl,
        remoteAuth: 'iam',
        idempotencyStore,
        retainData,
        logRetentionDays,
      });
      remoteServices.grantInvokeUrl(worker.agent.function);
      return worker;
    });

    const workflow = new SchedulerWorkflow(this, 'Scheduler', {
      stateTable: stateStore.table,
      ordersTable: ordersDatabase.table,
      agentQueues: Object.fromEntries(agents.map((worker) => [worker.step.name, worker.requestQueue])),
      alertBus: alerts.bus,
      timings,
      logRetentionDays,
      retainData,
    });
    for (const worker of agents) {
      workflow.stateMachine.grantTaskResponse(worker.agent.function);
    }

    const starter = new OrderStarter(this, 'OrderStarter', {
      stateStore,
      stateMachine: workflow.stateMachine,
      timings,
      logRetentionDays,
      retainData,
    });
    const supervisor = new Supervisor(this, 'Supervisor', {
      stateStore,
      startQueue: starter.startQueue,
      alertBus: alerts.bus,
      timings,
      dueShardCount: config.dueShardCount,
      logRetentionDays,
      retainData,
    });
    const submission = new SubmissionApi(this, 'Submission', {
      stateStore,
      ordersDatabase,
      startQueue: starter.startQueue,
      alertBus: alerts.bus,
      timings,
      dueShardCount: config.dueShardCount,
      throttle: config.apiThrottle,
      logRetentionDays,
      retainData,
    });
    this.stateStore = stateStore;
    this.ordersDatabase = ordersDatabase;
    this.idempotencyStore = idempotencyStore;
    this.alerts = alerts;
    this.remoteServices = remoteServices;
    this.agents = agents;
    this.workflow = workflow;
    this.starter = starter;
    this.supervisor = supervisor;
    this.submission = submission;

    const outputs: Record<keyof typeof StackOutput, string> = {
      ApiUrl: submission.url,
      ApiKeyId: submission.apiKey.keyId,
      StateTableName: stateStore.tableName,
      OrdersTableName: ordersDatabase.table.tableName,
      LedgerTableName: remoteServices.ledgerTable.tableName,
      IdempotencyTableName: idempotencyStore.table.tableName,
      StartQueueUrl: starter.startQueue.queueUrl,
      ConflictQueueUrl: submission.conflictQueue.queueUrl,
      AlertBusName: alerts.bus.eventBusName,
      AlertInboxQueueUrl: alerts.inbox.queueUrl,
      StateMachineArn: workflow.stateMachine.stateMachineArn,
      RemoteServiceUrl: remoteServices.endpointUrl,
    };
    for (const [name, value] of Object.entries(outputs)) {
      new CfnOutput(this, name, { value });
    }

    applyGuardrails(this);
  }
}
