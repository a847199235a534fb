/**
 * Ingestion's rules (DESIGN.md "Services"): validating POST /deliveries (413 before parsing, 400
 * naming each bad field, a deadline in the past is a bad field, and so is what no drone could fly:
 * a drop-off beyond the fleet's range or packages heavier than its payload), what a new delivery item holds,
 * what differs in a conflicting resubmission, and the read model the projection keeps (history
 * once per (producer, sequence); status from the highest Delivery-service sequence only, each real
 * change of it counted once: DeliveriesEnteredStatus).
 */
import { canonicalJson, fingerprintOf } from '../../shared/fingerprint';
import { jsonParser } from '../../shared/parse';
import { BODY_PATH, type FieldError } from '../../shared/validation';
import {
  type DeliveryEvent,
  type DeliveryHistoryEntry,
  type DeliveryLimits,
  DeliveryMetric,
  DeliveryStatus,
  type DeliveryStatusBody,
  EventType,
  LIFECYCLE_EVENT_TYPES,
  type LifecycleEventType,
  MAX_DELIVERY_BODY_BYTES,
  OutboxDestination,
  ServiceName,
  STATUS_AFTER,
  STATUS_DIMENSION,
  type SubmitDeliveryRequest,
  SubmitDeliveryRequestSchema,
} from '../contracts';
import { distanceKm } from './distance-km';
import { type Emission, emission } from './envelope';
import { type ChangeCount, change, ignore, type Reaction, type ServiceItem } from './reaction';

export const deliveryKeyOf = (deliveryId: string) => `DELIVERY#${deliveryId}`;

const parseRequestJson = jsonParser(SubmitDeliveryRequestSchema);

export type ParsedDeliveryRequest =
  | { readonly ok: true; readonly request: SubmitDeliveryRequest }
  | {
      readonly ok: false;
      readonly statusCode: 400 | 413;
      readonly message: string;
      readonly errors: readonly FieldError[];
    };

export function parseDeliveryRequestBody(
  body: string | null | undefined,
  isBase64Encoded: boolean,
  now: Date,
  limits: DeliveryLimits,
  maxBytes: number = MAX_DELIVERY_BODY_BYTES,
): ParsedDeliveryRequest {
  if (body === null || body === undefined || body.length === 0) {
    return {
      ok: false,
      statusCode: 400,
      message: 'Request body is required',
      errors: [{ path: BODY_PATH, message: 'is required' }],
    };
  }
  const text = isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
  if (Buffer.byteLength(text, 'utf8') > maxBytes) {
    return {
      ok: false,
      statusCode: 413,
      message: `Request body is larger than ${maxBytes} bytes`,
      errors: [{ path: BODY_PATH, message: `must be at most ${maxBytes} bytes` }],
    };
  }
  const parsed = parseRequestJson(text);
  if (!parsed.ok) {
    return {
      ok: false,
      statusCode: 400,
      message:
        parsed.problem === 'not-json'
          ? 'Request body is not valid JSON'
          : 'Request body is not a valid delivery',
      errors: parsed.errors,
    };
  }
  const errors = [...deadlineErrors(parsed.value, now), ...undeliverableErrors(parsed.value, limits)];
  if (errors.length > 0) {
    return { ok: false, statusCode: 400, message: 'Request body is not a valid delivery', errors };
  }
  return { ok: true, request: parsed.value };
}

function deadlineErrors({ deadline }: SubmitDeliveryRequest, now: Date): FieldError[] {
  return deadline !== undefined && Date.parse(deadline) <= now.getTime()
    ? [{ path: 'deadline', message: 'must be in the future' }]
    : [];
}

/**
 * What the drone scheduler and the package service would refuse, decided by the request alone (their
 * own checks stay, for a delivery accepted under other settings or an event from another producer).
 */
function undeliverableErrors(request: SubmitDeliveryRequest, limits: DeliveryLimits): FieldError[] {
  const errors: FieldError[] = [];
  const distance = distanceKm(request.pickup, request.dropoff);
  if (distance > limits.maxRangeKm) {
    errors.push({
      path: 'dropoff',
      message: `is ${distance.toFixed(1)} km from the pickup; a drone flies at most ${limits.maxRangeKm} km`,
    });
  }
  const totalWeightGrams = request.packages.reduce((sum, item) => sum + item.weightGrams, 0);
  if (totalWeightGrams > limits.maxPayloadGrams) {
    errors.push({
      path: 'packages',
      message: `weigh ${totalWeightGrams} g in all; a drone carries at most ${limits.maxPayloadGrams} g`,
    });
  }
  return errors;
}

/** Identity of a submission: equal requests, whatever their key order, have one fingerprint. */
export function deliveryFingerprint(request: SubmitDeliveryRequest): string {
  return fingerprintOf(request);
}

