import { ALERT_EVENT_SOURCE, AlertType, ORDER_ID_PATTERN } from '../contracts';
import type { ArchivedAlert } from './ports';

/** The fields of an EventBridge event the archive reads. */
export interface AlertEvent {
  readonly id?: unknown;
  readonly source?: unknown;
  readonly 'detail-type'?: unknown;
  readonly time?: unknown;
  readonly detail?: unknown;
}

const ALERT_TYPES = new Set<string>(Object.values(AlertType));

/**
 * The archived form of an alert event, or why it cannot be archived (not one of this wing's
 * alerts, or without a valid order id): such an event is logged and dropped, since redelivering
 * it cannot make it valid.
 */
export function archivedAlertFrom(
  event: AlertEvent,
): { readonly ok: true; readonly alert: ArchivedAlert } | { readonly ok: false; readonly problem: string } {
  const type = event['detail-type'];
  if (event.source !== ALERT_EVENT_SOURCE) {
    return { ok: false, problem: `source ${JSON.stringify(event.source)} is not ${ALERT_EVENT_SOURCE}` };
  }
  if (typeof type !== 'string' || !ALERT_TYPES.has(type)) {
    return { ok: false, problem: `detail-type ${JSON.stringify(type)} is not an alert type` };
  }
  if (typeof event.id !== 'string' || event.id === '' || typeof event.time !== 'string') {
    return { ok: false, problem: 'the event has no id or time' };
  }
  const detail = event.detail;
  if (detail === null || typeof detail !== 'object' || Array.isArray(detail)) {
    return { ok: false, problem: 'the detail is not an object' };
  }
  const { orderId, alertId, at } = detail as Record<string, unknown>;
  if (typeof orderId !== 'string' || !ORDER_ID_PATTERN.test(orderId)) {
    return { ok: false, problem: `detail.orderId ${JSON.stringify(orderId)} is not an order id` };
  }
  // An outbox alert is archived under its own time and id, the same on every delivery of it.
  const identified = typeof alertId === 'string' && alertId !== '' && typeof at === 'string' && at !== '';
  return {
    ok: true,
    alert: {
      orderId,
      type: type as AlertType,
      at: identified ? at : event.time,
      eventId: event.id,
      ...(identified && { alertId }),
      detail: detail as Record<string, unknown>,
    },
  };
}
