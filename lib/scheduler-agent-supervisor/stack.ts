import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import {
  ALERT_EVENT_SOURCE,
  type RemoteAuthMode,
  type ServiceName,
  stepsOfVersions,
  workflowShape,
  workflowSteps,
} from '../../lambdas/scheduler-agent-supervisor/contracts';
import { DeadLetterAlarmsGuardrail } from '../platform/alarms';
import { DataSettings } from '../platform/data-settings';
import { applyGuardrails } from '../platform/guardrails';
import { IdempotencyStore } from '../platform/idempotency-store';
import { OperatorAlerts } from '../platform/operator-alerts';
import { AdmissionRelease, AdmissionStore } from './admission';
import { AgentWorker } from './agent';
import { ClientReplyQueues } from './client-reply-queues';
import { clientAdmissionCaps, clientShares } from './client-shares';
import type { DeploymentConfig } from './config';
import type { Downstream, FakeDownstream, FakeDownstreamFactory } from './downstream';
import { OrderOperations } from './operations';
import { OperatorApi } from './operator-api';
import { OperatorConsole, type OperatorConsoleProps } from './operator-console';
import { OrdersDatabase } from './orders-database';
import {
  SchedulerWorkflow,
  type WorkflowStateMachineMap,
  workflowStateMachinesEnv,
} from './scheduler/workflow';
import { OrderStarter } from './starter';
import { StateStore } from './state-store';
import { StatusNotifier } from './status-notifier';
import { SubmissionApi } from './submission-api';
import { Supervisor } from './supervisor';

/** Stack name of the deployable app (bin/app.ts); the local runtime and the tests use it too. */
export const STACK_NAME = 'SchedulerAgentSupervisor';

/**
 * CfnOutput names read by the acceptance suite and the local runtime. The fake services' outputs
 * (FAKE_SERVICE_OUTPUTS) exist only when the fakes are deployed, the console's (CONSOLE_OUTPUTS) only with it.
 */
export const StackOutput = {
  ApiUrl: 'ApiUrl',
  /** The first client's API key id (the default key of the CLI and the tests). */
  ApiKeyId: 'ApiKeyId',
  /** JSON list of ClientOutput: each client's API key id and reply queues. */
  Clients: 'Clients',
  StateTableName: 'StateTableName',
  OrdersTableName: 'OrdersTableName',
  LedgerTableName: 'LedgerTableName',
  IdempotencyTableName: 'IdempotencyTableName',
  StartQueueUrl: 'StartQueueUrl',
  ConflictQueueUrl: 'ConflictQueueUrl',
  AlertBusName: 'AlertBusName',
  AlertInboxQueueUrl: 'AlertInboxQueueUrl',
  /** The current workflow version's state machine (the one new orders run on). */
  StateMachineArn: 'StateMachineArn',
  /** JSON `{ "<version>": "<ARN>" }`: the state machine of every live workflow version. */
  WorkflowStateMachines: 'WorkflowStateMachines',
  AdmissionTableName: 'AdmissionTableName',
  AlertArchiveTableName: 'AlertArchiveTableName',
  RemoteServiceUrl: 'RemoteServiceUrl',
  /** The deployed operator console's URL (only with the console). */
  ConsoleUrl: 'ConsoleUrl',
  /** The console operators' user pool (only with the console): create operators in it. */
  OperatorUserPoolId: 'OperatorUserPoolId',
} as const;

/** One entry of the Clients output: what a client is given. */
export interface ClientOutput {
  readonly clientId: string;
  /** Its API key's id (the value: `aws apigateway get-api-key --api-key <id> --include-value`). */
  readonly apiKeyId: string;
  readonly replyQueueUrl: string;
  readonly replyDeadLetterQueueUrl: string;
  /** The only principal that may receive from the queues. */
  readonly principal: string;
}

export const FAKE_SERVICE_OUTPUTS: readonly string[] = [
  StackOutput.LedgerTableName,
  StackOutput.RemoteServiceUrl,
];

