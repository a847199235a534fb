/**
 * Starter: consumes the start queue (SQS, partial batch responses). Each message asks "claim and
 * start this order"; the state record decides what that means. A message that can never succeed
 * (malformed, unknown order) is reported as a failure so SQS redrives it to the start queue's DLQ.
 * So is one whose StartExecution kept failing: its claim has been given back (see startOrder), and
 * the redelivery, or the supervisor if none comes, starts the same attempt again.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { createSfnClient } from '../../shared/aws-clients/sfn';
import { sleep, systemClock } from '../../shared/clock';
import { requireEnv } from '../../shared/env';
import { describeError } from '../../shared/errors';
import { annotateTrace, createObservability, instrumentedHandler } from '../../shared/observability';
import { jsonParser } from '../../shared/parse';
import { processSqsBatch } from '../../shared/sqs-batch';
import { DynamoOrdersRepository } from '../adapters/orders-repository';
import { readWorkflowStateMachines, readWorkflowTimings } from '../adapters/runtime-config';
import { DynamoStateStore } from '../adapters/state-store';
import { SfnWorkflowStarter } from '../adapters/workflow-starter';
import { EnvKey, OrderMetric, StartOrderMessageSchema } from '../contracts';
import { START_RETRY_POLICY, type StartDependencies, startOrder } from '../domain/starter';
import { UnsupportedRecordVersion } from '../domain/state-record';

const observability = createObservability<OrderMetric>();
const { logger, tracer, count } = observability;

const stateMachines = readWorkflowStateMachines();
const documents = createDocumentClient(tracer);
const dependencies: StartDependencies = {
  states: new DynamoStateStore(documents, requireEnv(EnvKey.StateTableName)),
  orders: new DynamoOrdersRepository(documents, requireEnv(EnvKey.OrdersTableName)),
  workflow: new SfnWorkflowStarter(createSfnClient(tracer), stateMachines),
  liveWorkflowVersions: [...stateMachines.keys()],
  clock: systemClock,
  timings: readWorkflowTimings(),
  retry: {
    policy: START_RETRY_POLICY,
    sleep,
    random: Math.random,
  },
};

const parseStartMessage = jsonParser(StartOrderMessageSchema);

async function handleRecord(record: SQSRecord, context: Context): Promise<void> {
  const log = logger.createChild({ persistentKeys: { messageId: record.messageId } });
  log.addContext(context);
  const parsed = parseStartMessage(record.body);
  if (!parsed.ok) {
    throw new Error(
      `Start message ${record.messageId} is ${parsed.problem === 'not-json' ? 'not JSON' : 'invalid'}: ${parsed.summary}`,
    );
  }
  const message = parsed.value;
  log.appendKeys({ orderId: message.orderId, correlationId: message.correlationId, reason: message.reason });
  annotateTrace(tracer, { orderId: message.orderId, correlationId: message.correlationId });

  const outcome = await startOrder(message, dependencies);
  switch (outcome.kind) {
    case 'started':
      if (outcome.claimed) {
        count(OrderMetric.ClaimsWon);
        log.info('Order claimed and execution started', {
          instanceId: outcome.instanceId,
          attempt: outcome.attempt,
          alreadyStarted: outcome.alreadyStarted,
          tries: outcome.tries,
        });
      } else {
        count(OrderMetric.StartsResumed);
        log.info('Execution of an existing claim re-issued', {
          instanceId: outcome.instanceId,
          alreadyStarted: outcome.alreadyStarted,
          tries: outcome.tries,
        });
      }
      return;
    case 'start-failed': {
      const details = {
        instanceId: outcome.instanceId,
        attempt: outcome.attempt,
        tries: outcome.tries,
        error: outcome.error,
        release: outcome.release,
      };
      switch (outcome.release.kind) {
        case 'applied':
          log.warn(
            'StartExecution kept failing; claim released to Pending, the message will be redelivered',
            details,
          );
          break;
        case 'lost':
          // Someone moved the record on (the execution did start and wrote, or the supervisor reset it).
          log.warn(
            'StartExecution kept failing; the record had moved on, so the claim was left alone',
            details,
          );
          break;
        case 'not-ours':
          log.warn(
            'StartExecution kept failing for an earlier claim; the message will be redelivered',
            details,
          );
          break;
        case 'failed':
          // The record stays Processing: the supervisor expires it after CompleteBy.
          log.error('StartExecution kept failing and releasing the claim failed too', details);
          break;
      }
      throw new Error(
        `StartExecution of '${outcome.instanceId}' failed ${outcome.tries} time(s), last: ${outcome.error}`,
      );
    }
    case 'claim-lost':
      // Another starter claimed this attempt first (duplicate delivery or a concurrent restart).
      count(OrderMetric.ClaimsLost);
      log.info('Claim lost to another starter', { instanceId: outcome.instanceId });
      return;
    case 'skipped': {
      count(OrderMetric.StartsSkipped);
      const details = { skipReason: outcome.reason, detail: outcome.detail };
      if (outcome.reason === 'inconsistent') {
        log.error('Start message not acted on: the record is inconsistent', details);
      } else {
        log.info('Start message not acted on', details);
      }
      return;
    }
  }
}

export const handler = instrumentedHandler(
  observability,
  (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
    processSqsBatch(
      event,
      context,
      async (record) => {
        try {
          await handleRecord(record, context);
        } catch (error) {
          if (error instanceof UnsupportedRecordVersion) {
            // Left untouched: redeliveries end in the start queue's DLQ, for an operator to see.
            count(OrderMetric.UnsupportedRecordVersions);
            logger.error('Start message refused: the record has a version this deployment does not run', {
              messageId: record.messageId,
              orderId: error.orderId,
              detail: error.detail,
            });
            throw error;
          }
          logger.error('Start message failed; SQS will redeliver it', {
            messageId: record.messageId,
            error: describeError(error),
          });
          throw error;
        }
      },
      { tracer, recordSubsegment: 'start order' },
    ),
);
