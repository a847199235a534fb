/** Envelopes for the choreography's tests, built the way producers build them (and parsed back). */
import {
  currentVersion,
  type DeliveryEvent,
  type EventData,
  type EventType,
  parseEvent,
  type ServiceName,
} from '../../../lambdas/choreography/contracts';
import { eventIdOf } from '../../../lambdas/choreography/domain/envelope';

export const T0 = new Date('2030-01-01T10:00:00.000Z');

export function envelope<T extends EventType>(
  type: T,
  data: EventData<T>,
  options: { producer: ServiceName; deliveryId?: string; sequence?: number; occurredAt?: Date },
): DeliveryEvent<T> {
  const deliveryId = options.deliveryId ?? 'delivery-1';
  const sequence = options.sequence ?? 1;
  const body = {
    type,
    schemaVersion: currentVersion(type),
    eventId: eventIdOf(options.producer, deliveryId, sequence),
    deliveryId,
    correlationId: `corr-${deliveryId}`,
    sequence,
    producer: options.producer,
    occurredAt: (options.occurredAt ?? T0).toISOString(),
    data,
  };
  // Through the contracts' parser, so a test cannot feed the domain what no consumer would accept.
  const parsed = parseEvent(JSON.stringify(body), [type]);
  if (!parsed.ok) throw new Error(`test envelope does not parse: ${parsed.detail}`);
  return parsed.event as DeliveryEvent<T>;
}

export const CENTRE = { lat: 52.52, lon: 13.405 };
/** About 1.1 km north of CENTRE. */
export const NEAR = { lat: 52.53, lon: 13.405 };
/** About 255 km away (Hamburg). */
export const FAR = { lat: 53.5511, lon: 9.9937 };

export function requested(options: { deliveryId?: string; dropoff?: { lat: number; lon: number } } = {}) {
  return envelope(
    'DeliveryRequested',
    {
      ownerId: 'owner-1',
      pickup: CENTRE,
      dropoff: options.dropoff ?? NEAR,
      packages: [{ packageId: 'p1', weightGrams: 1200, size: 'SMALL' }],
    },
    { producer: 'ingestion', ...(options.deliveryId && { deliveryId: options.deliveryId }) },
  );
}
