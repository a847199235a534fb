/**
 * The consumer kit's runner: how every FIFO queue consumer of the choreography works through a
 * batch (DESIGN.md "Consumers"). A service supplies only which item an event concerns and a
 * reaction; the runner parses, de-duplicates, commits (retrying a lost version race from a fresh
 * read), dead-letters, and decides between "retry the record" and "dead-letter it" on errors.
 *
 * Powertools' SQS FIFO processor stops at a batch's first failure and reports every later record
 * failed too, so a group's order is kept: a record is never processed after an earlier one of its
 * batch failed.
 */
import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type Clock, systemClock } from '../../shared/clock';
import { describeError } from '../../shared/errors';
import { annotateTrace, type Observability, traced } from '../../shared/observability';
import {
  CONSUMED_EVENT_TYPES,
  type ConsumerSettings,
  type DeliveryEvent,
  DeliveryMetric,
  type EventType,
  parseEvent,
  ReasonCode,
  type ServiceName,
} from '../contracts';
import type { DeadLetterReason, Reaction, ServiceItem } from '../domain/reaction';
import type { DeadLetterer } from './dead-letterer';
import type { CommitOutcome, DynamoServiceStore, ExtraWrite, ProcessedMarker } from './service-store';

/** In-process re-reads after a lost version race before the record is failed (and redelivered). */
export const MAX_COMMIT_ATTEMPTS = 5;

/** What a service writes to be a consumer: the rest is the kit's. */
export interface ConsumerDefinition<T extends EventType = EventType> {
  readonly service: ServiceName;
  /** The event types it parses; CONSUMED_EVENT_TYPES[service] when omitted. */
  readonly accepts?: readonly T[];
  /** The state item an event concerns, e.g. `PACKAGES#<deliveryId>`. */
  readonly itemKeyOf: (event: DeliveryEvent<T>) => string;
  /**
   * The decision about one event given the item as read (undefined: none yet). Pure, or reading
   * more of the service's own table (the drone scheduler's DRONE# items): it runs again after a
   * conflict, so it must not have effects of its own.
   */
  readonly react: (
    current: ServiceItem | undefined,
    event: DeliveryEvent<T>,
    now: Date,
  ) => Reaction<ExtraWrite> | Promise<Reaction<ExtraWrite>>;
  /** Told of every lost race (e.g. to count DroneAssignmentConflicts); the runner retries anyway. */
  readonly onConflict?: (conflict: Extract<CommitOutcome, { kind: 'conflict' }>) => void;
}

export interface ConsumerDependencies {
  readonly store: Pick<DynamoServiceStore, 'load' | 'readMarker' | 'commit'>;
  readonly deadLetterer: DeadLetterer;
  readonly settings: ConsumerSettings;
  readonly observability: Pick<Observability<DeliveryMetric>, 'logger' | 'metrics' | 'tracer' | 'count'>;
  readonly clock?: Clock;
}

/** A commit kept losing the version race: a dependency-like failure (the record is retried). */
export class CommitConflictError extends Error {
  override readonly name = 'CommitConflictError';
}

