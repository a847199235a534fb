/**
 * The outbox relay's rules, free of AWS: which change log entries of a stream record are new, and
 * the message attributes and FIFO keys every entry is published with (DESIGN.md "Outbox relay").
 */
import { EventType, MessageAttribute, type OutboxEntry, OutboxEntrySchema } from '../contracts';

/**
 * The entries of the NEW image whose id the OLD image did not hold, in list order. Commits only
 * append (and drop the oldest), so these are exactly what the change that made this record added.
 */
export function newOutboxEntries(
  newOutbox: readonly unknown[] | undefined,
  oldOutbox: readonly unknown[] | undefined,
): OutboxEntry[] {
  const published = new Set((oldOutbox ?? []).map((entry) => (entry as { id?: unknown }).id));
  return (newOutbox ?? [])
    .filter((entry) => !published.has((entry as { id?: unknown }).id))
    .map((entry, index) => {
      const parsed = OutboxEntrySchema.safeParse(entry);
      if (!parsed.success) {
        throw new Error(`Outbox entry ${index} is not an OutboxEntry: ${parsed.error.message}`);
      }
      return parsed.data;
    });
}

export interface PublishedAttribute {
  readonly dataType: 'String' | 'Number';
  readonly value: string;
}

/** What SNS filter policies and consumers read outside the body (names.ts MessageAttribute). */
export function messageAttributesOf(
  message: Readonly<Record<string, unknown>>,
): Record<string, PublishedAttribute> {
  const attributes: Record<string, PublishedAttribute> = {};
  const text = (name: string, value: unknown) => {
    if (typeof value === 'string' && value !== '') attributes[name] = { dataType: 'String', value };
  };
  text(MessageAttribute.Type, message.type);
  if (typeof message.schemaVersion === 'number') {
    attributes[MessageAttribute.SchemaVersion] = { dataType: 'Number', value: String(message.schemaVersion) };
  }
  text(MessageAttribute.CorrelationId, message.correlationId);
  if (message.type === EventType.RemediationDecided) {
    const data = (message.data ?? {}) as Record<string, unknown>;
    text(MessageAttribute.Source, data.source);
    text(MessageAttribute.Decision, data.decision);
  }
  return attributes;
}

/** FIFO keys of an envelope: one group per delivery (its order), the event id as dedup id. */
export function fifoKeysOf(entry: OutboxEntry): { groupId: string; deduplicationId: string } {
  const deliveryId = entry.message.deliveryId;
  if (typeof deliveryId !== 'string' || deliveryId === '') {
    throw new Error(`Outbox entry ${entry.id} to ${entry.destination} names no deliveryId to group by`);
  }
  return { groupId: deliveryId, deduplicationId: entry.id };
}
