/**
 * Agent Lambda (one deployment per step): consumes the step's SQS request queue, calls the step's
 * remote service (the step's operation, or its compensation) and answers the Step Functions task
 * token. Composition only; the rules live in domain/agent.ts.
 *
 * Per record: an invalid or misrouted message (another step's, or an operation that is neither this
 * step nor its compensation) fails alone (partial batch failure); a delivery that
 * finds another delivery of the same key mid-call fails so SQS brings it back later; a late reply
 * (the task is gone) is logged and the message acknowledged, never retried.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { createDocumentClient, createDynamoDbClient } from '../../shared/aws-clients/dynamodb';
import { createSfnClient } from '../../shared/aws-clients/sfn';
import { sleep, systemClock } from '../../shared/clock';
import { requireEnv } from '../../shared/env';
import { annotateTrace, createObservability, instrumentedHandler } from '../../shared/observability';
import { jsonParser } from '../../shared/parse';
import { processSqsBatch } from '../../shared/sqs-batch';
import { DynamoCallBudget } from '../adapters/call-budget';
import { makeIdempotentRemoteCall } from '../adapters/idempotency';
import { HttpRemoteService, parseRemoteAuth } from '../adapters/remote-client';
import { readRetryBudget } from '../adapters/runtime-config';
import { DynamoStepCompletions } from '../adapters/step-completions';
import { StepFunctionsTaskCallbacks, TimerHeartbeats } from '../adapters/task-callbacks';
import {
  type AgentRequest,
  AgentRequestSchema,
  EnvKey,
  OrderMetric,
  parseWorkflowTimings,
} from '../contracts';
import {
  type AgentOutcome,
  type CallObserver,
  callRemoteOperation,
  handleAgentRequest,
  idempotencyRetentionSeconds,
  remoteOperationFor,
  resolveAgentOperation,
} from '../domain/agent';
import { InvalidAgentRequestError } from '../domain/errors';

const stepName = requireEnv(EnvKey.StepName);
const { service } = remoteOperationFor(stepName);
const timings = parseWorkflowTimings(requireEnv(EnvKey.WorkflowTimings));

const observability = createObservability<OrderMetric>({
  persistentLogKeys: { step: stepName },
  defaultDimensions: { step: stepName },
});
const { logger, tracer, count } = observability;

const remote = new HttpRemoteService({
  endpointUrl: requireEnv(EnvKey.RemoteEndpointUrl),
  auth: parseRemoteAuth(requireEnv(EnvKey.RemoteAuth)),
  region: process.env.AWS_REGION,
});
const callbacks = new StepFunctionsTaskCallbacks(createSfnClient(tracer));
const stateClient = createDocumentClient(tracer);
const budget = new DynamoCallBudget(
  stateClient,
  requireEnv(EnvKey.StateTableName),
  readRetryBudget(),
  systemClock,
);
const completions = new DynamoStepCompletions(stateClient, requireEnv(EnvKey.StateTableName), systemClock);
const backoff = { baseMillis: timings.agentBackoffBaseMillis, capMillis: timings.agentBackoffCapMillis };

const idempotentCall = makeIdempotentRemoteCall(
  (input, observer) =>
    callRemoteOperation(input, {
      remote,
      budget,
      backoff,
      clock: systemClock,
      sleep,
      random: Math.random,
      observer,
    }),
  {
    tableName: requireEnv(EnvKey.IdempotencyTableName),
    client: createDynamoDbClient(tracer),
    expiresAfterSeconds: idempotencyRetentionSeconds(timings),
    keyPrefix: `agent#${service}`,
  },
);

const parseRequestJson = jsonParser(AgentRequestSchema);

export function parseAgentRequest(body: string): AgentRequest {
  const parsed = parseRequestJson(body);
  if (!parsed.ok) {
    throw new InvalidAgentRequestError(
      `message body is ${parsed.problem === 'not-json' ? 'not JSON' : 'not an AgentRequest'}: ${parsed.summary}`,
    );
  }
  if (parsed.value.step !== stepName) {
    throw new InvalidAgentRequestError(
      `message for step '${parsed.value.step}' reached the agent of step '${stepName}' (misrouted)`,
    );
  }
  resolveAgentOperation(parsed.value);
  return parsed.value;
}

async function processRecord(record: SQSRecord): Promise<void> {
  let request: AgentRequest;
  try {
    request = parseAgentRequest(record.body);
  } catch (error) {
    logger.error('Rejected agent message', { messageId: record.messageId, error: error as Error });
    throw error;
  }
  annotateTrace(tracer, { orderId: request.orderId, correlationId: request.correlationId });
  const log = logger.createChild({
    persistentKeys: {
      correlationId: request.correlationId,
      orderId: request.orderId,
      action: request.action,
      operation: request.operation,
      instanceId: request.instanceId,
      attempt: request.attempt,
      messageId: record.messageId,
    },
  });
  const observer: CallObserver = {
    onCall: () => count(OrderMetric.RemoteCalls),
    onRetry: ({ callNumber, delayMillis, failure }) => {
      count(OrderMetric.RemoteRetries);
      log.info('Remote call failed transiently; retrying', { callNumber, delayMillis, failure });
    },
  };
  const heartbeats = new TimerHeartbeats(callbacks, {
    onLate: () => {
      count(OrderMetric.LateReplies);
      log.warn(
        'Heartbeat found the task gone; the call in flight finishes and is recorded for the next attempt',
      );
    },
    onError: (error) => log.warn('Heartbeat failed; the next one will be sent', { error: error as Error }),
  });
  let outcome: AgentOutcome;
  try {
    outcome = await handleAgentRequest(request, {
      callRemoteIdempotently: (input) => idempotentCall.call(input, observer),
      callbacks,
      heartbeats,
      concurrentDeliveryWait: { clock: systemClock, sleep, random: Math.random, backoff },
      completions,
    });
  } catch (error) {
    log.warn('Agent request not answered; the message will be redelivered', { error: error as Error });
    throw error;
  }
  report(outcome, request, log);
}

function report(outcome: AgentOutcome, request: AgentRequest, log: Logger): void {
  const what = request.action === 'compensate' ? 'Compensation' : 'Step';
  if (outcome.delivery === 'late') {
    count(OrderMetric.LateReplies);
    log.warn('Late reply dropped: the task had already timed out or ended', { outcome: outcome.kind });
  }
  if (outcome.kind === 'succeeded') {
    log.info(`${what} succeeded`, {
      confirmationId: outcome.result.confirmationId,
      ...(outcome.result.undone !== undefined && { undone: outcome.result.undone }),
    });
    return;
  }
  if (outcome.reason === 'permanent') count(OrderMetric.PermanentFailures);
  if (outcome.reason === 'deadline') count(OrderMetric.DeadlineExceeded);
  if (outcome.reason === 'budget-exhausted') count(OrderMetric.RetryBudgetExhausted);
  log.warn(`${what} failed`, { error: outcome.error, reason: outcome.reason, cause: outcome.cause });
}

export const handler = instrumentedHandler(
  observability,
  (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    logger.addContext(context);
    idempotentCall.registerLambdaContext(context);
    return processSqsBatch(event, context, processRecord, { tracer, recordSubsegment: 'agent request' });
  },
);
