import { Stack } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  type AdmissionSettings,
  ApiRoute,
  type ClientRegistry,
  EnvKey,
  METRICS_NAMESPACE,
  RoleServiceName,
  type WorkflowTimings,
} from '../../lambdas/scheduler-agent-supervisor/contracts';
import { createKeyedRestApi } from '../platform/keyed-rest-api';
import { LambdaFunction } from '../platform/lambda-function';
import { createTerminalQueue } from '../platform/work-queue';
import type { AdmissionStore } from './admission';
import type { ClientReplyQueue } from './client-reply-queues';
import { validateAdmissionSettings } from './config';
import type { OrdersDatabase } from './orders-database';
import type { StateStore } from './state-store';

export { API_STAGE_NAME } from '../platform/keyed-rest-api';

export interface SubmissionApiProps {
  /** The state store: its table, indexes and key, and the grants its readers and writers get. */
  readonly stateStore: StateStore;
  /** The business orders table a submission writes. */
  readonly ordersDatabase: OrdersDatabase;
  /** The admission counters a submission takes its slot from, in the transaction that accepts it. */
  readonly admissionStore: AdmissionStore;
  /** Admission control's settings (in-flight cap, shards) from the profile. */
  readonly admission: AdmissionSettings;
  /** The workflow version new orders get (the deployment's workflow.current). */
  readonly workflowVersion: number;
  /** Where new orders are handed to the starter. */
  readonly startQueue: sqs.IQueue;
  /** The deployment's workflow timings (step timeouts, heartbeats, supervisor rate), from its profile. */
  readonly timings: WorkflowTimings;
  /** How many DueShard values the supervisor's index is spread over. */
  readonly dueShardCount: number;
  /** The retry budget (calls per operation) written into every new state record. */
  readonly retryBudget: number;
  /** Stage throttling, also the usage plans' limits (each client's its share of them). */
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
  /**
   * Each client's share (percent, by client name) of the stage throttle: each client's key is
   * throttled to that share by its usage plan (keyed-rest-api keyShares; each > 0, together <= 100).
   * @default - one usage plan, the whole stage limits per key
   */
  readonly throttleShares?: Readonly<Record<string, number>>;
  /** Requests per client IP in 5 minutes (WAF web ACL on the stage). @default - no web ACL */
  readonly rateLimitPerIp?: number;
  /** The client applications: each gets its own API key; their reply queues go into the registry. */
  readonly clients: readonly Pick<ClientReplyQueue, 'name' | 'queue'>[];
}

/**
 * The front door: a REST API (`POST /orders`, `GET /orders/{orderId}`) behind one API key per
 * client, each throttled to its share of the stage limits by its usage plan (the handlers know the caller's client by its key id), with stage throttling and access logs, and the conflict dead-letter queue where
 * resubmissions with conflicting data are kept for an operator.
 */
export class SubmissionApi extends Construct {
  readonly api: apigw.RestApi;
  /** The first client's key (the one the CLI and the tests use when they name no client). */
  readonly apiKey: apigw.IApiKey;
  /** Each client's key, by client name. */
  readonly clientKeys: ReadonlyMap<string, apigw.IApiKey>;
  /** JSON of ClientRegistry (clients, key ids, reply queue URLs): the handlers' and the notifier's list. */
  readonly clientRegistry: string;
  /** Validates path parameters at the gateway (for routes other constructs add to the API). */
  readonly parameterValidator: apigw.RequestValidator;
  /** Invoke URL of the stage, without a trailing slash (append ApiRoute paths). */
  readonly url: string;
  readonly conflictQueue: sqs.Queue;
  readonly submitOrder: LambdaFunction;
  readonly getOrder: LambdaFunction;