/** Outputs that exist only with the deployed operator console (`-c console=true`). */
export const CONSOLE_OUTPUTS: readonly string[] = [StackOutput.ConsoleUrl, StackOutput.OperatorUserPoolId];

export interface SchedulerAgentSupervisorStackProps extends StackProps {
  /** The deployment profile (lib/scheduler-agent-supervisor/config.ts). */
  readonly config: DeploymentConfig;
  /** Where the agents' remote calls go: the fake services, or an endpoint per service (./downstream.ts). */
  readonly downstream: Downstream;
  /**
   * Builds the fake downstream services; required when `downstream` is the fakes. Passed in by the
   * composition root so this wing never imports lib/fakes.
   * @default - none (the deployment names real endpoints)
   */
  readonly fakeDownstream?: FakeDownstreamFactory;
  /**
   * Operator email subscribed to alerts (CDK context `alertEmail`).
   * @default - no email subscription
   */
  readonly alertEmail?: string;
  /**
   * The deployed operator console (CDK context `console=true`): the built page and, optionally,
   * its sign-in domain prefix, and the delivery API's operator routes and alarms (given by the
   * composition root).
   * @default - no deployed console (operators use the CLI, or the local console with npm start)
   */
  readonly console?: Pick<
    OperatorConsoleProps,
    'assetsDir' | 'signInDomainPrefix' | 'deliveryApi' | 'otherAlarms'
  >;
}

/**
 * Part A: the Scheduler Agent Supervisor pattern for order processing. Composition only: each
 * pattern role is one construct, the agents are generated from the steps of the live workflow
 * versions (one per step kind) and call either the fake services or the endpoints the deployment
 * names, and each live workflow version gets its own state machine (`OrderWorkflowV<n>`).
 */
export class SchedulerAgentSupervisorStack extends Stack {
  readonly stateStore: StateStore;
  readonly ordersDatabase: OrdersDatabase;
  readonly idempotencyStore: IdempotencyStore;
  readonly alerts: OperatorAlerts;
  /** The fake downstream services, when the deployment runs them (local profile or demo). */
  readonly remoteServices?: FakeDownstream;
  /** One per step kind a live workflow version runs, in catalogue order. */
  readonly agents: readonly AgentWorker[];
  /** The current workflow version's scheduler (the one new orders run on). */
  readonly workflow: SchedulerWorkflow;
  /** The scheduler of every live workflow version, by version. */
  readonly workflows: ReadonlyMap<number, SchedulerWorkflow>;
  readonly starter: OrderStarter;
  readonly supervisor: Supervisor;
  readonly submission: SubmissionApi;
  readonly clientReplies: ClientReplyQueues;
  readonly statusNotifier: StatusNotifier;
  readonly admissionStore: AdmissionStore;
  readonly admissionRelease: AdmissionRelease;
  readonly operatorApi: OperatorApi;
  /** Alarms (every one notifies the operator topic) and the order-flow dashboard. */
  readonly operations: OrderOperations;
  /** The deployed operator console, when the deployment asks for it. */
  readonly operatorConsole?: OperatorConsole;

