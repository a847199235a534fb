import type { Duration } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { FlightSettings } from '../../lambdas/choreography/contracts';

/**
 * The drones as this wing sees them: something consuming the fleet queue (DeliveryScheduled) and
 * sending FlightProgress to the delivery queue. A deployment either runs the fake fleet of
 * lib/fakes (emulated profiles, `-c demo=true`) or leaves the fleet queue to real drones.
 */
export interface FakeDroneFleet {
  /** The function that consumes the fleet queue. */
  readonly fleet: lambda.IFunction;
}

/** What the fake fleet needs from the deployment. */
export interface FakeDroneFleetSettings {
  /** The fleet queue (standard, with its dead-letter queue) the fake consumes. */
  readonly fleetQueue: sqs.IQueue;
  /** Where flight progress goes (FIFO: group = deliveryId, dedup id = eventId). */
  readonly deliveryQueue: sqs.IQueue;
  readonly flight: FlightSettings;
  /** The consumer's timeout: the fleet queue's visibility timeout was sized for it. */
  readonly timeout: Duration;
}

/** Builds the fake drone fleet inside the wing's stack (passed in by the composition root). */
export type FakeDroneFleetFactory = (scope: Construct, settings: FakeDroneFleetSettings) => FakeDroneFleet;

/** Time the fleet consumer keeps after a whole flight (pickup and flight) to report it. */
const FLIGHT_MARGIN_SECONDS = 10;

/** The fleet consumer's timeout: one flight of the profile, and a margin. */
export function fleetTimeoutSeconds(flight: FlightSettings): number {
  return Math.ceil((flight.pickupMillis + flight.flightMillis) / 1000) + FLIGHT_MARGIN_SECONDS;
}
