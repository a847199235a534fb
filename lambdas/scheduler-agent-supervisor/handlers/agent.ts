/**
 * Agent Lambda (one deployment per step): consumes the step's SQS request queue, calls the step's
 * remote service and answers the Step Functions task token. Composition only; the rules live in
 * domain/agent-policy.ts.
 *
 * Per record: an invalid or misrouted message fails alone (partial batch failure); a delivery that
 * finds another delivery of the same key mid-call fails so SQS brings it back later; a late reply
 * (the task is gone) is logged and the message acknowledged, never retried.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { createDynamoDbClient, createSfnClient } from '../../shared/aws-clients';
import { sleep, systemClock } from '../../shared/clock';
import { requireEnv } from '../../shared/env';
import { jsonParser } from '../../shared/parse';
import { makeIdempotentRemoteCall } from '../adapters/idempotency';
import { HttpRemoteService, parseRemoteAuth } from '../adapters/remote-client';
import { StepFunctionsTaskCallbacks, TimerHeartbeats } from '../adapters/task-callbacks';
import { type AgentRequest, AgentRequestSchema, EnvKey, parseWorkflowTimings } from '../contracts';
import {
  type AgentOutcome,
  type CallObserver,
  callRemoteOperation,
  handleAgentRequest,
  InvalidAgentRequestError,
  idempotencyRetentionSeconds,
  remoteOperationFor,
} from '../domain/agent';

const stepName = requireEnv(EnvKey.StepName);
const { service } = remoteOperationFor(stepName);
const timings = parseWorkflowTimings(requireEnv(EnvKey.WorkflowTimings));

const logger = new Logger({ persistentKeys: { step: stepName } });
const metrics = new Metrics({ defaultDimensions: { step: stepName } });

const remote = new HttpRemoteService({
  endpointUrl: requireEnv(EnvKey.RemoteEndpointUrl),
  auth: parseRemoteAuth(requireEnv(EnvKey.RemoteAuth)),
  region: process.env.AWS_REGION,
});
const callbacks = new StepFunctionsTaskCallbacks(createSfnClient());
const backoff = { baseMillis: timings.agentBackoffBaseMillis, capMillis: timings.agentBackoffCapMillis };

const idempotentCall = makeIdempotentRemoteCall(
  (input, observer) =>
    callRemoteOperation(input, { remote, backoff, clock: systemClock, sleep, random: Math.random, observer }),
  {
    tableName: requireEnv(EnvKey.IdempotencyTableName),
    client: createDynamoDbClient(),
    expiresAfterSeconds: idempotencyRetentionSeconds(timings),
    keyPrefix: `agent#${service}`,
  },
);

const processor = new BatchProcessor(EventType.SQS);

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
  const log = logger.createChild({
    persistentKeys: {
      correlationId: request.correlationId,
      orderId: request.orderId,
      instanceId: request.instanceId,
      attempt: request.attempt,
      messageId: record.messageId,
    },
  });
  const observer: CallObserver = {
    onCall: () => metrics.addMetric('RemoteCalls', MetricUnit.Count, 1),
    onRetry: ({ callNumber, delayMillis, failure }) => {
      metrics.addMetric('RemoteRetries', MetricUnit.Count, 1);
      log.info('Remote call failed transiently; retrying', { callNumber, delayMillis, failure });
    },
  };
  const heartbeats = new TimerHeartbeats(callbacks, {
    onLate: () => {
      metrics.addMetric('LateReplies', MetricUnit.Count, 1);
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
    });
  } catch (error) {
    log.warn('Agent request not answered; the message will be redelivered', { error: error as Error });
    throw error;
  }
  report(outcome, log);
}

function report(outcome: AgentOutcome, log: Logger): void {
  if (outcome.delivery === 'late') {
    metrics.addMetric('LateReplies', MetricUnit.Count, 1);
    log.warn('Late reply dropped: the task had already timed out or ended', { outcome: outcome.kind });
  }
  if (outcome.kind === 'succeeded') {
    log.info('Step succeeded', { confirmationId: outcome.result.confirmationId });
    return;
  }
  if (outcome.reason === 'permanent') metrics.addMetric('PermanentFailures', MetricUnit.Count, 1);
  if (outcome.reason === 'deadline') metrics.addMetric('DeadlineExceeded', MetricUnit.Count, 1);
  log.warn('Step failed', { error: outcome.error, reason: outcome.reason, cause: outcome.cause });
}

export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  logger.addContext(context);
  idempotentCall.registerLambdaContext(context);
  try {
    // throwOnFullBatchFailure off: the per-record report is the only channel, so one bad record in
    // a batch of one is reported the same way as in a batch of ten.
    return await processPartialResponse(event, processRecord, processor, {
      context,
      throwOnFullBatchFailure: false,
    });
  } finally {
    metrics.publishStoredMetrics();
  }
}
