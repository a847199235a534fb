/**
 * A service's table (contracts/tables.ts layout) as the single-item change log needs it: read one
 * state item, and commit a reaction in ONE TransactWriteItems so "processed", "its effect" and "the
 * events it emits" never diverge: the processed-message marker MSG#<eventId>, the state item
 * (conditional on the version read, or on not existing) with its outbox extended and its sequence
 * advanced, and any extra conditional writes of the service.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { hasErrorName } from '../../shared/errors';
import {
  type DeliveryAlert,
  OUTBOX_ATTRIBUTE,
  OutboxDestination,
  type OutboxEntry,
  SEQUENCE_ATTRIBUTE,
  type ServiceName,
  TABLE_PARTITION_KEY,
  TABLE_TTL_ATTRIBUTE,
} from '../contracts';
import { type Emission, toOutboxEntries } from '../domain/envelope';
import type { DeadLetterReason, ServiceItem } from '../domain/reaction';

/** One more write of the same transaction (the drone scheduler's DRONE# update), with its TableName. */
export type ExtraWrite = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export const VERSION_ATTRIBUTE = 'version';
const RESERVED = new Set([
  TABLE_PARTITION_KEY,
  VERSION_ATTRIBUTE,
  SEQUENCE_ATTRIBUTE,
  OUTBOX_ATTRIBUTE,
  TABLE_TTL_ATTRIBUTE,
]);

/** Change log entries kept on an item (see retainedOutbox): far below DynamoDB's 400 KB item limit. */
export const OUTBOX_RETAINED_ENTRIES = 50;

export const markerKeyOf = (eventId: string) => `MSG#${eventId}`;

/** A processed-message marker: the message changed what it had to; a redelivery is a duplicate. */
export interface ProcessedMarker {
  readonly eventId: string;
  readonly processedAt: string;
  /** The dead letter the message led to, re-sent when a duplicate arrives (the send may not have happened). */
  readonly deadLetter?: DeadLetterReason;
}

export interface CommitRequest {
  /** The consumed message's id (absent for writes no message caused, e.g. an API submission). */
  readonly eventId?: string;
  readonly deadLetter?: DeadLetterReason;
  readonly key: string;
  /** The item as the decision saw it: undefined means "create it; fail if it now exists". */
  readonly read: ServiceItem | undefined;
  /** Omitted: nothing changes, the item is only checked to be as read (an ignored event). */
  readonly change?: {
    readonly state: Readonly<Record<string, unknown>>;
    readonly emissions: readonly Emission[];
    /** Alerts to the alert bus (entry id = alertId; they take no sequence number). */
    readonly alerts?: readonly DeliveryAlert[];
    /** Who emits, for which delivery, under which correlation id. */
    readonly producer: ServiceName;
    readonly deliveryId: string;
    readonly correlationId: string;
  };
  readonly extraWrites?: readonly ExtraWrite[];
  readonly now: Date;
}

/**
 * `duplicate`: the marker existed (another delivery of the message committed first). `conflict`:
 * the item (or an extra write's condition) moved since it was read, or another transaction held one
 * of the items: re-read and decide again. `extraWriteIndex` names the extra write that failed.
 */
export type CommitOutcome =
  | { readonly kind: 'committed'; readonly appended: readonly OutboxEntry[] }
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'conflict'; readonly extraWriteIndex?: number };