  constructor(scope: Construct, id: string, props: SchedulerAgentSupervisorStackProps) {
    super(scope, id, props);
    const { config } = props;
    const { timings } = config;
    DataSettings.forStack(this, config);

    // The state record holds the compensation log (what it takes to undo each charge, reservation
    // and shipment): it gets a customer-managed key, so its key policy and CloudTrail trail are the
    // operator's to control and audit, on top of the table's point-in-time recovery.
    const stateDataKey = new kms.Key(this, 'StateDataKey', {
      description: 'Encrypts the order state store (state records and their compensation logs)',
      enableKeyRotation: true,
      removalPolicy: DataSettings.of(this).removalPolicy,
    });
    const stateStore = new StateStore(this, 'StateStore', { encryptionKey: stateDataKey });
    // The orders hold customers' data (customer id, items, totals): the same operator-controlled key
    // policy and per-key audit as the state records, with a key of their own (separate owners).
    const ordersDataKey = new kms.Key(this, 'OrdersDataKey', {
      description: 'Encrypts the orders table (the business database: orders as submitted)',
      enableKeyRotation: true,
      removalPolicy: DataSettings.of(this).removalPolicy,
    });
    const ordersDatabase = new OrdersDatabase(this, 'OrdersDatabase', { encryptionKey: ordersDataKey });
    const admissionStore = new AdmissionStore(this, 'AdmissionStore');
    const idempotencyStore = new IdempotencyStore(this, 'IdempotencyStore');
    const alerts = new OperatorAlerts(this, 'OperatorAlerts', {
      sources: [ALERT_EVENT_SOURCE],
      description: 'Operator alerts of the order scheduler',
      alertEmail: props.alertEmail,
    });
    const remoteServices =
      props.downstream.kind === 'fakes'
        ? this.fakeServices(props.fakeDownstream, {
            stallMillis: config.remoteStallMillis,
          })
        : undefined;

    const { agents, workflows, workflow, stateMachines } = this.scheduling(props, {
      remoteServices,
      idempotencyStore,
      stateStore,
      ordersDatabase,
    });

    const { starter, supervisor, clientReplies, submission, statusNotifier, admissionRelease, operatorApi } =
      this.roles(config, { stateStore, ordersDatabase, admissionStore, alerts, stateMachines });
    this.stateStore = stateStore;
    this.clientReplies = clientReplies;
    this.statusNotifier = statusNotifier;
    this.ordersDatabase = ordersDatabase;
    this.idempotencyStore = idempotencyStore;
    this.alerts = alerts;
    if (remoteServices) this.remoteServices = remoteServices;
    this.agents = agents;
    this.workflow = workflow;
    this.workflows = workflows;
    this.starter = starter;
    this.supervisor = supervisor;
    this.submission = submission;
    this.admissionStore = admissionStore;
    this.admissionRelease = admissionRelease;
    this.operatorApi = operatorApi;
    const operatorConsole =
      props.console &&
      new OperatorConsole(this, 'OperatorConsole', {
        ...props.console,
        operatorApi,
        apiUrl: submission.url,
      });
    if (operatorConsole) this.operatorConsole = operatorConsole;

    this.publishOutputs(stateMachines);

    // Last: the alarms find the stack's dead-letter queues among the constructs above.
    this.operations = new OrderOperations(this, 'Operations', {
      alerts,
      timings,
      // The longest live workflow bounds how long a healthy order stays in flight.
      stepCount: Math.max(...config.workflow.live.map((version) => workflowSteps(version).length)),
      periodSeconds: config.alarmPeriodSeconds,
    });

    applyGuardrails(this);
    this.node.addValidation(new DeadLetterAlarmsGuardrail(this));
  }

