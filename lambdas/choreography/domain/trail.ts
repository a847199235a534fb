/**
 * What an operator reads of a delivery (the console's Deliveries tab, `npm run deliveries`): the
 * list rows of the ingestion read model, and the trail, every service's change log entries, alerts
 * and remediation decisions in time order. Pure: the items come from the tables through
 * adapters/delivery-trail.ts, so the operator routes, the CLI and the local console backend agree.
 */
import {
  DELIVERY_LIST_MAX,
  type DeliveryDetailBody,
  type DeliveryRow,
  type DeliveryTrailEntry,
  ServiceName,
} from '../contracts';
import { type DeliveryRecord, deliveryKeyOf, toDeliveryStatusBody } from './ingestion';

type Item = Record<string, unknown>;

/** The items of one delivery in each service's table (absent where the service holds nothing). */
export interface DeliveryItems {
  readonly ingestion?: Item;
  readonly package?: Item;
  readonly droneScheduler?: Item;
  readonly delivery?: Item;
  readonly remediation?: Item;
}

/** The services in the flow's order: the trail's order of entries at equal times. */
const SERVICE_ORDER: readonly string[] = [
  ServiceName.Ingestion,
  ServiceName.Package,
  ServiceName.DroneScheduler,
  ServiceName.Delivery,
  ServiceName.Remediation,
];
const DELIVERY_KEY_PREFIX = deliveryKeyOf('');
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const records = (value: unknown): Item[] =>
  Array.isArray(value)
    ? value.filter((entry): entry is Item => typeof entry === 'object' && entry !== null)
    : [];

/** The facts of an event's data worth a glance, as `key=value` pairs. */
function dataSummary(data: unknown): string {
  if (typeof data !== 'object' || data === null) return '';
  const facts: string[] = [];
  const item = data as Item;
  for (const key of [
    'reasonCode',
    'decision',
    'source',
    'occurrence',
    'droneId',
    'attempt',
    'stage',
    'totalWeightGrams',
    'estimatedArrival',
  ]) {
    const value = item[key];
    if (typeof value === 'string' || typeof value === 'number') facts.push(`${key}=${value}`);
  }
  const window = item.window as Item | undefined;
  if (text(window?.start)) facts.push(`window=${text(window?.start)}..${text(window?.end) ?? '?'}`);
  return facts.join(' ');
}

/** Every service's change log entries, remediation decisions and dead letters, sorted by time. */
export function buildTrail(items: DeliveryItems): DeliveryTrailEntry[] {
  const entries: DeliveryTrailEntry[] = [];
  const sources: [string, Item | undefined][] = [
    [ServiceName.Ingestion, items.ingestion],
    [ServiceName.Package, items.package],
    [ServiceName.DroneScheduler, items.droneScheduler],
    [ServiceName.Delivery, items.delivery],
    [ServiceName.Remediation, items.remediation],
  ];
  for (const [service, item] of sources) {
    for (const entry of records(item?.outbox)) {
      const message = (entry.message ?? {}) as Item;
      const destination = text(entry.destination);
      const correlationId = text(message.correlationId);
      if (destination === 'alert-bus') {
        entries.push({
          at: text(message.raisedAt) ?? '',
          service,
          kind: 'alert',
          what: 'DeliveryNeedsOperator',
          to: destination,
          detail: [dataSummary(message), text(message.detail)].filter(Boolean).join(' '),
          ...(correlationId ? { correlationId } : {}),
        });
        continue;
      }
      entries.push({
        at: text(message.occurredAt) ?? '',
        service,
        kind: 'event',
        what: text(message.type) ?? '?',
        ...(typeof message.sequence === 'number' ? { sequence: message.sequence } : {}),
        ...(destination ? { to: destination } : {}),
        detail: dataSummary(message.data),
        ...(correlationId ? { correlationId } : {}),
      });
    }
  }
  for (const decision of records(items.remediation?.decisions)) {
    entries.push({
      at: text(decision.decidedAt) ?? '',
      service: ServiceName.Remediation,
      kind: 'dead-letter',
      what: text(decision.reasonCode) ?? 'RETRIES_EXHAUSTED',
      detail: `from ${text(decision.source) ?? '?'} (occurrence ${String(decision.occurrence ?? '?')}): decided ${text(decision.decision) ?? '?'}`,
      ...(text(decision.source) ? { source: text(decision.source) } : {}),
      ...(text(decision.decision) ? { decision: text(decision.decision) } : {}),
    });
  }
  const rank = (entry: DeliveryTrailEntry) => SERVICE_ORDER.indexOf(entry.service);
  // At equal times: services in the flow's order, a dead letter before the decision that resolved
  // it, and one service's entries in its change log's order.
  const kindRank = (entry: DeliveryTrailEntry) => (entry.kind === 'dead-letter' ? 0 : 1);
  return entries
    .map((entry, index) => ({ entry, index }))
    .sort(
      (left, right) =>
        left.entry.at.localeCompare(right.entry.at) ||
        rank(left.entry) - rank(right.entry) ||
        kindRank(left.entry) - kindRank(right.entry) ||
        left.index - right.index,
    )
    .map(({ entry }) => entry);
}

/** True when no service holds anything of the delivery: it is unknown. */
export function isUnknownDelivery(items: DeliveryItems): boolean {
  return Object.values(items).every((item) => item === undefined);
}

/** The delivery items of the ingestion read model (a scan's items), filtered by status, newest first, at most DELIVERY_LIST_MAX. */
export function deliveryRowsOf(items: readonly Item[], status?: string): DeliveryRow[] {
  const rows: DeliveryRow[] = items
    .filter((item) => text(item.pk)?.startsWith(DELIVERY_KEY_PREFIX))
    .filter((item) => status === undefined || item.status === status)
    .map((item) => ({
      deliveryId: (text(item.pk) ?? '').slice(DELIVERY_KEY_PREFIX.length),
      status: text(item.status) ?? '?',
      ...(text(item.correlationId) && { correlationId: text(item.correlationId) }),
      ...(text(item.acceptedAt) && { acceptedAt: text(item.acceptedAt) }),
      ...(text(item.updatedAt) && { updatedAt: text(item.updatedAt) }),
    }));
  rows.sort((left, right) => (right.acceptedAt ?? '').localeCompare(left.acceptedAt ?? ''));
  return rows.slice(0, DELIVERY_LIST_MAX);
}

/**
 * One delivery as the operator route answers it: the read model's status (as GET /deliveries/{id}
 * answers it) and the trail; undefined when no service holds anything of it.
 */
export function deliveryDetailOf(deliveryId: string, items: DeliveryItems): DeliveryDetailBody | undefined {
  if (isUnknownDelivery(items)) return undefined;
  const trail = buildTrail(items);
  if (!items.ingestion) {
    return { deliveryId, statusError: 'The ingestion read model holds no status for this delivery', trail };
  }
  return { deliveryId, status: toDeliveryStatusBody(items.ingestion as unknown as DeliveryRecord), trail };
}