  constructor(scope: Construct, id: string, props: SubmissionApiProps) {
    super(scope, id);
    validateAdmissionSettings(`SubmissionApi ${this.node.path}`, props.admission);
    const names = props.clients.map((client) => client.name);
    for (const clientId of Object.keys(props.admission.clientCaps ?? {})) {
      if (!names.includes(clientId)) {
        throw new Error(
          `SubmissionApi ${this.node.path}: admission.clientCaps names '${clientId}', which is no client`,
        );
      }
    }

    this.conflictQueue = createTerminalQueue(
      this,
      'ConflictDeadLetterQueue',
      'Dead-letter queue of conflicting resubmissions: an operator reads it; nothing consumes it automatically.',
    );

    this.submitOrder = new LambdaFunction(this, 'SubmitOrder', {
      handler: 'scheduler-agent-supervisor/handlers/submit-order',
      metricsNamespace: METRICS_NAMESPACE,
      description:
        'POST /orders: validates, takes an admission slot with the order and its state record, queues its start',
      serviceName: RoleServiceName.Submission,
      environment: {
        [EnvKey.StateTableName]: props.stateStore.tableName,
        [EnvKey.OrdersTableName]: props.ordersDatabase.table.tableName,
        [EnvKey.StartQueueUrl]: props.startQueue.queueUrl,
        [EnvKey.ConflictQueueUrl]: this.conflictQueue.queueUrl,
        [EnvKey.WorkflowTimings]: JSON.stringify(props.timings),
        [EnvKey.DueShardCount]: String(props.dueShardCount),
        [EnvKey.AdmissionTableName]: props.admissionStore.tableName,
        [EnvKey.AdmissionSettings]: JSON.stringify(props.admission),
        [EnvKey.RetryBudget]: String(props.retryBudget),
        [EnvKey.CurrentWorkflowVersion]: String(props.workflowVersion),
      },
    });
    const submit = this.submitOrder.function;
    // One TransactWriteItems: Put order (ConditionCheckItem when the order alone is stored), Put
    // state record, Update counter. A transaction needs each item's own action, nothing more.
    props.stateStore.grant(submit, 'dynamodb:PutItem', 'dynamodb:GetItem');
    props.ordersDatabase.grant(submit, 'dynamodb:PutItem', 'dynamodb:GetItem', 'dynamodb:ConditionCheckItem');
    props.admissionStore.grantTakeSlots(submit);
    props.startQueue.grantSendMessages(submit);
    this.conflictQueue.grantSendMessages(submit);

    this.getOrder = new LambdaFunction(this, 'GetOrder', {
      handler: 'scheduler-agent-supervisor/handlers/get-order',
      metricsNamespace: METRICS_NAMESPACE,
      description: 'GET /orders/{orderId}: the current state of an order',
      serviceName: 'get-order',
      environment: { [EnvKey.StateTableName]: props.stateStore.tableName },
    });
    props.stateStore.grant(this.getOrder.function, 'dynamodb:GetItem');

    const { api, apiKey, namedKeys, parameterValidator, url } = createKeyedRestApi(this, {
      description: 'Order submission (Scheduler Agent Supervisor)',
      clients: 'Order submitters',
      keyNames: props.clients.map((client) => client.name),
      throttle: props.throttle,
      ...(props.throttleShares !== undefined && { keyShares: props.throttleShares }),
      rateLimitPerIp: props.rateLimitPerIp,
      bodyValidation:
        'POST bodies are validated by submit-order against the shared strict zod contract (field-level 400 errors); an API Gateway model would duplicate it and drift. Path parameters are validated by the gateway.',
    });
    this.api = api;
    this.apiKey = apiKey;
    this.clientKeys = namedKeys;
    this.parameterValidator = parameterValidator;
    this.url = url;
    const registry: ClientRegistry = props.clients.map((client) => ({
      clientId: client.name,
      apiKeyId: (namedKeys.get(client.name) as apigw.IApiKey).keyId,
      replyQueueUrl: client.queue.queueUrl,
    }));
    this.clientRegistry = Stack.of(this).toJsonString(registry);
    for (const handler of [submit, this.getOrder.function]) {
      handler.addEnvironment(EnvKey.ClientRegistry, this.clientRegistry);
    }
    const orders = this.api.root.addResource(ApiRoute.orders.slice(1));
    orders.addMethod('POST', new apigw.LambdaIntegration(submit));
    orders
      .addResource(`{${ApiRoute.orderPathParameter}}`)
      .addMethod('GET', new apigw.LambdaIntegration(this.getOrder.function), {
        requestParameters: { [`method.request.path.${ApiRoute.orderPathParameter}`]: true },
        requestValidator: parameterValidator,
      });
  }
}