/** The SQS handler of a FIFO consumer (wrap it in instrumentedHandler in the composition root). */
export function fifoConsumer<T extends EventType>(
  definition: ConsumerDefinition<T>,
  deps: ConsumerDependencies,
): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> {
  const accepts = definition.accepts ?? (CONSUMED_EVENT_TYPES[definition.service] as readonly T[]);
  const { store, deadLetterer, settings, observability } = deps;
  const { logger, metrics, tracer, count } = observability;
  const clock = deps.clock ?? systemClock;
  const now = () => new Date(clock.now());

  const countDeadLetter = (reasonCode: ReasonCode) => {
    // A metric of its own: the reasonCode dimension must not attach to the invocation's other metrics.
    const single = metrics.singleMetric();
    single.addDimension('reasonCode', reasonCode);
    single.addMetric(DeliveryMetric.MessagesDeadLettered, MetricUnit.Count, 1);
  };

  const deadLetter = async (
    record: SQSRecord,
    reason: DeadLetterReason,
    routing: { deliveryId?: string; correlationId?: string; eventId?: string },
    log: Logger,
  ) => {
    await deadLetterer.send(
      {
        body: record.body,
        reasonCode: reason.reasonCode,
        detail: reason.detail,
        messageKey: routing.eventId ?? record.messageId,
        attempt: reason.attempt ?? receiveCountOf(record),
        ...(routing.deliveryId ? { deliveryId: routing.deliveryId } : {}),
        ...(routing.correlationId ? { correlationId: routing.correlationId } : {}),
      },
      now(),
    );
    countDeadLetter(reason.reasonCode);
    log.warn('Message dead-lettered', { reasonCode: reason.reasonCode, detail: reason.detail });
  };

  const duplicate = async (
    event: DeliveryEvent<T>,
    record: SQSRecord,
    marker: ProcessedMarker,
    log: Logger,
  ) => {
    count(DeliveryMetric.DuplicatesSkipped);
    log.info('Duplicate message: already processed', { processedAt: marker.processedAt });
    // The first delivery may have committed and failed before its dead letter was sent.
    if (marker.deadLetter) await deadLetter(record, marker.deadLetter, event, log);
  };

  const process = async (event: DeliveryEvent<T>, record: SQSRecord, log: Logger) => {
    const seen = await store.readMarker(event.eventId);
    if (seen) return duplicate(event, record, seen, log);
    const key = definition.itemKeyOf(event);
    for (let attempt = 1; attempt <= MAX_COMMIT_ATTEMPTS; attempt += 1) {
      const current = await store.load(key);
      const at = now();
      const reaction = await definition.react(current, event, at);
      const deadLetterReason = reaction.kind === 'change' ? reaction.deadLetter : undefined;
      const outcome = await store.commit({
        eventId: event.eventId,
        ...(deadLetterReason ? { deadLetter: deadLetterReason } : {}),
        key,
        read: current,
        ...(reaction.kind === 'change'
          ? {
              change: {
                state: reaction.state,
                emissions: reaction.emissions,
                ...(reaction.alerts ? { alerts: reaction.alerts } : {}),
                producer: definition.service,
                deliveryId: event.deliveryId,
                correlationId: event.correlationId,
              },
              ...(reaction.extraWrites ? { extraWrites: reaction.extraWrites } : {}),
            }
          : {}),
        now: at,
      });
      switch (outcome.kind) {
        case 'committed':
          count(DeliveryMetric.MessagesProcessed);
          if (reaction.kind === 'ignore') {
            count(DeliveryMetric.StaleEventsIgnored);
            log.info('Event ignored', { reason: reaction.reason });
          } else {
            log.info('Event processed', { emitted: outcome.appended.map((entry) => entry.id) });
          }
          if (deadLetterReason) await deadLetter(record, deadLetterReason, event, log);
          return;
        case 'duplicate': {
          const marker = await store.readMarker(event.eventId);
          return duplicate(event, record, marker ?? { eventId: event.eventId, processedAt: 'unknown' }, log);
        }
        case 'conflict':
          definition.onConflict?.(outcome);
          log.info('Commit lost a race; deciding again from a fresh read', { attempt });
      }
    }
    throw new CommitConflictError(`${key} kept changing: ${MAX_COMMIT_ATTEMPTS} commits lost the race`);
  };

  const handleRecord = async (record: SQSRecord): Promise<void> => {
    const parsed = parseEvent(record.body, accepts);
    if (!parsed.ok) {
      const routing = {
        deliveryId: parsed.deliveryId,
        correlationId: parsed.correlationId,
        eventId: parsed.eventId,
      };
      const log = logger.createChild({ persistentKeys: { ...routing, messageId: record.messageId } });
      annotateTrace(tracer, { deliveryId: parsed.deliveryId, correlationId: parsed.correlationId });
      return deadLetter(record, parsed, routing, log);
    }
    const { event } = parsed;
    const log = logger.createChild({
      persistentKeys: {
        deliveryId: event.deliveryId,
        correlationId: event.correlationId,
        eventId: event.eventId,
        type: event.type,
      },
    });
    annotateTrace(tracer, { deliveryId: event.deliveryId, correlationId: event.correlationId });
    try {
      await process(event, record, log);
    } catch (error) {
      const receiveCount = receiveCountOf(record);
      if (receiveCount < settings.maxReceiveAttempts) {
        log.warn('Processing failed; the message will be received again', {
          error: describeError(error),
          receiveCount,
        });
        throw error;
      }
      log.error('Processing failed on the last allowed receive', {
        error: describeError(error),
        stack: (error as Error | undefined)?.stack,
        receiveCount,
      });
      await deadLetter(
        record,
        { reasonCode: ReasonCode.DependencyTimeout, detail: describeError(error) },
        event,
        log,
      );
    }
  };

  return (event, context) =>
    // One processor per invocation: it holds the batch's results, and several invocations of one
    // module may run at once in the same process (the local runtime, the integration tests).
    processPartialResponse(
      event,
      (record: SQSRecord) => traced(tracer, 'record', {}, () => handleRecord(record)),
      new SqsFifoPartialProcessorAsync(),
      { context, throwOnFullBatchFailure: false },
    );
}

export function receiveCountOf(record: Pick<SQSRecord, 'attributes'>): number {
  const count = Number(record.attributes?.ApproximateReceiveCount);
  return Number.isInteger(count) && count >= 1 ? count : 1;
}
