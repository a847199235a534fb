/**
 * Building the events a service emits. An event's id is derived from what makes it unique (the
 * producer, the delivery, the producer's sequence number for it), so a retried commit or a
 * republished change log entry carries the same id and every de-duplication downstream holds.
 */
import {
  currentVersion,
  type DeliveryEvent,
  type EventData,
  type EventType,
  type OutboxDestination,
  type OutboxEntry,
  type ServiceName,
} from '../contracts';

export function eventIdOf(producer: ServiceName, deliveryId: string, sequence: number): string {
  return `${producer}:${deliveryId}:${sequence}`;
}

/** What a service's reaction emits: one event, to one destination. */
export interface Emission<T extends EventType = EventType> {
  readonly destination: OutboxDestination;
  readonly type: T;
  readonly data: EventData<T>;
}

export function emission<T extends EventType>(
  destination: OutboxDestination,
  type: T,
  data: EventData<T>,
): Emission<T> {
  return { destination, type, data };
}

export interface EnvelopeContext {
  readonly producer: ServiceName;
  readonly deliveryId: string;
  readonly correlationId: string;
  /** The producer's last sequence number for this delivery (0 before its first event). */
  readonly lastSequence: number;
  readonly now: Date;
}

/** The change log entries for emissions, numbered after lastSequence, in order. */
export function toOutboxEntries(context: EnvelopeContext, emissions: readonly Emission[]): OutboxEntry[] {
  return emissions.map((emitted, index) => {
    const sequence = context.lastSequence + index + 1;
    const event = {
      type: emitted.type,
      schemaVersion: currentVersion(emitted.type),
      eventId: eventIdOf(context.producer, context.deliveryId, sequence),
      deliveryId: context.deliveryId,
      correlationId: context.correlationId,
      sequence,
      producer: context.producer,
      occurredAt: context.now.toISOString(),
      data: emitted.data,
    } as DeliveryEvent;
    return {
      id: event.eventId,
      destination: emitted.destination,
      message: event as unknown as Record<string, unknown>,
    };
  });
}