  /**
   * The pattern's roles around the scheduler: the starter, the supervisor, the submission API with
   * the clients' reply queues and the status notifier, admission's release, the operator routes.
   */
  private roles(
    config: DeploymentConfig,
    parts: {
      readonly stateStore: StateStore;
      readonly ordersDatabase: OrdersDatabase;
      readonly admissionStore: AdmissionStore;
      readonly alerts: OperatorAlerts;
      readonly stateMachines: WorkflowStateMachineMap;
    },
  ) {
    const { timings } = config;
    const { stateStore, ordersDatabase, admissionStore, alerts, stateMachines } = parts;
    const starter = new OrderStarter(this, 'OrderStarter', {
      stateStore,
      ordersDatabase,
      stateMachines,
      timings,
    });
    const supervisor = new Supervisor(this, 'Supervisor', {
      stateStore,
      startQueue: starter.startQueue,
      alertBus: alerts.bus,
      timings,
      dueShardCount: config.dueShardCount,
      stateMachines,
    });
    const clientReplies = new ClientReplyQueues(this, 'ClientReplies', {
      clients: config.clients,
    });
    const owner = `${this.constructor.name} ${this.node.path}`;
    // The settings of every path that takes a slot; each client's share of the limit with them.
    const admission = {
      ...config.admission,
      clientCaps: clientAdmissionCaps(
        owner,
        config.admission.limit,
        clientShares(owner, config.clients, 'admissionShare'),
      ),
    };
    const submission = new SubmissionApi(this, 'Submission', {
      clients: clientReplies.clients,
      stateStore,
      ordersDatabase,
      admissionStore,
      admission,
      throttleShares: clientShares(owner, config.clients, 'throttleShare'),
      workflowVersion: config.workflow.current,
      startQueue: starter.startQueue,
      timings,
      dueShardCount: config.dueShardCount,
      retryBudget: config.retryBudget.callsPerOperation,
      throttle: config.apiThrottle,
      rateLimitPerIp: config.apiRateLimitPerIp,
    });
    const statusNotifier = new StatusNotifier(this, 'StatusNotifier', {
      stateStore,
      replyQueues: clientReplies.clients.map((client) => client.queue),
      clientRegistry: submission.clientRegistry,
      alertBus: alerts.bus,
    });
    clientReplies.onlySender(statusNotifier.notifier.role);
    const admissionRelease = new AdmissionRelease(this, 'AdmissionRelease', {
      stateStore,
      admissionStore,
      settings: config.admission,
    });
    const operatorApi = new OperatorApi(this, 'Operator', {
      api: submission.api,
      parameterValidator: submission.parameterValidator,
      stateStore,
      stateMachines,
      startQueue: starter.startQueue,
      admissionStore,
      admissionSettings: admission,
      alertBus: alerts.bus,
      timings,
      dueShardCount: config.dueShardCount,
    });
    return { starter, supervisor, clientReplies, submission, statusNotifier, admissionRelease, operatorApi };
  }

  /**
   * The agents (one per step of the live versions) and one state machine per live version, each
   * generated from its own steps only: what one version runs never depends on which version is
   * current, so a deploy leaves live definitions unchanged.
   */
  private scheduling(
    props: SchedulerAgentSupervisorStackProps,
    parts: {
      readonly remoteServices: FakeDownstream | undefined;
      readonly idempotencyStore: IdempotencyStore;
      readonly stateStore: StateStore;
      readonly ordersDatabase: OrdersDatabase;
    },
  ) {
    const { config } = props;
    const { timings } = config;
    const { remoteServices, idempotencyStore, stateStore, ordersDatabase } = parts;
    const agents = stepsOfVersions(config.workflow.live).map((step) => {
      const remote = remoteServices
        ? { url: remoteServices.endpointUrl, auth: 'iam' as const, function: remoteServices.urlFunction }
        : this.realService(step.service, props.downstream);
      return new AgentWorker(this, `${step.name}Agent`, {
        step,
        timings,
        remoteEndpointUrl: remote.url,
        remoteAuth: remote.auth,
        ...(remote.function && { remoteFunction: remote.function }),
        idempotencyStore,
        stateStore,
        retryBudget: config.retryBudget.callsPerOperation,
        maxConcurrency: config.agentMaxConcurrency,
        recordsCompletions: config.workflow.live.some(
          (version) =>
            workflowShape(version) === 'compact' &&
            workflowSteps(version).some((versionStep) => versionStep.name === step.name),
        ),
      });
    });

    const workflows = new Map(
      config.workflow.live.map((version) => {
        const steps = new Set<string>(workflowSteps(version).map((step) => step.name));
        const versionAgents = agents.filter((worker) => steps.has(worker.step.name));
        const scheduler = new SchedulerWorkflow(this, `OrderWorkflowV${version}`, {
          version,
          stateTable: stateStore.table,
          ordersTable: ordersDatabase.table,
          agentQueues: Object.fromEntries(
            versionAgents.map((worker) => [worker.step.name, worker.requestQueue]),
          ),
          timings,
        });
        for (const worker of versionAgents) scheduler.stateMachine.grantTaskResponse(worker.agent.function);
        return [version, scheduler] as const;
      }),
    );
    const workflow = workflows.get(config.workflow.current);
    if (!workflow) throw new Error(`${this.node.path}: the current workflow version is not live`);
    const stateMachines = new Map(
      [...workflows].map(([version, scheduler]) => [version, scheduler.stateMachine]),
    );
    return { agents, workflows, workflow, stateMachines };
  }

