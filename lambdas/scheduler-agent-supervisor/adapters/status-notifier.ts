/**
 * The status notifier's work on one stream batch of the state table: records in order, each turned
 * into a StatusChange and handed to the notify use case. On the first send failure it stops and
 * reports that record's sequence number, so the event source retries from there (everything before
 * it is done; nothing after it may overtake it, which keeps each order's statuses in order).
 * Messages of a retried record that already went out are de-duplicated by the FIFO queue.
 *
 * It is also the relay of the alert outbox (DESIGN.md, Alert outbox): after telling the client, the
 * alerts the record's change wrote (in its new image, not in its old one) are published and their
 * entries removed. A publish that fails does not fail the record: it is counted and the entry left
 * for the supervisor, which re-delivers it from the AlertOutboxIndex once it is older than
 * alertRedeliveryGraceSeconds. Failing the record would hold the client messages of every later
 * record of the shard behind the alert bus, and once the stream's retries ran out it would drop
 * them with the failed batch (the chaos campaign's alert-bus-outage lost client messages so).
 * Alerts published twice are de-duplicated by AlertId.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { describeError } from '../../shared/errors';
import type { Observability } from '../../shared/observability';
import { AlertOutboxAttr, type ClientRegistry, OrderMetric, StateAttr } from '../contracts';
import { deliverOutbox } from '../domain/alert-outbox';
import { notifyClient, type StatusChange, type StatusImage } from '../domain/client-status';
import { flowMeasurements } from '../domain/flow-metrics';
import type {
  AlertOutboxStore,
  ClientReplySender,
  OutboxAlertPublisher,
  StoredOutbox,
} from '../domain/ports';

export interface StatusNotifierDependencies {
  readonly registry: ClientRegistry;
  readonly replies: ClientReplySender;
  /** The alert outbox relay: the bus and the entries' removal. */
  readonly alerts: OutboxAlertPublisher;
  readonly outbox: AlertOutboxStore;
  readonly observability: Pick<Observability<OrderMetric>, 'logger' | 'count' | 'countBy' | 'gauge'>;
}

export function statusNotifier(
  deps: StatusNotifierDependencies,
): (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse> {
  const { observability, registry, replies } = deps;
  const { logger, count, countBy, gauge } = observability;
  return async (event) => {
    for (const record of event.Records) {
      let change: StatusChange | undefined;
      try {
        change = statusChangeOf(record);
      } catch (error) {
        // An image this code cannot read will not read better on a retry: report it and move on.
        count(OrderMetric.ClientStatusUnroutable);
        logger.error('Stream record not understood; no client told', {
          sequenceNumber: record.dynamodb?.SequenceNumber,
          error: describeError(error),
        });
        continue;
      }
      try {
        const outcome = await notifyClient(change, { registry, replies, log: logger });
        if (outcome.kind === 'sent') {
          countBy(OrderMetric.ClientStatusMessages, { name: 'status', value: outcome.status });
        } else if (outcome.kind === 'unroutable') {
          count(OrderMetric.ClientStatusUnroutable);
        }
        // Counted only once the record is done: a record that fails is redelivered, and counted then.
        for (const { metric, value, unit, dimension } of flowMeasurements(change)) {
          if (unit === 'Seconds') gauge(metric, value, MetricUnit.Seconds);
          else if (dimension !== undefined) countBy(metric, dimension, value);
          else count(metric, value);
        }
      } catch (error) {
        count(OrderMetric.ClientStatusSendFailures);
        logger.error('Telling the client failed; the stream resumes from this record', {
          sequenceNumber: record.dynamodb?.SequenceNumber,
          orderId: change.newImage?.orderId,
          error: describeError(error),
        });
        return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] };
      }
      const outbox = outboxOf(record);
      if (outbox === undefined) continue;
      try {
        await deliverOutbox(outbox.orderId, outbox.entries, {
          publisher: deps.alerts,
          store: deps.outbox,
          log: logger,
        });
      } catch (error) {
        count(OrderMetric.AlertPublishFailures);
        logger.error('Alert not delivered; left in the outbox for the supervisor to re-deliver', {
          sequenceNumber: record.dynamodb?.SequenceNumber,
          orderId: outbox.orderId,
          error: describeError(error),
        });
      }
    }
    return { batchItemFailures: [] };
  };
}

