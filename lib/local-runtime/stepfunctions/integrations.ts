/**
 * Service integrations of Task states, called with the Task's resolved Parameters and answering
 * what Step Functions would: the service response as the task result, or a TaskFailure named the
 * way Step Functions names it (`DynamoDB.ConditionalCheckFailedException`, `SQS.<error>`,
 * `EventBridge.FailedEntry`, `Lambda.<error>` or the function's errorType).
 *
 * DynamoDB and SQS go through real AWS SDK clients (pointed at emulators by the caller).
 * EventBridge and Lambda are delegated to injected handlers, because the local runtime emulates
 * them itself.
 */
import {
  DeleteItemCommand,
  type DeleteItemCommandInput,
  type DynamoDBClient,
  GetItemCommand,
  type GetItemCommandInput,
  PutItemCommand,
  type PutItemCommandInput,
  UpdateItemCommand,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, type SendMessageCommandInput, type SQSClient } from '@aws-sdk/client-sqs';
import { mintUuid } from '../minted-ids';
import { runtimeFailure, TaskFailure } from './errors';
import type { DynamoDbAction, TaskIntegration } from './resources';

/** One PutEvents entry as the state machine sends it (Detail already serialized to a string). */
export interface PutEventsEntry {
  readonly Source?: string;
  readonly DetailType?: string;
  readonly Detail?: string;
  readonly EventBusName?: string;
  readonly Resources?: readonly string[];
  readonly Time?: string;
  readonly TraceHeader?: string;
}

export interface PutEventsResultEntry {
  readonly EventId?: string;
  readonly ErrorCode?: string;
  readonly ErrorMessage?: string;
}

export interface PutEventsOutcome {
  readonly FailedEntryCount: number;
  readonly Entries: readonly PutEventsResultEntry[];
}

/** Delivers events to the (emulated) EventBridge. Throw an error named like the AWS error to fail. */
export type PutEventsHandler = (entries: readonly PutEventsEntry[]) => Promise<PutEventsOutcome>;

export interface LambdaInvocationResult {
  /** The function's response payload (parsed JSON), or its error object when functionError is set. */
  readonly payload: unknown;
  /** Set when the function itself failed (AWS X-Amz-Function-Error, e.g. 'Unhandled'). */
  readonly functionError?: string;
  readonly executedVersion?: string;
}

/** Invokes an (emulated) Lambda function synchronously. Throw an error named like the AWS error to fail. */
export type InvokeLambdaHandler = (functionName: string, payload: unknown) => Promise<LambdaInvocationResult>;

export interface IntegrationClients {
  readonly dynamodb?: DynamoDBClient;
  readonly sqs?: SQSClient;
  readonly putEvents?: PutEventsHandler;
  readonly invokeLambda?: InvokeLambdaHandler;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** AWS adds HTTP metadata to request-response results; kept so ResultSelector paths match AWS. */
function withSdkMetadata(result: Json, requestId: string | undefined): Json {
  return {
    ...result,
    SdkHttpMetadata: { HttpStatusCode: 200 },
    SdkResponseMetadata: { RequestId: requestId ?? mintUuid() },
  };
}

interface SdkError {
  readonly name?: string;
  readonly message?: string;
  readonly $metadata?: { readonly httpStatusCode?: number; readonly requestId?: string };
}

/** Maps an SDK or handler error to the Step Functions error name `<prefix>.<AWS error name>`. */
export function serviceFailure(prefix: string, service: string, error: unknown): TaskFailure {
  if (error instanceof TaskFailure) return error;
  const sdkError = (error ?? {}) as SdkError;
  const message = sdkError.message ?? String(error);
  const status = sdkError.$metadata?.httpStatusCode;
  if (status === undefined || !sdkError.name) {
    // No HTTP answer: the service was never reached (connection refused, bad parameters).
    return new TaskFailure(`${prefix}.SdkClientException`, `${message} (Service: ${service})`);
  }
  const requestId = sdkError.$metadata?.requestId ?? 'unknown';
  return new TaskFailure(
    `${prefix}.${sdkError.name}`,
    `${message} (Service: ${service}, Status Code: ${status}, Request ID: ${requestId})`,
  );
}

function requireParameters(stateName: string, parameters: unknown): Json {
  if (!isObject(parameters)) {
    throw runtimeFailure(
      `State '${stateName}': the integration needs Parameters that resolve to a JSON object`,
    );
  }
  return parameters;
}

function stripMetadata(output: object): Json {
  const { $metadata: _metadata, ...rest } = output as Json;
  return rest;
}

/**
 * The clients an execution's integrations call with: the same for every state machine, or one set
 * per state machine role (on AWS every integration call is made with the state machine's role).
 */
export type IntegrationClientsSource = IntegrationClients | ((roleArn: string) => IntegrationClients);

export class ServiceIntegrations {
  constructor(private readonly source: IntegrationClientsSource) {}

  /**
   * Runs the integration's request as the state machine's role `roleArn`; for .waitForTaskToken the
   * caller then waits on the token.
   */
  async call(
    stateName: string,
    integration: TaskIntegration,
    parameters: unknown,
    roleArn = '',
  ): Promise<unknown> {
    const clients = typeof this.source === 'function' ? this.source(roleArn) : this.source;
    switch (integration.service) {
      case 'dynamodb':
        return this.dynamodb(
          clients,
          stateName,
          integration.action,
          requireParameters(stateName, parameters),
        );
      case 'sqs':
        return this.sendMessage(clients, stateName, requireParameters(stateName, parameters));
      case 'events':
        return this.putEvents(clients, stateName, requireParameters(stateName, parameters));
      case 'lambda':
        return this.lambdaInvoke(clients, stateName, requireParameters(stateName, parameters));
      case 'lambda-function':
        return (await this.invoke(clients, stateName, integration.functionArn, parameters)).payload;
      case 'unsupported':
        throw runtimeFailure(`State '${stateName}': ${integration.reason}`);
    }
  }