export class DynamoServiceStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
    private readonly processedMessageTtlSeconds: number,
  ) {
    if (!tableName) throw new Error('DynamoServiceStore: tableName is required');
  }

  async load(key: string): Promise<ServiceItem | undefined> {
    const item = await this.getItem(key);
    if (!item) return undefined;
    const state: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(item)) {
      if (!RESERVED.has(name)) state[name] = value;
    }
    return {
      key,
      version: numberOr0(item[VERSION_ATTRIBUTE]),
      sequence: numberOr0(item[SEQUENCE_ATTRIBUTE]),
      outbox: Array.isArray(item[OUTBOX_ATTRIBUTE]) ? (item[OUTBOX_ATTRIBUTE] as OutboxEntry[]) : [],
      state,
    };
  }

  async readMarker(eventId: string): Promise<ProcessedMarker | undefined> {
    const item = await this.getItem(markerKeyOf(eventId));
    if (!item) return undefined;
    return {
      eventId,
      processedAt: String(item.processedAt),
      ...(item.deadLetter ? { deadLetter: item.deadLetter as DeadLetterReason } : {}),
    };
  }

  async commit(request: CommitRequest): Promise<CommitOutcome> {
    const { read, change, now } = request;
    const items: ExtraWrite[] = [];
    if (request.eventId !== undefined) {
      items.push({
        Put: {
          TableName: this.tableName,
          Item: {
            [TABLE_PARTITION_KEY]: markerKeyOf(request.eventId),
            processedAt: now.toISOString(),
            [TABLE_TTL_ATTRIBUTE]: Math.floor(now.getTime() / 1000) + this.processedMessageTtlSeconds,
            ...(request.deadLetter ? { deadLetter: request.deadLetter } : {}),
          },
          ...MARKER_CONDITION,
        },
      });
    }
    const markerCount = items.length;
    const condition = itemConditionOf(read);
    let appended: OutboxEntry[] = [];
    if (change) {
      appended = toOutboxEntries(
        {
          producer: change.producer,
          deliveryId: change.deliveryId,
          correlationId: change.correlationId,
          lastSequence: read?.sequence ?? 0,
          now,
        },
        change.emissions,
      );
      const sequence = (read?.sequence ?? 0) + appended.length;
      appended.push(...(change.alerts ?? []).map(alertEntry));
      items.push({
        Put: {
          TableName: this.tableName,
          Item: {
            ...change.state,
            [TABLE_PARTITION_KEY]: request.key,
            [VERSION_ATTRIBUTE]: (read?.version ?? 0) + 1,
            [SEQUENCE_ATTRIBUTE]: sequence,
            [OUTBOX_ATTRIBUTE]: retainedOutbox(read?.outbox ?? [], appended),
          },
          ...condition,
        },
      });
    } else {
      items.push({
        ConditionCheck: {
          TableName: this.tableName,
          Key: { [TABLE_PARTITION_KEY]: request.key },
          ...condition,
        },
      });
    }
    items.push(...(request.extraWrites ?? []));
    try {
      await this.client.send(new TransactWriteCommand({ TransactItems: items }));
      return { kind: 'committed', appended };
    } catch (error) {
      return outcomeOfCancellation(error, markerCount);
    }
  }

  private async getItem(key: string): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [TABLE_PARTITION_KEY]: key },
        ConsistentRead: true,
      }),
    );
    return Item;
  }
}

/**
 * The outbox after a commit. The relay publishes what a NEW image holds and its OLD image did not,
 * so dropping the oldest (long published) entries loses nothing and keeps the item small.
 */
function retainedOutbox(previous: readonly OutboxEntry[], added: readonly OutboxEntry[]): OutboxEntry[] {
  return [...previous, ...added].slice(-Math.max(OUTBOX_RETAINED_ENTRIES, added.length));
}

export interface ItemCondition {
  readonly ConditionExpression: string;
  readonly ExpressionAttributeNames: Record<string, string>;
  readonly ExpressionAttributeValues?: Record<string, unknown>;
}

/** A processed-message marker is put only if absent: of two deliveries of one message, one commits. */
export const MARKER_CONDITION: ItemCondition = {
  ConditionExpression: 'attribute_not_exists(#pk)',
  ExpressionAttributeNames: { '#pk': TABLE_PARTITION_KEY },
};

/**
 * The state item's write (or check) is conditional on the version the decision read, or on the item
 * not existing when none was read: a concurrent writer loses and decides again from a fresh read.
 * Exported with MARKER_CONDITION for the protocol model (lib/verify, through protocol.ts).
 */
export function itemConditionOf(read: Pick<ServiceItem, 'version'> | undefined): ItemCondition {
  return read
    ? {
        ConditionExpression: '#version = :version',
        ExpressionAttributeNames: { '#version': VERSION_ATTRIBUTE },
        ExpressionAttributeValues: { ':version': read.version },
      }
    : {
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': TABLE_PARTITION_KEY },
      };
}

function alertEntry(alert: DeliveryAlert): OutboxEntry {
  return { id: alert.alertId, destination: OutboxDestination.AlertBus, message: alert };
}

function numberOr0(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

/**
 * Reads TransactionCanceledException's reasons (one per write, in order). A failed marker wins (the
 * message was processed; nothing else matters); a failed condition on the item or an extra write,
 * or a write held by another transaction, is a conflict to retry from a fresh read. Anything else
 * (throttling, validation, a missing table) is thrown for the consumer's dependency handling.
 */
function outcomeOfCancellation(error: unknown, markerCount: number): CommitOutcome {
  if (!hasErrorName(error, 'TransactionCanceledException')) throw error;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  const codes = reasons.map((reason) => reason.Code ?? 'None');
  if (markerCount > 0 && codes[0] === 'ConditionalCheckFailed') return { kind: 'duplicate' };
  const failed = codes.findIndex(
    (code) => code === 'ConditionalCheckFailed' || code === 'TransactionConflict',
  );
  if (
    failed < 0 ||
    codes.some(
      (code) => code !== 'None' && code !== 'ConditionalCheckFailed' && code !== 'TransactionConflict',
    )
  ) {
    throw error;
  }
  const extraIndex = failed - markerCount - 1;
  return extraIndex >= 0 ? { kind: 'conflict', extraWriteIndex: extraIndex } : { kind: 'conflict' };
}