type Image = NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']>;

/**
 * The AlertOutbox entries this record's change wrote: in its new image and not, with the same At,
 * in its old one. Any later write to the record before the relay removed the entry (the admission
 * release, a claim, the index's cleanup) carries the entry too; relaying it again from each such
 * record multiplied every alert. If the relay fails on the record that wrote it, the stream retries
 * that record (nothing after it overtakes it), and once the stream gives up the supervisor's
 * backstop delivers the entry: skipping the carriers loses nothing.
 */
export function outboxOf(record: DynamoDBRecord): { orderId: string; entries: StoredOutbox } | undefined {
  const image = record.dynamodb?.NewImage;
  const outbox = image?.[StateAttr.AlertOutbox]?.M;
  const orderId = image?.[StateAttr.OrderId]?.S;
  if (outbox === undefined || orderId === undefined) return undefined;
  const before = record.dynamodb?.OldImage?.[StateAttr.AlertOutbox]?.M ?? {};
  const written = Object.entries(outbox).filter(([alertId, entry]) => {
    const at = entry.M?.[AlertOutboxAttr.At]?.S;
    return at === undefined || before[alertId]?.M?.[AlertOutboxAttr.At]?.S !== at;
  });
  if (written.length === 0) return undefined;
  return { orderId, entries: plainValueOf({ M: Object.fromEntries(written) }) as StoredOutbox };
}

type TypedValue = NonNullable<Image[string]>;

/**
 * The stream's typed JSON as plain values, as the document client reads them (for what an outbox
 * entry holds: strings, numbers, booleans, maps, lists). Written here rather than importing
 * @aws-sdk/util-dynamodb, which the project does not depend on directly.
 */
function plainValueOf(value: TypedValue): unknown {
  if (value.S !== undefined) return value.S;
  if (value.N !== undefined) return Number(value.N);
  if (value.BOOL !== undefined) return value.BOOL;
  if (value.NULL !== undefined) return null;
  if (value.L !== undefined) return value.L.map(plainValueOf);
  if (value.M !== undefined) {
    return Object.fromEntries(Object.entries(value.M).map(([key, inner]) => [key, plainValueOf(inner)]));
  }
  throw new Error(`Unsupported attribute value in an alert outbox entry: ${Object.keys(value).join(', ')}`);
}

/** The few attributes the decision reads, from the stream's typed JSON (all strings). */
export function statusChangeOf(record: DynamoDBRecord): StatusChange {
  const eventName = record.eventName;
  if (eventName !== 'INSERT' && eventName !== 'MODIFY' && eventName !== 'REMOVE') {
    throw new Error(`Unexpected stream event ${JSON.stringify(eventName)}`);
  }
  const newImage = record.dynamodb?.NewImage;
  const oldImage = record.dynamodb?.OldImage;
  return {
    eventName,
    ...(newImage !== undefined && { newImage: statusImageOf(newImage) }),
    ...(oldImage !== undefined && {
      oldImage: { processState: requiredString(oldImage, StateAttr.ProcessState) },
    }),
  };
}

function statusImageOf(image: Image): StatusImage {
  const clientId = image[StateAttr.ClientId]?.S;
  const failureCount = Number(image[StateAttr.FailureCount]?.N);
  const createdAt = image[StateAttr.CreatedAt]?.S;
  return {
    orderId: requiredString(image, StateAttr.OrderId),
    processState: requiredString(image, StateAttr.ProcessState),
    updatedAt: requiredString(image, StateAttr.UpdatedAt),
    ...(clientId !== undefined && { clientId }),
    ...(Number.isInteger(failureCount) && { failureCount }),
    ...(createdAt !== undefined && { createdAt }),
  };
}

function requiredString(image: Image, attribute: string): string {
  const value = image[attribute]?.S;
  if (value === undefined) throw new Error(`Stream image has no string ${attribute}`);
  return value;
}