  private async dynamodb(
    clients: IntegrationClients,
    stateName: string,
    action: DynamoDbAction,
    parameters: Json,
  ): Promise<unknown> {
    const client = clients.dynamodb;
    if (!client)
      throw runtimeFailure(`State '${stateName}': no DynamoDB client is configured for this runtime`);
    try {
      const output = await sendDynamoDb(client, action, parameters);
      return withSdkMetadata(stripMetadata(output), output.$metadata.requestId);
    } catch (error) {
      throw serviceFailure('DynamoDB', 'DynamoDb', error);
    }
  }

  private async sendMessage(
    clients: IntegrationClients,
    stateName: string,
    parameters: Json,
  ): Promise<unknown> {
    const client = clients.sqs;
    if (!client) throw runtimeFailure(`State '${stateName}': no SQS client is configured for this runtime`);
    // Step Functions serializes a JSON MessageBody; the SQS API only takes strings.
    const body = parameters.MessageBody;
    const input = { ...parameters, MessageBody: typeof body === 'string' ? body : JSON.stringify(body) };
    try {
      const output = await client.send(new SendMessageCommand(input as unknown as SendMessageCommandInput));
      return withSdkMetadata(stripMetadata(output), output.$metadata.requestId);
    } catch (error) {
      throw serviceFailure('SQS', 'AmazonSQS', error);
    }
  }

  private async putEvents(
    clients: IntegrationClients,
    stateName: string,
    parameters: Json,
  ): Promise<unknown> {
    const handler = clients.putEvents;
    if (!handler)
      throw runtimeFailure(`State '${stateName}': no putEvents handler is configured for this runtime`);
    if (!Array.isArray(parameters.Entries) || parameters.Entries.length === 0) {
      throw new TaskFailure(
        'EventBridge.ValidationException',
        `State '${stateName}': Parameters.Entries must be a non-empty array`,
      );
    }
    const entries = parameters.Entries.map((entry): PutEventsEntry => {
      const fields = isObject(entry) ? entry : {};
      const detail = fields.Detail;
      return {
        ...fields,
        ...(detail === undefined
          ? {}
          : { Detail: typeof detail === 'string' ? detail : JSON.stringify(detail) }),
      };
    });
    let outcome: PutEventsOutcome;
    try {
      outcome = await handler(entries);
    } catch (error) {
      throw serviceFailure('EventBridge', 'EventBridge', error);
    }
    if (outcome.FailedEntryCount > 0) {
      const failed = outcome.Entries.filter((entry) => entry.ErrorCode !== undefined);
      throw new TaskFailure(
        'EventBridge.FailedEntry',
        JSON.stringify({ FailedEntryCount: outcome.FailedEntryCount, Entries: failed }),
      );
    }
    return withSdkMetadata(
      { Entries: outcome.Entries, FailedEntryCount: outcome.FailedEntryCount },
      undefined,
    );
  }

  private async lambdaInvoke(
    clients: IntegrationClients,
    stateName: string,
    parameters: Json,
  ): Promise<unknown> {
    const functionName = parameters.FunctionName;
    if (typeof functionName !== 'string' || functionName === '') {
      throw runtimeFailure(`State '${stateName}': lambda:invoke needs Parameters.FunctionName`);
    }
    const qualifier = typeof parameters.Qualifier === 'string' ? `:${parameters.Qualifier}` : '';
    const payload = parameters.Payload ?? {};
    const result = await this.invoke(clients, stateName, `${functionName}${qualifier}`, payload);
    return withSdkMetadata(
      { ExecutedVersion: result.executedVersion ?? '$LATEST', Payload: result.payload, StatusCode: 200 },
      undefined,
    );
  }

  private async invoke(
    clients: IntegrationClients,
    stateName: string,
    functionName: string,
    payload: unknown,
  ): Promise<LambdaInvocationResult> {
    const handler = clients.invokeLambda;
    if (!handler)
      throw runtimeFailure(`State '${stateName}': no invokeLambda handler is configured for this runtime`);
    let result: LambdaInvocationResult;
    try {
      result = await handler(functionName, payload);
    } catch (error) {
      throw serviceFailure('Lambda', 'AWSLambda', error);
    }
    if (result.functionError !== undefined) {
      // As on AWS: the error name is the function's errorType, the cause its whole error payload.
      const errorType =
        isObject(result.payload) && typeof result.payload.errorType === 'string'
          ? result.payload.errorType
          : undefined;
      throw new TaskFailure(errorType ?? 'Lambda.Unknown', JSON.stringify(result.payload ?? null));
    }
    return result;
  }
}

function sendDynamoDb(client: DynamoDBClient, action: DynamoDbAction, parameters: Json) {
  // Parameters are passed as is (DynamoDB JSON), exactly as Step Functions forwards them.
  switch (action) {
    case 'getItem':
      return client.send(new GetItemCommand(parameters as unknown as GetItemCommandInput));
    case 'putItem':
      return client.send(new PutItemCommand(parameters as unknown as PutItemCommandInput));
    case 'updateItem':
      return client.send(new UpdateItemCommand(parameters as unknown as UpdateItemCommandInput));
    case 'deleteItem':
      return client.send(new DeleteItemCommand(parameters as unknown as DeleteItemCommandInput));
  }
}
