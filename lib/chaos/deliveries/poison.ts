/**
 * The poison messages a delivery campaign plants: a message naming the delivery that its consumer
 * must dead-letter, with a version its contracts do not list, or the right version with data that
 * breaks the schema.
 */
import { currentVersion, EventType, ServiceName } from '../../../lambdas/choreography/contracts';

/**
 * The envelope of one planned poison message for `service`'s queue, stamped `at` (epoch millis on
 * the run's clock: on a seeded one the same body in a replay).
 */
export function poisonEnvelope(
  deliveryId: string,
  service: string,
  kind: 'unknown-version' | 'schema-invalid',
  at: number,
): string {
  const [type, producer] =
    service === ServiceName.Delivery
      ? [EventType.PackageReady, ServiceName.Package]
      : [EventType.DeliveryRequested, ServiceName.Ingestion];
  return JSON.stringify({
    schemaVersion: kind === 'unknown-version' ? currentVersion(type) + 90 : currentVersion(type),
    eventId: `chaos-poison:${deliveryId}`,
    deliveryId,
    correlationId: `chaos-poison-${deliveryId}`,
    sequence: 900,
    producer,
    occurredAt: new Date(at).toISOString(),
    type,
    data: kind === 'unknown-version' ? {} : { unexpected: true },
  });
}