/** The top-level fields whose values differ, for a 409 that says what conflicts. */
export function conflictingFields(stored: SubmitDeliveryRequest, submitted: SubmitDeliveryRequest): string[] {
  const names = [...new Set([...Object.keys(stored), ...Object.keys(submitted)])].sort();
  return names.filter(
    (name) =>
      canonicalJson((stored as Record<string, unknown>)[name] ?? null) !==
      canonicalJson((submitted as Record<string, unknown>)[name] ?? null),
  );
}

/** The read model's attributes of a delivery item (besides the kit's pk, version, sequence, outbox). */
export interface DeliveryRecord {
  readonly deliveryId: string;
  /** The requester that submitted it (domain/requesters.ts); absent on deliveries from before requesters. */
  readonly requesterId?: string;
  readonly request: SubmitDeliveryRequest;
  readonly fingerprint: string;
  readonly correlationId: string;
  readonly acceptedAt: string;
  readonly status: DeliveryStatus;
  /** The Delivery-service sequence the status came from (0: ingestion's own Requested). */
  readonly statusSequence: number;
  readonly updatedAt: string;
  readonly history: readonly DeliveryHistoryEntry[];
}

/** A new delivery: Requested, its DeliveryRequested in the history and on its way to the requests topic. */
export function newDelivery(
  request: SubmitDeliveryRequest,
  correlationId: string,
  now: Date,
  requesterId: string,
): { readonly record: DeliveryRecord; readonly emissions: readonly Emission[] } {
  const { deliveryId, ...data } = request;
  const at = now.toISOString();
  return {
    record: {
      deliveryId,
      requesterId,
      request,
      fingerprint: deliveryFingerprint(request),
      correlationId,
      acceptedAt: at,
      status: DeliveryStatus.Requested,
      statusSequence: 0,
      updatedAt: at,
      history: [
        {
          type: EventType.DeliveryRequested,
          schemaVersion: 1,
          sequence: 1,
          producer: ServiceName.Ingestion,
          occurredAt: at,
        },
      ],
    },
    emissions: [emission(OutboxDestination.RequestsTopic, EventType.DeliveryRequested, data)],
  };
}

export function toDeliveryStatusBody(record: DeliveryRecord): DeliveryStatusBody {
  return {
    deliveryId: record.deliveryId,
    status: record.status,
    correlationId: record.correlationId,
    acceptedAt: record.acceptedAt,
    updatedAt: record.updatedAt,
    history: record.history,
  };
}

/**
 * The projection of one lifecycle event: a history entry once per (producer, sequence); the status
 * only from a Delivery-service sequence higher than the one the status came from (older never
 * overwrites newer, whatever order the bus delivered them in).
 */
export function projectLifecycleEvent(
  current: ServiceItem | undefined,
  event: DeliveryEvent,
  now: Date,
): Reaction {
  if (!(LIFECYCLE_EVENT_TYPES as readonly EventType[]).includes(event.type)) {
    return ignore(`${event.type} does not change the read model`);
  }
  if (!current) return ignore(`delivery ${event.deliveryId} is unknown to ingestion`);
  const record = current.state as unknown as DeliveryRecord;
  const seen = record.history.some(
    (entry) => entry.producer === event.producer && entry.sequence === event.sequence,
  );
  if (seen) return ignore(`${event.producer} #${event.sequence} is already in the history`);
  const reasonCode = (event.data as { reasonCode?: DeliveryHistoryEntry['reasonCode'] }).reasonCode;
  const entry: DeliveryHistoryEntry = {
    type: event.type,
    schemaVersion: event.schemaVersion,
    sequence: event.sequence,
    producer: event.producer,
    occurredAt: event.occurredAt,
    ...(reasonCode ? { reasonCode } : {}),
  };
  // In the Delivery service's order (its sequence), whatever order the bus delivered them in;
  // ingestion's own DeliveryRequested comes first.
  const rank = (item: DeliveryHistoryEntry) => (item.producer === ServiceName.Ingestion ? 0 : 1);
  const history = [...record.history, entry].sort((a, b) => rank(a) - rank(b) || a.sequence - b.sequence);
  const newer = event.producer === ServiceName.Delivery && event.sequence > record.statusSequence;
  const status = newer ? STATUS_AFTER[event.type as LifecycleEventType] : record.status;
  return change(
    {
      ...record,
      history,
      updatedAt: now.toISOString(),
      ...(newer ? { status, statusSequence: event.sequence } : {}),
    },
    [],
    status === record.status ? {} : { counts: [statusEntered(status)] },
  );
}

/**
 * The count of a delivery entering `status` in the read model (DeliveriesEnteredStatus): the
 * projection's when it changes the status, the submission's for Requested.
 */
export function statusEntered(status: DeliveryStatus): ChangeCount {
  return {
    metric: DeliveryMetric.DeliveriesEnteredStatus,
    dimension: { name: STATUS_DIMENSION, value: status },
  };
}
