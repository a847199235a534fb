/**
 * Remediation's runner over the records of every consumer's dead-letter queue (DESIGN.md
 * "Remediation"). Per record: which service's queue held it, a stable key for the dead letter
 * (DEADLETTER#<key>, decided exactly once), the decision from domain/remediation.ts, then either a
 * deferral (ChangeMessageVisibility to the back-off's end and the record reported failed, nothing
 * recorded) or one transaction: the DEADLETTER# marker, the REMEDIATION# item and its change log
 * (RemediationDecided for the requests topic, operator alerts for the alert bus).
 *
 * Records of one delivery share a FIFO group: a deferred one holds back the later ones of its group
 * only (skipGroupOnError), never the other deliveries of the batch.
 */
import { createHash } from 'node:crypto';
import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type Clock, systemClock } from '../../shared/clock';
import { annotateTrace, type Observability, traced } from '../../shared/observability';
import {
  DECISION_DIMENSION,
  DeliveryMetric,
  MessageAttribute,
  REASON_CODE_DIMENSION,
  type RemediationSettings,
  remediationKeyOf,
  ServiceName,
  TABLE_PARTITION_KEY,
  TABLE_TTL_ATTRIBUTE,
} from '../contracts';
import {
  type DeadLetteredMessage,
  decideRemediation,
  type RemediationState,
  subjectOf,
} from '../domain/remediation';
import type { DeadLetterQueues } from './dead-letter-queues';
import { stateOf } from './decisions';
import { CommitConflictError, MAX_COMMIT_ATTEMPTS } from './fifo-consumer';
import type { DynamoServiceStore, ExtraWrite } from './service-store';

export const deadLetterMarkerKeyOf = (deadLetterKey: string) => `DEADLETTER#${deadLetterKey}`;

/** ChangeMessageVisibility's largest timeout (12 hours): a longer back-off is waited out in steps. */
export const MAX_VISIBILITY_TIMEOUT_SECONDS = 43_200;

/**
 * The dead letter's identity: its FIFO deduplication id (the dead-letterer derives it from the
 * message and the reason; a redriven message keeps the one it was sent with), else its body.
 */
export function deadLetterKeyOf(record: Pick<SQSRecord, 'attributes' | 'body'>): string {
  const identity = record.attributes.MessageDeduplicationId ?? record.body;
  return createHash('sha256').update(identity, 'utf8').digest('hex');
}

/** The record was deferred until its back-off ends: reported failed so SQS brings it back then. */
export class RemediationDeferredError extends Error {
  override readonly name = 'RemediationDeferredError';
}

export interface RemediationDependencies {
  readonly store: Pick<DynamoServiceStore, 'load' | 'commit' | 'tableName'>;
  readonly documents: DynamoDBDocumentClient;
  readonly sqs: Pick<SQSClient, 'send'>;
  readonly queues: DeadLetterQueues;
  readonly settings: RemediationSettings;
  readonly observability: Pick<
    Observability<DeliveryMetric>,
    'logger' | 'metrics' | 'tracer' | 'count' | 'countBy'
  >;
  readonly clock?: Clock;
}

/** The logger of one dead letter, with the keys it names (also the trace's annotations). */
function deadLetterLogger(
  observability: RemediationDependencies['observability'],
  keys: { readonly deliveryId?: string; readonly correlationId?: string } & Record<
    string,
    string | undefined
  >,
): Logger {
  annotateTrace(observability.tracer, { deliveryId: keys.deliveryId, correlationId: keys.correlationId });
  const present = Object.entries(keys).filter(([, value]) => value !== undefined && value !== '');
  return observability.logger.createChild({ persistentKeys: Object.fromEntries(present) });
}

/** Whether a dead letter already has its decision marker (read consistently: a redelivery races its first receive). */
async function isDecided(
  documents: RemediationDependencies['documents'],
  tableName: string,
  deadLetterKey: string,
): Promise<boolean> {
  const { Item } = await documents.send(
    new GetCommand({
      TableName: tableName,
      Key: { [TABLE_PARTITION_KEY]: deadLetterMarkerKeyOf(deadLetterKey) },
      ConsistentRead: true,
    }),
  );
  return Item !== undefined;
}

/** The dead letter's decision marker, written with the decision: only the first decision of a key commits. */
function decisionMarkerWrite(
  tableName: string,
  ttlSeconds: number,
  deadLetterKey: string,
  decision: string,
  now: Date,
): ExtraWrite {
  return {
    Put: {
      TableName: tableName,
      Item: {
        [TABLE_PARTITION_KEY]: deadLetterMarkerKeyOf(deadLetterKey),
        decision,
        decidedAt: now.toISOString(),
        // The REMEDIATION# item's decisions still hold the key after the marker expires.
        [TABLE_TTL_ATTRIBUTE]: Math.floor(now.getTime() / 1000) + ttlSeconds,
      },
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': TABLE_PARTITION_KEY },
    },
  };
}

/**
 * A decision that must wait (a back-off): the dead letter stays on its queue, invisible until the
 * back-off ends (at most SQS's visibility limit, then it is received and deferred again).
 */
