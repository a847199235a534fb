/**
 * The alert outbox (DESIGN.md, Alert outbox): an alert is written into the state record's
 * AlertOutbox by the very transition that raises it, then delivered at least once to the alert bus
 * and removed. Two deliverers share this code: the status notifier relays what the stream shows,
 * and the supervisor re-delivers what the relay left behind (the stream gave up on it) through the
 * sparse AlertOutboxIndex. Both may deliver the same alert: consumers de-duplicate by AlertId.
 */
import {
  AlertOutboxAttr,
  AlertType,
  type CompensationFailedDetail,
  LastErrorAttr,
  type OrderFailedDetail,
} from '../contracts';
import type { AlertOutboxStore, EventLog, OutboxAlert, OutboxAlertPublisher, StoredOutbox } from './ports';

const OUTBOX_TYPES = new Set<string>([AlertType.OrderFailed, AlertType.CompensationFailed]);

/**
 * The alerts of an outbox, in AlertId order, and the entries that cannot be read (logged by the
 * caller and left in place: redelivery cannot make them readable, and removing an alert unread
 * would lose it).
 */
export function outboxAlertsOf(
  orderId: string,
  outbox: StoredOutbox | undefined,
): { readonly alerts: OutboxAlert[]; readonly unreadable: string[] } {
  const alerts: OutboxAlert[] = [];
  const unreadable: string[] = [];
  for (const alertId of Object.keys(outbox ?? {}).sort()) {
    const alert = outboxAlertOf(orderId, alertId, outbox?.[alertId]);
    if (alert === undefined) unreadable.push(alertId);
    else alerts.push(alert);
  }
  return { alerts, unreadable };
}

function outboxAlertOf(orderId: string, alertId: string, raw: unknown): OutboxAlert | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const entry = raw as Record<string, unknown>;
  const text = (key: string): string | undefined =>
    typeof entry[key] === 'string' ? (entry[key] as string) : undefined;
  const count = (key: string): number | undefined => {
    const value = entry[key];
    const number = typeof value === 'string' ? Number(value) : value;
    return typeof number === 'number' && Number.isFinite(number) ? number : undefined;
  };
  const type = text(AlertOutboxAttr.Type);
  const reason = text(AlertOutboxAttr.Reason);
  const at = text(AlertOutboxAttr.At);
  const attempt = count(AlertOutboxAttr.Attempt);
  if (text(AlertOutboxAttr.AlertId) !== alertId || type === undefined || !OUTBOX_TYPES.has(type)) {
    return undefined;
  }
  if (reason === undefined || at === undefined || attempt === undefined) return undefined;
  const lastError = entry[AlertOutboxAttr.LastError] as Record<string, unknown> | undefined;
  const optional = {
    ...(text(AlertOutboxAttr.InstanceId) !== undefined && { instanceId: text(AlertOutboxAttr.InstanceId) }),
    ...(typeof lastError?.[LastErrorAttr.Error] === 'string' && { error: lastError[LastErrorAttr.Error] }),
    ...(typeof lastError?.[LastErrorAttr.Cause] === 'string' && { cause: lastError[LastErrorAttr.Cause] }),
    ...(text(AlertOutboxAttr.CorrelationId) !== undefined && {
      correlationId: text(AlertOutboxAttr.CorrelationId),
    }),
  } as { instanceId?: string; error?: string; cause?: string; correlationId?: string };
  const step = text(AlertOutboxAttr.Step);
  if (type === AlertType.OrderFailed) {
    const failureCount = count(AlertOutboxAttr.FailureCount);
    if (failureCount === undefined) return undefined;
    return {
      type,
      detail: {
        alertId,
        at,
        orderId,
        reason: reason as OrderFailedDetail['reason'],
        failureCount,
        attempt,
        ...optional,
      },
    };
  }
  const compensationFailureCount = count(AlertOutboxAttr.CompensationFailureCount);
  if (compensationFailureCount === undefined) return undefined;
  return {
    type: type as typeof AlertType.CompensationFailed,
    detail: {
      alertId,
      at,
      orderId,
      reason: reason as CompensationFailedDetail['reason'],
      compensationFailureCount,
      attempt,
      ...(step !== undefined && { step }),
      ...optional,
    },
  };
}

export interface DeliveryDependencies {
  readonly publisher: OutboxAlertPublisher;
  readonly store: AlertOutboxStore;
  readonly log: EventLog;
}

export interface DeliverySummary {
  /** Alerts put on the bus (including ones another deliverer had already put there). */
  delivered: number;
  /** Entries removed by this deliverer. */
  removed: number;
  /** Entries that cannot be read: left in place, logged. */
  unreadable: number;
}

export const emptyDeliverySummary = (): DeliverySummary => ({ delivered: 0, removed: 0, unreadable: 0 });

/**
 * Delivers every alert of one record's outbox: publish, then remove (conditional on the entry
 * being the one published). At least once: a crash between the two leaves the entry for the next
 * deliverer, and the archive keeps one item per AlertId. A publish or remove failure throws (the
 * caller retries: the stream, or the next supervisor run); alerts before it stay delivered.
 */
export async function deliverOutbox(
  orderId: string,
  outbox: StoredOutbox | undefined,
  deps: DeliveryDependencies,
  summary: DeliverySummary = emptyDeliverySummary(),
): Promise<DeliverySummary> {
  const { alerts, unreadable } = outboxAlertsOf(orderId, outbox);
  for (const alertId of unreadable) {
    summary.unreadable += 1;
    deps.log.error('Alert outbox entry not understood; left in place for an operator', { orderId, alertId });
  }
  for (const alert of alerts) {
    await deps.publisher.publishAlert(alert);
    summary.delivered += 1;
    const removed = await deps.store.remove(orderId, alert.detail.alertId, alert.detail.at);
    if (removed === 'removed') summary.removed += 1;
    deps.log.info('Alert delivered', {
      orderId,
      alertId: alert.detail.alertId,
      type: alert.type,
      removed,
    });
  }
  return summary;
}
