/**
 * The alert outbox (DESIGN.md, Alert outbox; the delivery itself is ../alert-outbox.ts): publishing and clearing entries, and the index of records that may still hold alerts.
 */
import type { AlertType, CompensationFailedDetail, OrderFailedDetail } from '../../contracts';

/** One alert of an outbox, ready to publish. */
export type OutboxAlert =
  | { readonly type: typeof AlertType.OrderFailed; readonly detail: OrderFailedDetail }
  | { readonly type: typeof AlertType.CompensationFailed; readonly detail: CompensationFailedDetail };

/** A record's outbox as stored: AlertId -> entry (plain values, as the document client reads them). */
export type StoredOutbox = Readonly<Record<string, unknown>>;

/** Publishes one alert on the alert bus; throws when the bus did not take it (a partial failure too). */
export interface OutboxAlertPublisher {
  publishAlert(alert: OutboxAlert): Promise<void>;
}

/** Removes delivered entries. */
export interface AlertOutboxStore {
  /**
   * Removes `AlertOutbox.<alertId>` only while it is still the entry that was delivered (same At),
   * and then the record's AlertOutboxIndex keys if the outbox is empty. 'gone' when the entry was
   * already removed (another deliverer was first).
   */
  remove(orderId: string, alertId: string, at: string): Promise<'removed' | 'gone'>;
  /** Takes the record out of the AlertOutboxIndex if its outbox is empty (else nothing). */
  clearIndexIfEmpty(orderId: string): Promise<void>;
}

/** A record of the AlertOutboxIndex: an order whose outbox may still hold alerts. */
export interface PendingOutbox {
  readonly orderId: string;
  readonly outbox: StoredOutbox;
  /** AlertOutboxSince: when its last entry was written (ISO-8601). */
  readonly since: string;
}

/** Opaque position in an AlertOutboxIndex query. */
export type PendingOutboxCursor = Readonly<Record<string, unknown>>;

export interface PendingOutboxIndex {
  /** Records whose last outbox entry was written before `writtenBefore` (ISO-8601), oldest first. */
  queryPending(
    writtenBefore: string,
    limit: number,
    cursor?: PendingOutboxCursor,
  ): Promise<{ readonly records: readonly PendingOutbox[]; readonly next?: PendingOutboxCursor }>;
}
