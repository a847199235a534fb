/**
 * Local AWS Step Functions for `npm start`: the SFN JSON API on a loopback port, executing ASL with
 * aws-local-stepfunctions plus the integrations, task tokens, heartbeats and timeouts that engine
 * lacks. See README.md in this folder for what runs, what is refused, and the limits.
 *
 *   const sfn = await startLocalStepFunctions({ dynamodb, sqs, putEvents, invokeLambda });
 *   sfn.registerStateMachine(arn, name, definitionJson);
 *   // point SDK clients at sfn.endpoint (AWS_ENDPOINT_URL_SFN)
 *   sfn.events.on('event', (event: LocalSfnEvent) => log(event));
 *   await sfn.stop();
 */
import { type RuntimeClock, WallClock } from '../clock';
import './promise-polyfill';
import type { EventEmitter } from 'node:events';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ReceivedRequest } from '../iam/identities';
import { startAwsJsonServer } from '../protocol/aws-json-server';
import { MAX_REQUEST_BYTES, operations, TARGET_PREFIX } from './http-api';
import { type StepFunctionsCheck, stepFunctionsChecks } from './iam-requests';
import {
  type IntegrationClients,
  type InvokeLambdaHandler,
  type PutEventsHandler,
  ServiceIntegrations,
} from './integrations';
import { StepFunctionsRuntime } from './runtime';
import type { RegisteredStateMachine, RegisterStateMachineOptions } from './runtime-types';

export { InvalidDefinitionError } from './definition';
export type { StepFunctionsCheck } from './iam-requests';
export type {
  IntegrationClients,
  InvokeLambdaHandler,
  LambdaInvocationResult,
  PutEventsEntry,
  PutEventsHandler,
  PutEventsOutcome,
  PutEventsResultEntry,
} from './integrations';
export type {
  ExecutionStatus,
  LocalSfnEvent,
  RegisteredStateMachine,
  RegisterStateMachineOptions,
} from './runtime-types';

export interface LocalStepFunctionsOptions {
  /** Region and account used in state machine and execution ARNs. @default 'us-east-1' */
  readonly region?: string;
  /** @default '000000000000' */
  readonly accountId?: string;
  /** Client for dynamodb:getItem/putItem/updateItem/deleteItem tasks (point it at the emulator). */
  readonly dynamodb?: DynamoDBClient;
  /** Client for sqs:sendMessage tasks. */
  readonly sqs?: SQSClient;
  /** Receives events:putEvents entries (EventBridge is emulated elsewhere). */
  readonly putEvents?: PutEventsHandler;
  /** Invokes Lambda functions for lambda:invoke and plain function-ARN tasks. */
  readonly invokeLambda?: InvokeLambdaHandler;
  /** Finished executions kept for Describe/List and name uniqueness. @default 50_000 */
  readonly maxRememberedExecutions?: number;
  /** Closed task tokens kept so late answers get TaskTimedOut (older: InvalidToken). @default 100_000 */
  readonly maxRememberedTokens?: number;
  /**
   * Approximate bytes of execution histories kept: past it, the oldest finished executions are
   * forgotten (as past maxRememberedExecutions). @default 256 MiB
   */
  readonly maxHistoryBytes?: number;
  /**
   * The integrations' clients per state machine role (each call made as the role, as on AWS);
   * overrides dynamodb, sqs, putEvents and invokeLambda. @default - those, for every state machine
   */
  readonly integrationsFor?: (roleArn: string) => IntegrationClients;
  /**
   * Task timeouts, heartbeats, execution timeouts and every date the service answers run on it.
   * @default - the wall clock
   */
  readonly clock?: RuntimeClock;
  /** Called with unexpected errors of the HTTP layer (answered 500). @default console.error */
  readonly onInternalError?: (error: unknown) => void;
  /**
   * Decides whether an API request may run, given what IAM is to be asked (./iam-requests.ts) and
   * the request as received (its signature): throws the SfnApiError its caller gets.
   * @default - every request runs
   */
  readonly authorize?: (
    checks: readonly StepFunctionsCheck[],
    received: ReceivedRequest,
  ) => Promise<void> | void;
}

export interface LocalStepFunctions {
  /** Base URL of the SFN API on an ephemeral loopback port (use as AWS_ENDPOINT_URL_SFN). */
  readonly endpoint: string;
  readonly region: string;
  readonly accountId: string;
  /** The ARN a state machine of this name gets in this runtime's region and account. */
  stateMachineArnFor(name: string): string;
  /**
   * Registers (or replaces) a state machine. Throws InvalidDefinitionError listing every problem
   * (JSONata, variables, unsupported fields, missing $$.Task.Token, ...). Unsupported Task
   * resources are returned as warnings: executions fail with States.Runtime when they reach them.
   */
  registerStateMachine(
    stateMachineArn: string,
    name: string,
    definitionJson: string,
    options?: RegisterStateMachineOptions,
  ): RegisteredStateMachine;
  /** Emits every LocalSfnEvent as 'event' and under its own type (e.g. 'ExecutionFailed'). */
  readonly events: EventEmitter;
  /** Stops the API and aborts running executions (they are not persisted). */
  stop(): Promise<void>;
}

export async function startLocalStepFunctions(
  options: LocalStepFunctionsOptions = {},
): Promise<LocalStepFunctions> {
  const region = options.region ?? 'us-east-1';
  const accountId = options.accountId ?? '000000000000';
  if (!/^\d{12}$/.test(accountId)) {
    throw new Error(`accountId must be 12 digits, got '${accountId}'`);
  }
  if (!/^[a-z]{2}(-[a-z]+)+-\d$/.test(region)) {
    throw new Error(`region '${region}' is not an AWS region name (e.g. us-east-1)`);
  }
  const runtime = new StepFunctionsRuntime({
    region,
    accountId,
    integrations: new ServiceIntegrations(
      options.integrationsFor ?? {
        ...(options.dynamodb ? { dynamodb: options.dynamodb } : {}),
        ...(options.sqs ? { sqs: options.sqs } : {}),
        ...(options.putEvents ? { putEvents: options.putEvents } : {}),
        ...(options.invokeLambda ? { invokeLambda: options.invokeLambda } : {}),
      },
    ),
    clock: options.clock ?? new WallClock(),
    maxRememberedExecutions: options.maxRememberedExecutions ?? 50_000,
    maxRememberedTokens: options.maxRememberedTokens ?? 100_000,
    maxHistoryBytes: options.maxHistoryBytes ?? 256 * 1024 * 1024,
  });
  const server = await startAwsJsonServer('Step Functions', operations(runtime), {
    targetPrefix: TARGET_PREFIX,
    ...(options.clock && { clock: options.clock }),
    maxRequestBytes: MAX_REQUEST_BYTES,
    onInternalError:
      options.onInternalError ?? ((error) => console.error('local Step Functions: internal error', error)),
    ...(options.authorize && {
      authorize: (operationName: string, body: Record<string, unknown>, received: ReceivedRequest) =>
        options.authorize?.(stepFunctionsChecks(runtime, operationName, body), received),
    }),
  });
  return {
    endpoint: server.endpoint,
    region,
    accountId,
    events: runtime.events,
    stateMachineArnFor: (name) => runtime.stateMachineArnFor(name),
    registerStateMachine: (arn, name, definitionJson, registerOptions) =>
      runtime.registerStateMachine(arn, name, definitionJson, registerOptions),
    stop: async () => {
      runtime.shutdown();
      await server.stop();
    },
  };
}
