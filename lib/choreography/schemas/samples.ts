/**
 * One sample event per event type and version, as producers write it: stored next to the
 * published schemas so consumers (and their tests) have a concrete message of every version.
 */
import {
  type EnvelopeFields,
  type EventType,
  ServiceName,
  EventType as Type,
} from '../../../lambdas/choreography/contracts';
import type { EventVersion } from './json-schema';

const DELIVERY_ID = 'delivery-0001';
const DRONE_ID = 'drone-01';
const WINDOW = { start: '2030-05-04T10:00:00.000Z', end: '2030-05-04T10:45:00.000Z' };
const PACKAGES = [{ packageId: 'pkg-1', weightGrams: 1_200, size: 'SMALL' }];

/** The envelope of a sample: the producer's sequence fixes the event id. */
function envelope(producer: ServiceName, sequence: number, version: number): EnvelopeFields {
  return {
    schemaVersion: version,
    eventId: `${producer}:${DELIVERY_ID}:${sequence}`,
    deliveryId: DELIVERY_ID,
    correlationId: 'corr-0001',
    sequence,
    producer,
    occurredAt: '2030-05-04T09:30:00.000Z',
  };
}

const DELIVERY_REQUESTED = {
  ownerId: 'owner-42',
  pickup: { lat: 47.6205, lon: -122.3493 },
  dropoff: { lat: 47.6097, lon: -122.3331 },
  packages: PACKAGES,
  deadline: '2030-05-04T12:00:00.000Z',
};

/** The producer, the producer's sequence and the data of each type's sample, per version. */
const SAMPLES: Readonly<
  Record<
    EventType,
    { producer: ServiceName; sequence: number; data: Record<number, Record<string, unknown>> }
  >
> = {
  [Type.DeliveryRequested]: { producer: ServiceName.Ingestion, sequence: 1, data: { 1: DELIVERY_REQUESTED } },
  [Type.PackageReady]: {
    producer: ServiceName.Package,
    sequence: 1,
    data: { 1: { packages: PACKAGES, totalWeightGrams: 1_200 } },
  },
  [Type.PackageRejected]: {
    producer: ServiceName.Package,
    sequence: 1,
    data: { 1: { reasonCode: 'PACKAGE_TOO_HEAVY', detail: 'total 7200 g exceeds 5000 g' } },
  },
  [Type.DroneScheduled]: {
    producer: ServiceName.DroneScheduler,
    sequence: 1,
    data: { 1: { droneId: DRONE_ID, window: WINDOW, attempt: 1 } },
  },
  [Type.DroneUnavailable]: {
    producer: ServiceName.DroneScheduler,
    sequence: 1,
    data: {
      1: { reasonCode: 'NO_DRONE_AVAILABLE', detail: 'every drone is busy in the window', attempt: 1 },
    },
  },
  [Type.DroneReleased]: {
    producer: ServiceName.DroneScheduler,
    sequence: 2,
    data: { 1: { droneId: DRONE_ID, reasonCode: 'PACKAGE_TOO_HEAVY' } },
  },
  [Type.FlightProgress]: {
    producer: ServiceName.DroneFleet,
    sequence: 1,
    data: { 1: { droneId: DRONE_ID, stage: 'PICKED_UP' } },
  },
  [Type.RemediationDecided]: {
    producer: ServiceName.Remediation,
    sequence: 1,
    data: {
      1: {
        decision: 'RETRY',
        reasonCode: 'NO_DRONE_AVAILABLE',
        source: ServiceName.DroneScheduler,
        occurrence: 1,
        deadLetteredEventId: `ingestion:${DELIVERY_ID}:1`,
        detail: 'retry 1 of 2 after 60 s',
        retryOf: {
          type: Type.DeliveryRequested,
          ...envelope(ServiceName.Ingestion, 1, 1),
          data: DELIVERY_REQUESTED,
        },
      },
    },
  },
  [Type.DeliveryScheduled]: {
    producer: ServiceName.Delivery,
    sequence: 1,
    data: {
      1: { droneId: DRONE_ID, window: WINDOW },
      2: { droneId: DRONE_ID, window: WINDOW, estimatedArrival: '2030-05-04T10:20:00.000Z' },
    },
  },
  [Type.PickedUp]: { producer: ServiceName.Delivery, sequence: 2, data: { 1: { droneId: DRONE_ID } } },
  [Type.Delivered]: { producer: ServiceName.Delivery, sequence: 3, data: { 1: { droneId: DRONE_ID } } },
  [Type.DeliveryFailed]: {
    producer: ServiceName.Delivery,
    sequence: 2,
    data: { 1: { reasonCode: 'FLIGHT_FAILED', detail: 'the drone reported a failed flight' } },
  },
  [Type.DeliveryCancelled]: {
    producer: ServiceName.Delivery,
    sequence: 1,
    data: { 1: { reasonCode: 'PACKAGE_TOO_HEAVY', detail: 'compensated: the package is too heavy' } },
  },
};

/** The sample event of a type at a version (throws when the samples lack that version). */
export function sampleEvent({ type, version }: EventVersion): Record<string, unknown> {
  const sample = SAMPLES[type];
  const data = sample.data[version];
  if (!data)
    throw new Error(`No sample of ${type} v${version}: add one to lib/choreography/schemas/samples.ts`);
  return { type, ...envelope(sample.producer, sample.sequence, version), data };
}
