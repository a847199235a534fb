/**
 * The relay's work on one stream batch: records in order, each record's new change log entries in
 * order. On the first failure it stops and reports that record's sequence number, so the event
 * source mapping retries from there (stream semantics: everything before it is done; nothing after
 * it may overtake it). Entries of a retried record that were already published go out again with
 * the same event id, which FIFO dedup and every consumer's MSG# marker absorb.
 */
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { describeError } from '../../shared/errors';
import type { Observability } from '../../shared/observability';
import { DeliveryMetric, OUTBOX_ATTRIBUTE } from '../contracts';
import { newOutboxEntries } from '../domain/relay';
import type { OutboxPublisher } from './outbox-publisher';
import { fromAttributeValue, type StreamAttributeValue } from './stream-image';

export interface RelayDependencies {
  readonly publisher: OutboxPublisher;
  readonly observability: Pick<Observability<DeliveryMetric>, 'logger' | 'count'>;
}

export function outboxRelay(
  deps: RelayDependencies,
): (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse> {
  const { publisher, observability } = deps;
  const { logger, count } = observability;
  return async (event) => {
    for (const record of event.Records) {
      try {
        const entries = entriesOf(record);
        for (const entry of entries) {
          await publisher.publish(entry);
          count(DeliveryMetric.OutboxEventsPublished);
          logger.info('Outbox entry published', {
            entryId: entry.id,
            destination: entry.destination,
            deliveryId: entry.message.deliveryId,
            correlationId: entry.message.correlationId,
          });
        }
      } catch (error) {
        count(DeliveryMetric.OutboxPublishFailures);
        logger.error('Publishing a change log failed; the stream resumes from this record', {
          sequenceNumber: record.dynamodb?.SequenceNumber,
          error: describeError(error),
        });
        return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] };
      }
    }
    return { batchItemFailures: [] };
  };
}

function entriesOf(record: DynamoDBRecord) {
  const outboxOf = (image: Record<string, unknown> | undefined) => {
    const value = image?.[OUTBOX_ATTRIBUTE] as StreamAttributeValue | undefined;
    return value === undefined ? undefined : (fromAttributeValue(value) as unknown[]);
  };
  return newOutboxEntries(outboxOf(record.dynamodb?.NewImage), outboxOf(record.dynamodb?.OldImage));
}
