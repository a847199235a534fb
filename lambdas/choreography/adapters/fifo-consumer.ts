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
  REASON_CODE_DIMENSION,
  ReasonCode,
  type ServiceName,
} from '../contracts';
import type { DeadLetterReason, Reaction, ServiceItem } from '../domain/reaction';
import type { DeadLetterer } from './dead-letterer';
import type {
  CommitOutcome,
  CommitRequest,
  DynamoServiceStore,
  ExtraWrite,
  ProcessedMarker,
} from './service-store';

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
  readonly observability: Pick<
    Observability<DeliveryMetric>,
    'logger' | 'metrics' | 'tracer' | 'count' | 'countBy'
  >;
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
  const { tracer, count } = observability;
  const clock = deps.clock ?? systemClock;
  const now = () => new Date(clock.now());

  const countDeadLetter = (reasonCode: ReasonCode) =>
    observability.countBy(DeliveryMetric.MessagesDeadLettered, {
      name: REASON_CODE_DIMENSION,
      value: reasonCode,
    });

  const deadLetter = async (
    record: SQSRecord,
    reason: DeadLetterReason,
    routing: DeadLetterRouting,
    log: Logger,
  ) => {
    await deadLetterer.send(deadLetterOf(record, reason, routing), now());
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
      const outcome = await store.commit(commitRequestOf(definition, event, key, current, reaction, at));
      switch (outcome.kind) {
        case 'committed':
          count(DeliveryMetric.MessagesProcessed);
          if (reaction.kind === 'ignore') {
            count(DeliveryMetric.StaleEventsIgnored);
            log.info('Event ignored', { reason: reaction.reason });
          } else {
            for (const { metric, dimension } of reaction.counts ?? [])
              observability.countBy(metric, dimension);
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
      return deadLetter(
        record,
        parsed,
        routing,
        recordLogger(observability, routing, {
          eventId: parsed.eventId,
          messageId: record.messageId,
        }),
      );
    }
    const { event } = parsed;
    const log = recordLogger(observability, event, { eventId: event.eventId, type: event.type });
    try {
      await process(event, record, log);
    } catch (error) {
      if (!isLastReceive(record, settings.maxReceiveAttempts, error, log)) throw error;
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

/** The logger of one record, keyed by its delivery and correlation (also the trace's annotations). */
function recordLogger(
  observability: Pick<Observability<DeliveryMetric>, 'logger' | 'tracer'>,
  routing: { readonly deliveryId?: string; readonly correlationId?: string },
  keys: Record<string, string | undefined>,
): Logger {
  const { deliveryId, correlationId } = routing;
  annotateTrace(observability.tracer, { deliveryId, correlationId });
  return observability.logger.createChild({ persistentKeys: { deliveryId, correlationId, ...keys } });
}

/**
 * A record whose processing failed: false while receives remain (the caller rethrows, and SQS
 * delivers it again after its visibility timeout), true on the last allowed one (dead-letter it).
 */
function isLastReceive(record: SQSRecord, maxReceiveAttempts: number, error: unknown, log: Logger): boolean {
  const receiveCount = receiveCountOf(record);
  if (receiveCount < maxReceiveAttempts) {
    log.warn('Processing failed; the message will be received again', {
      error: describeError(error),
      receiveCount,
    });
    return false;
  }
  log.error('Processing failed on the last allowed receive', {
    error: describeError(error),
    stack: (error as Error | undefined)?.stack,
    receiveCount,
  });
  return true;
}

/** What a dead letter names besides its reason: the delivery, its correlation and the event, when known. */
interface DeadLetterRouting {
  readonly deliveryId?: string;
  readonly correlationId?: string;
  readonly eventId?: string;
}

/** The dead letter of one record: its body kept whole, keyed by the event (else the message). */
function deadLetterOf(record: SQSRecord, reason: DeadLetterReason, routing: DeadLetterRouting) {
  return {
    body: record.body,
    reasonCode: reason.reasonCode,
    detail: reason.detail,
    messageKey: routing.eventId ?? record.messageId,
    attempt: reason.attempt ?? receiveCountOf(record),
    ...(routing.deliveryId ? { deliveryId: routing.deliveryId } : {}),
    ...(routing.correlationId ? { correlationId: routing.correlationId } : {}),
  };
}

/**
 * The commit of one reaction, conditional on the item as read: the event's processed marker (with
 * the dead letter it owes, if any), and for a change the new state, its emissions and alerts in the
 * outbox, and the reaction's extra writes. An ignored event commits its marker alone.
 */
function commitRequestOf<T extends EventType>(
  definition: ConsumerDefinition<T>,
  event: DeliveryEvent<T>,
  key: string,
  read: ServiceItem | undefined,
  reaction: Reaction<ExtraWrite>,
  at: Date,
): CommitRequest {
  const deadLetterReason = reaction.kind === 'change' ? reaction.deadLetter : undefined;
  return {
    eventId: event.eventId,
    ...(deadLetterReason ? { deadLetter: deadLetterReason } : {}),
    key,
    read,
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
  };
}

export function receiveCountOf(record: Pick<SQSRecord, 'attributes'>): number {
  const count = Number(record.attributes?.ApproximateReceiveCount);
  return Number.isInteger(count) && count >= 1 ? count : 1;
}