async function defer(
  deps: Pick<RemediationDependencies, 'sqs' | 'observability'>,
  record: SQSRecord,
  queueUrl: string,
  delaySeconds: number,
  log: Logger,
  outcome: { decision: string; occurrence: number },
): Promise<void> {
  const timeout = Math.min(delaySeconds, MAX_VISIBILITY_TIMEOUT_SECONDS);
  await deps.sqs.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: queueUrl,
      ReceiptHandle: record.receiptHandle,
      VisibilityTimeout: timeout,
    }),
  );
  deps.observability.count(DeliveryMetric.RemediationDeferred);
  log.info('Remediation deferred until the back-off ends', {
    ...outcome,
    delaySeconds,
    visibleIn: timeout,
  });
}

export function remediationConsumer(
  deps: RemediationDependencies,
): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> {
  const { store, documents, queues, settings, observability } = deps;
  const { tracer } = observability;
  const clock = deps.clock ?? systemClock;

  const countDecision = (decision: string) =>
    observability.countBy(DeliveryMetric.RemediationDecisions, { name: DECISION_DIMENSION, value: decision });

  const decided = (deadLetterKey: string) => isDecided(documents, store.tableName, deadLetterKey);
  const markerWrite = (deadLetterKey: string, decision: string, now: Date) =>
    decisionMarkerWrite(store.tableName, settings.processedMessageTtlSeconds, deadLetterKey, decision, now);

  const handleRecord = async (record: SQSRecord): Promise<void> => {
    const queue = queues.of(record.eventSourceARN);
    if (!queue) {
      throw new Error(`${record.eventSourceARN} is not one of the dead-letter queues remediation was given`);
    }
    const deadLetterKey = deadLetterKeyOf(record);
    const subject = subjectOf(record.body);
    const correlationId =
      subject.correlationId ?? record.messageAttributes[MessageAttribute.CorrelationId]?.stringValue;
    const log = deadLetterLogger(observability, {
      deadLetterKey,
      source: queue.source,
      messageId: record.messageId,
      deliveryId: subject.deliveryId,
      correlationId,
      eventId: subject.eventId,
    });
    if (await decided(deadLetterKey)) {
      log.info('Dead letter already decided');
      return;
    }
    const deadLetter: DeadLetteredMessage = {
      deadLetterKey,
      source: queue.source,
      reasonCode: record.messageAttributes[MessageAttribute.ReasonCode]?.stringValue,
      deadLetteredAt: deadLetteredAtOf(record, clock),
      body: record.body,
    };
    const key = remediationKeyOf(subject.key);
    for (let attempt = 1; attempt <= MAX_COMMIT_ATTEMPTS; attempt += 1) {
      const current = await store.load(key);
      const now = new Date(clock.now());
      const outcome = decideRemediation({
        state: stateOf<RemediationState>(current),
        deadLetter,
        now,
        settings,
      });
      if (outcome.kind === 'defer') {
        await defer(deps, record, queue.queueUrl, outcome.delaySeconds, log, outcome);
        throw new RemediationDeferredError(`${outcome.decision} deferred ${outcome.delaySeconds}s`);
      }
      if (outcome.kind === 'ignore') {
        log.info('Dead letter ignored', { reason: outcome.reason });
        return;
      }
      const { remediation, alerts, decided: taken } = outcome.state;
      const { decision } = taken;
      const committed = await store.commit({
        key,
        read: current,
        change: {
          state: { ...remediation },
          emissions: outcome.emissions,
          producer: ServiceName.Remediation,
          deliveryId: subject.key,
          // An envelope needs one; a dead letter that names no correlation id is traced by its delivery.
          correlationId: correlationId ?? subject.key,
          alerts,
        },
        extraWrites: [markerWrite(deadLetterKey, decision, now)],
        now,
      });
      if (committed.kind === 'committed') {
        countDecision(decision);
        if (alerts.length > 0) {
          observability.countBy(DeliveryMetric.RemediationGiveUps, {
            name: REASON_CODE_DIMENSION,
            value: taken.reasonCode,
          });
        }
        log.info('Remediation decided', { decision, emitted: committed.appended.map((entry) => entry.id) });
        return;
      }
      if (committed.kind === 'conflict' && committed.extraWriteIndex === 0) {
        log.info('Dead letter decided concurrently by another receive');
        return;
      }
      log.info('Commit lost a race; deciding again from a fresh read', { attempt });
    }
    throw new CommitConflictError(`${key} kept changing: ${MAX_COMMIT_ATTEMPTS} commits lost the race`);
  };

  return (event, context) =>
    processPartialResponse(
      event,
      (record: SQSRecord) => traced(tracer, 'dead letter', {}, () => handleRecord(record)),
      new SqsFifoPartialProcessorAsync(),
      { context, throwOnFullBatchFailure: false, skipGroupOnError: true },
    );
}

/**
 * When the message was dead-lettered: the dead-letterer's attribute; a message the queue's redrive
 * moved has none, and its SentTimestamp (kept through the redrive) is the best bound.
 */
function deadLetteredAtOf(record: SQSRecord, clock: Clock): Date {
  const stamped = Date.parse(record.messageAttributes[MessageAttribute.DeadLetteredAt]?.stringValue ?? '');
  if (Number.isFinite(stamped)) return new Date(stamped);
  const sent = Number(record.attributes.SentTimestamp);
  return new Date(Number.isFinite(sent) && sent > 0 ? sent : clock.now());
}
