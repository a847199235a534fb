import { Aws, Fn, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import type * as events from 'aws-cdk-lib/aws-events';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  ApiRoute,
  EnvKey,
  METRICS_NAMESPACE,
  type WorkflowTimings,
} from '../../lambdas/scheduler-agent-supervisor/contracts';
import { LambdaFunction } from '../platform/lambda-function';
import { createTerminalQueue } from '../platform/work-queue';
import type { OrdersDatabase } from './orders-database';
import type { StateStore } from './state-store';

export const API_STAGE_NAME = 'v1';

export interface SubmissionApiProps {
  readonly stateStore: StateStore;
  readonly ordersDatabase: OrdersDatabase;
  /** Where new orders are handed to the starter. */
  readonly startQueue: sqs.IQueue;
  /** Operator alerts (SubmissionConflict). */
  readonly alertBus: events.IEventBus;
  readonly timings: WorkflowTimings;
  readonly dueShardCount: number;
  /** Stage throttling, also the usage plan's limits. */
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
  readonly logRetentionDays: number;
  readonly retainData: boolean;
}

/**
 * The front door: a REST API (`POST /orders`, `GET /orders/{orderId}`) behind an API key and a
 * usage plan, with stage throttling and access logs, and the conflict dead-letter queue where
 * resubmissions with conflicting data are kept for an operator.
 */
export class SubmissionApi extends Construct {
  readonly api: apigw.RestApi;
  readonly apiKey: apigw.IApiKey;
  readonly conflictQueue: sqs.Queue;
  readonly submitOrder: LambdaFunction;
  readonly getOrder: LambdaFunction;

