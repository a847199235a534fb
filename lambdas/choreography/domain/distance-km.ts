/**
 * Pickup-to-dropoff distance, one formula for the two places that judge a delivery's range: the
 * Drone Scheduler (NO_DRONE_AVAILABLE beyond maxRangeKm) and ingestion (a 400 naming `dropoff` at
 * the door), so the door never refuses what the scheduler would fly, nor the reverse.
 */
import type { Coordinates } from '../contracts';

const EARTH_RADIUS_KM = 6371.0088;

/** Great-circle distance (haversine), in kilometres. */
export function distanceKm(from: Coordinates, to: Coordinates): number {
  const radians = (degrees: number) => (degrees * Math.PI) / 180;
  const dLat = radians(to.lat - from.lat);
  const dLon = radians(to.lon - from.lon);
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(radians(from.lat)) * Math.cos(radians(to.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}
