import { Fn, Stack, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import {
  type AdmissionSettings,
  ALERT_EVENT_SOURCE,
  AlertArchiveAttr,
  AlertType,
  EnvKey,
  METRICS_NAMESPACE,
  OperatorAction,
  OperatorRoute,
  type WorkflowTimings,
} from '../../lambdas/scheduler-agent-supervisor/contracts';
import { DataStore } from '../platform/data-table';
import { LambdaFunction } from '../platform/lambda-function';
import { OperatorAccess } from '../platform/operator-access';
import { acknowledgeIamAuthorization, allowBrowserOrigin } from '../platform/operator-routes';
import type { AdmissionStore } from './admission';
import { validateAdmissionSettings } from './config';
import { type WorkflowStateMachineMap, workflowStateMachinesEnv } from './scheduler/workflow';
import type { StateStore } from './state-store';

export interface OperatorApiProps {
  /** The REST API the operator routes are added to (the submission API's). */
  readonly api: apigw.RestApi;
  /**
   * Validates the {orderId} path parameter at the gateway.
   * @default - the parameter is validated by the handlers only
   */
  readonly parameterValidator?: apigw.IRequestValidator;
  /** The state store: its table, indexes and key, and the grants its readers and writers get. */
  readonly stateStore: StateStore;
  /**
   * The state machine of each live workflow version: inspect describes a record's executions (one
   * per attempt) on its version's; retry and cancel refuse a record of any other version.
   */
  readonly stateMachines: WorkflowStateMachineMap;
  /** Where retried and cancelled orders are handed to the starter. */
  readonly startQueue: sqs.IQueue;
  /** A retry is new work: it takes a slot from these counters (and reads the drain for Retry-After). */
  readonly admissionStore: AdmissionStore;
  /** The limit and shards a retry takes its slot under: the submission's own settings. */
  readonly admissionSettings: AdmissionSettings;
  /** The operator alert bus: its alerts are archived for inspect. */
  readonly alertBus: events.IEventBus;
  /** The deployment's workflow timings (step timeouts, heartbeats, supervisor rate), from its profile. */
  readonly timings: WorkflowTimings;
  /** How many DueShard values the supervisor's index is spread over. */
  readonly dueShardCount: number;
}

/**
 * The operators' door (DESIGN.md, Operator actions): `/operator/orders` (list by state),
 * `/operator/orders/{orderId}` (inspect), `/operator/orders/{orderId}/workflow` (the latest
 * attempt's definition and path), `/operator/orders/{orderId}/retry` and `/cancel`, on the
 * given REST API, authorised by IAM (SigV4; the caller is requestContext.identity.userArn), never
 * by the clients' API key. Also the alert archive: every operator alert, by order, for inspect.
 */
export class OperatorApi extends Construct {
  readonly alertArchive: DataStore;
  readonly archiver: LambdaFunction;
  readonly listOrders: LambdaFunction;
  readonly inspectOrder: LambdaFunction;
  readonly orderWorkflow: LambdaFunction;
  readonly act: LambdaFunction;
  /** The IAM-authorised methods, for policies that allow operators to call them (execute-api:Invoke). */
  readonly methods: readonly apigw.Method[];
  /** The managed policy operators are given to call these routes (execute-api:Invoke on them only). */
  readonly operatorAccess: OperatorAccess;
  /** The routes' resources, for CORS preflights (allowBrowserOrigin). */
  private readonly resources: readonly apigw.Resource[];
  /** The REST API the routes are on. */
  readonly api: apigw.RestApi;
  private browserOrigin?: string;

  constructor(scope: Construct, id: string, props: OperatorApiProps) {
    super(scope, id);
    if (!Number.isInteger(props.dueShardCount) || props.dueShardCount < 1) {
      throw new Error(
        `OperatorApi ${this.node.path}: dueShardCount must be a positive integer, got ${props.dueShardCount}`,
      );
    }
    validateAdmissionSettings(`OperatorApi ${this.node.path}`, props.admissionSettings);
    const common = {
      metricsNamespace: METRICS_NAMESPACE,
    };

    this.alertArchive = new DataStore(this, 'AlertArchive', {
      partitionKey: { name: AlertArchiveAttr.OrderId, type: dynamodb.AttributeType.STRING },
      sortKey: { name: AlertArchiveAttr.AlertKey, type: dynamodb.AttributeType.STRING },
    });
    this.archiver = new LambdaFunction(this, 'AlertArchiver', {
      ...common,
      handler: 'scheduler-agent-supervisor/handlers/alert-archiver',
      description: 'Archives each operator alert under its order, for operator inspect',
      serviceName: 'alert-archiver',
      environment: { [EnvKey.AlertArchiveTableName]: this.alertArchive.tableName },
    });
    this.alertArchive.grant(this.archiver.function, 'dynamodb:PutItem');
    new events.Rule(this, 'ArchiveRule', {
      eventBus: props.alertBus,
      description: 'Every order alert is archived for operator inspect',
      eventPattern: { source: [ALERT_EVENT_SOURCE], detailType: Object.values(AlertType) },
      targets: [new targets.LambdaFunction(this.archiver.function, { retryAttempts: 8 })],
    });

    this.listOrders = new LambdaFunction(this, 'ListOrders', {
      ...common,
      handler: 'scheduler-agent-supervisor/handlers/operator-list',
      description: 'GET /operator/orders: orders in one state, newest first',
      serviceName: 'operator-list',
      environment: { [EnvKey.StateTableName]: props.stateStore.tableName },
    });
    props.stateStore.grantQueryStateIndex(this.listOrders.function);

    this.inspectOrder = new LambdaFunction(this, 'InspectOrder', {
      ...common,
      handler: 'scheduler-agent-supervisor/handlers/operator-inspect',
      description:
        'GET /operator/orders/{orderId}: record, steps, compensation log, attempts, alerts, operator log',
      serviceName: 'operator-inspect',
      environment: {
        [EnvKey.StateTableName]: props.stateStore.tableName,
        [EnvKey.WorkflowStateMachines]: workflowStateMachinesEnv(this, props.stateMachines),
        [EnvKey.AlertArchiveTableName]: this.alertArchive.tableName,
      },
    });
    const inspect = this.inspectOrder.function;
    props.stateStore.grant(inspect, 'dynamodb:GetItem');
    this.alertArchive.grant(inspect, 'dynamodb:Query');
    // DescribeExecution and GetExecutionHistory (each attempt's step runs) of this state machine's
    // executions only (<orderId>--attempt-<n>).
    for (const stateMachine of props.stateMachines.values()) {
      stateMachine.grantExecution(inspect, 'states:DescribeExecution', 'states:GetExecutionHistory');
      acknowledgeExecutionsWildcard(this.inspectOrder, stateMachine);
    }

    this.orderWorkflow = this.workflowFunction(props, common);

    this.act = new LambdaFunction(this, 'Act', {
      ...common,
      handler: 'scheduler-agent-supervisor/handlers/operator-action',
      description:
        'POST /operator/orders/{orderId}/retry and /cancel: conditional on what the operator saw, logged',
      serviceName: 'operator-action',
      environment: {
        [EnvKey.StateTableName]: props.stateStore.tableName,
        [EnvKey.StartQueueUrl]: props.startQueue.queueUrl,
        [EnvKey.WorkflowTimings]: JSON.stringify(props.timings),
        [EnvKey.DueShardCount]: String(props.dueShardCount),
        [EnvKey.AdmissionTableName]: props.admissionStore.tableName,
        [EnvKey.AdmissionSettings]: JSON.stringify(props.admissionSettings),
        [EnvKey.WorkflowStateMachines]: workflowStateMachinesEnv(this, props.stateMachines),
      },
    });
    const act = this.act.function;
    // The record's update goes alone (a cancel) or in a transaction with the counter's (a retry):
    // TransactWriteItems needs UpdateItem on each table, and nothing more.
    props.stateStore.grant(act, 'dynamodb:GetItem', 'dynamodb:UpdateItem');
    // A retry takes a slot (UpdateItem on a counter) and reads the drain item for Retry-After (GetItem).
    props.admissionStore.grantTakeSlots(act);
    props.startQueue.grantSendMessages(act);

    // IAM, not the clients' API key (the RestApi's default): operators are IAM principals.
    const iamOnly: apigw.MethodOptions = {
      authorizationType: apigw.AuthorizationType.IAM,
      apiKeyRequired: false,
    };
    const orderParameter = {
      requestParameters: { [`method.request.path.${OperatorRoute.orderPathParameter}`]: true },
      ...(props.parameterValidator && { requestValidator: props.parameterValidator }),
    };
    this.api = props.api;
    const orders = props.api.root.resourceForPath(OperatorRoute.orders);
    const order = orders.addResource(`{${OperatorRoute.orderPathParameter}}`);
    const actIntegration = new apigw.LambdaIntegration(act);
    const actions = Object.values(OperatorAction).map((action) => order.addResource(action));
    const workflowResource = order.addResource('workflow');
    const workflowIntegration = new apigw.LambdaIntegration(this.orderWorkflow.function);
    this.resources = [orders, order, workflowResource, ...actions];
    this.methods = [
      orders.addMethod('GET', new apigw.LambdaIntegration(this.listOrders.function), iamOnly),
      order.addMethod('GET', new apigw.LambdaIntegration(inspect), { ...iamOnly, ...orderParameter }),
      workflowResource.addMethod('GET', workflowIntegration, { ...iamOnly, ...orderParameter }),
      ...actions.map((resource) =>
        resource.addMethod('POST', actIntegration, { ...iamOnly, ...orderParameter }),
      ),
    ];
    acknowledgeIamAuthorization(this.methods);
    this.operatorAccess = new OperatorAccess(this, 'OperatorAccess', {
      methods: this.methods,
      routesDescription: "the orders API's operator routes",
    });
  }

  /**
   * GET /operator/orders/{orderId}/workflow's function: the record (GetItem) and the latest
   * attempt's execution (DescribeExecution, DescribeStateMachineForExecution, GetExecutionHistory).
   */
  private workflowFunction(
    props: OperatorApiProps,
    common: { readonly metricsNamespace: string },
  ): LambdaFunction {
    const fn = new LambdaFunction(this, 'OrderWorkflow', {
      ...common,
      handler: 'scheduler-agent-supervisor/handlers/operator-workflow',
      description:
        "GET /operator/orders/{orderId}/workflow: the latest attempt's definition and the states it entered",
      serviceName: 'operator-workflow',
      environment: {
        [EnvKey.StateTableName]: props.stateStore.tableName,
        [EnvKey.WorkflowStateMachines]: workflowStateMachinesEnv(this, props.stateMachines),
      },
    });
    props.stateStore.grant(fn.function, 'dynamodb:GetItem');
    // The latest attempt's execution: its status, the definition that ran it and its history.
    for (const stateMachine of props.stateMachines.values()) {
      stateMachine.grantExecution(
        fn.function,
        'states:DescribeExecution',
        'states:DescribeStateMachineForExecution',
        'states:GetExecutionHistory',
      );
      acknowledgeExecutionsWildcard(fn, stateMachine);
    }
    return fn;
  }

  /**
   * Lets one browser origin (the operator console's) call the operator routes (the platform's
   * allowBrowserOrigin: preflights, the handlers' and the gateway's answers). One origin per API: a
   * second call with another origin throws.
   */
  allowBrowserOrigin(origin: string): void {
    if (this.browserOrigin !== undefined) {
      throw new Error(`OperatorApi ${this.node.path}: a browser origin is already allowed`);
    }
    this.browserOrigin = origin;
    allowBrowserOrigin(
      {
        api: this.api,
        resources: this.resources,
        functions: [this.listOrders, this.inspectOrder, this.orderWorkflow, this.act].map(
          (fn) => fn.function,
        ),
      },
      origin,
    );
  }
}

/**
 * The one wildcard of the inspect role: `execution:<state machine name>:*`, the executions of this
 * state machine alone (one per attempt, named at run time). cdk-nag names the finding by the
 * resource as grantExecution renders it (the name is the ARN's 7th field), so the acknowledgment
 * is built from the same expression and covers that resource only.
 */
function acknowledgeExecutionsWildcard(fn: LambdaFunction, stateMachine: sfn.IStateMachine): void {
  const stack = Stack.of(fn);
  const name = JSON.stringify(stack.resolve(Fn.select(6, Fn.split(':', stateMachine.stateMachineArn))));
  const policy = fn.function.role?.node.tryFindChild('DefaultPolicy');
  if (!policy) throw new Error(`OperatorApi ${fn.node.path}: the function role has no default policy`);
  Validations.of(policy).acknowledge({
    id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:${name}:*]`,
    reason:
      'The operator routes read the executions of this one state machine (one per attempt, <orderId>--attempt-<n>, named at run time): DescribeExecution, DescribeStateMachineForExecution and GetExecutionHistory only.',
  });
}