  constructor(scope: Construct, id: string, props: SubmissionApiProps) {
    super(scope, id);
    const { rateLimit, burstLimit } = props.throttle;
    if (!(rateLimit > 0) || !Number.isInteger(burstLimit) || burstLimit < 1 || burstLimit < rateLimit) {
      throw new Error(
        `SubmissionApi ${this.node.path}: throttle needs rateLimit > 0 and an integer burstLimit >= rateLimit, got rate ${rateLimit}, burst ${burstLimit}`,
      );
    }
    const removalPolicy = props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.conflictQueue = createTerminalQueue(
      this,
      'ConflictDeadLetterQueue',
      props.retainData,
      'Dead-letter queue of conflicting resubmissions: an operator reads it; nothing consumes it automatically.',
    );

    this.submitOrder = new LambdaFunction(this, 'SubmitOrder', {
      handler: 'scheduler-agent-supervisor/handlers/submit-order',
      metricsNamespace: METRICS_NAMESPACE,
      description: 'POST /orders: validates, stores the order and its state record, queues its start',
      serviceName: 'submit-order',
      logRetentionDays: props.logRetentionDays,
      removalPolicy,
      environment: {
        [EnvKey.StateTableName]: props.stateStore.tableName,
        [EnvKey.OrdersTableName]: props.ordersDatabase.table.tableName,
        [EnvKey.StartQueueUrl]: props.startQueue.queueUrl,
        [EnvKey.ConflictQueueUrl]: this.conflictQueue.queueUrl,
        [EnvKey.AlertBusName]: props.alertBus.eventBusName,
        [EnvKey.WorkflowTimings]: JSON.stringify(props.timings),
        [EnvKey.DueShardCount]: String(props.dueShardCount),
      },
    });
    const submit = this.submitOrder.function;
    props.stateStore.grant(submit, 'dynamodb:PutItem', 'dynamodb:GetItem');
    props.ordersDatabase.grant(submit, 'dynamodb:PutItem', 'dynamodb:GetItem');
    props.startQueue.grantSendMessages(submit);
    this.conflictQueue.grantSendMessages(submit);
    props.alertBus.grantPutEventsTo(submit);

    this.getOrder = new LambdaFunction(this, 'GetOrder', {
      handler: 'scheduler-agent-supervisor/handlers/get-order',
      metricsNamespace: METRICS_NAMESPACE,
      description: 'GET /orders/{orderId}: the current state of an order',
      serviceName: 'get-order',
      logRetentionDays: props.logRetentionDays,
      removalPolicy,
      environment: { [EnvKey.StateTableName]: props.stateStore.tableName },
    });
    props.stateStore.grant(this.getOrder.function, 'dynamodb:GetItem');

    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.logRetentionDays as logs.RetentionDays,
      removalPolicy,
    });
    this.api = new apigw.RestApi(this, 'Api', {
      description: 'Order submission (Scheduler Agent Supervisor)',
      endpointTypes: [apigw.EndpointType.REGIONAL],
      // API Gateway writes access and execution logs only once the account has a CloudWatch role.
      // The role is account-wide, so it is retained (CDK default) even when the stack's data is not.
      cloudWatchRole: true,
      defaultMethodOptions: { apiKeyRequired: true },
      deployOptions: {
        stageName: API_STAGE_NAME,
        throttlingRateLimit: rateLimit,
        throttlingBurstLimit: burstLimit,
        accessLogDestination: new apigw.LogGroupLogDestination(accessLogs),
        accessLogFormat: apigw.AccessLogFormat.jsonWithStandardFields(),
        loggingLevel: apigw.MethodLoggingLevel.ERROR,
        // Request bodies carry customer data: never in execution logs.
        dataTraceEnabled: false,
        metricsEnabled: true,
        tracingEnabled: true,
      },
    });
    // The stack exports the URL once, as ApiUrl (no trailing slash); drop the construct's own output.
    this.api.node.tryRemoveChild('Endpoint');
    const parameterValidator = this.api.addRequestValidator('ParameterValidator', {
      validateRequestParameters: true,
    });
    const orders = this.api.root.addResource(ApiRoute.orders.slice(1));
    orders.addMethod('POST', new apigw.LambdaIntegration(submit));
    orders
      .addResource(`{${ApiRoute.orderPathParameter}}`)
      .addMethod('GET', new apigw.LambdaIntegration(this.getOrder.function), {
        requestParameters: { [`method.request.path.${ApiRoute.orderPathParameter}`]: true },
        requestValidator: parameterValidator,
      });

    this.apiKey = this.api.addApiKey('ApiKey', { description: 'Order submitters' });
    const usagePlan = this.api.addUsagePlan('UsagePlan', {
      description: 'Order submitters: the stage limits, per key',
      throttle: { rateLimit, burstLimit },
      apiStages: [{ api: this.api, stage: this.api.deploymentStage }],
    });
    usagePlan.addApiKey(this.apiKey);

    Validations.of(this.api).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'POST bodies are validated by submit-order against the shared strict zod contract (field-level 400 errors); an API Gateway model would duplicate it and drift. Path parameters are validated by the gateway.',
      },
      {
        id: 'AwsSolutions-APIG3',
        reason:
          'WAF is an account-level choice of the deployer; the API is protected by API keys, a usage plan and stage throttling.',
      },
      {
        id: 'AwsSolutions-APIG4',
        reason:
          'Submitters are machine clients identified by API keys with a usage plan (the reference design); no end-user identity exists.',
      },
      {
        id: 'AwsSolutions-COG4',
        reason: 'No end users: submitters are machine clients authenticated by API key.',
      },
    );
    const cloudWatchRole = this.api.node.tryFindChild('CloudWatchRole');
    if (cloudWatchRole) {
      Validations.of(cloudWatchRole).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          'The account-level API Gateway logging role; this AWS managed policy is the documented one for it.',
      });
    }
  }

  /** Invoke URL of the stage, without a trailing slash (append ApiRoute paths). */
  get url(): string {
    return Fn.join('', [
      'https://',
      this.api.restApiId,
      '.execute-api.',
      Aws.REGION,
      '.',
      Aws.URL_SUFFIX,
      '/',
      this.api.deploymentStage.stageName,
    ]);
  }
}