  /** The stack's outputs (StackOutput): what clients, operators, the CLI and the tests read. */
  private publishOutputs(stateMachines: WorkflowStateMachineMap): void {
    // Every part is built and kept on the stack by now (the constructor assigns them first).
    const { submission, stateStore, ordersDatabase, idempotencyStore, starter, alerts, workflow } = this;
    const { clientReplies, admissionStore, operatorApi, operatorConsole, remoteServices } = this;
    const outputs: Partial<Record<keyof typeof StackOutput, string>> = {
      ApiUrl: submission.url,
      ApiKeyId: submission.apiKey.keyId,
      StateTableName: stateStore.tableName,
      OrdersTableName: ordersDatabase.tableName,
      IdempotencyTableName: idempotencyStore.tableName,
      StartQueueUrl: starter.startQueue.queueUrl,
      ConflictQueueUrl: submission.conflictQueue.queueUrl,
      AlertBusName: alerts.bus.eventBusName,
      AlertInboxQueueUrl: alerts.inbox.queueUrl,
      StateMachineArn: workflow.stateMachine.stateMachineArn,
      WorkflowStateMachines: workflowStateMachinesEnv(this, stateMachines),
      Clients: this.toJsonString(
        clientReplies.clients.map(
          (client): ClientOutput => ({
            clientId: client.name,
            apiKeyId: submission.clientKeys.get(client.name)?.keyId ?? '',
            replyQueueUrl: client.queue.queueUrl,
            replyDeadLetterQueueUrl: client.deadLetterQueue.queueUrl,
            principal: client.principal,
          }),
        ),
      ),
      AdmissionTableName: admissionStore.tableName,
      AlertArchiveTableName: operatorApi.alertArchive.tableName,
      ...(operatorConsole && {
        ConsoleUrl: `${operatorConsole.site.origin}/`,
        OperatorUserPoolId: operatorConsole.signIn.userPool.userPoolId,
      }),
      ...(remoteServices && {
        LedgerTableName: remoteServices.ledgerTable.tableName,
        RemoteServiceUrl: remoteServices.endpointUrl,
      }),
    };
    for (const [name, value] of Object.entries(outputs)) {
      new CfnOutput(this, name, { value });
    }
  }

  private fakeServices(
    factory: FakeDownstreamFactory | undefined,
    settings: Parameters<FakeDownstreamFactory>[1],
  ): FakeDownstream {
    if (!factory) {
      throw new Error(
        `${this.node.path}: the deployment runs the fake downstream services, but no fakeDownstream factory was given (bin/app.ts passes lib/fakes)`,
      );
    }
    return factory(this, settings);
  }

  /** A real service named by the deployment, with the function its IAM-authenticated URL fronts. */
  private realService(
    service: ServiceName,
    downstream: Downstream,
  ): { url: string; auth: RemoteAuthMode; function?: lambda.IFunction } {
    if (downstream.kind !== 'endpoints') throw new Error(`No endpoint for service '${service}'`);
    const endpoint = downstream.endpoints[service];
    return {
      url: endpoint.url,
      auth: endpoint.auth,
      ...(endpoint.functionArn !== undefined && {
        // The agent's role gets InvokeFunctionUrl on it; the function's own resource policy is its
        // owner's (another account must allow the agent role there), so none is written here.
        function: lambda.Function.fromFunctionAttributes(this, `${service}Service`, {
          functionArn: endpoint.functionArn,
          skipPermissions: true,
        }),
      }),
    };
  }
}
