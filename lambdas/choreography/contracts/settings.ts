/**
 * Settings of each service, set by the stack from its profile (lib/choreography/config.ts) as JSON
 * in SERVICE_SETTINGS and parsed by the handler at cold start: one schema, two sides.
 */
import * as z from 'zod';

const Seconds = z
  .number()
  .int()
  .min(0)
  .max(86_400 * 14);

/** Every queue consumer. */
export const ConsumerSettingsSchema = z.object({
  /**
   * On this receive of a message that keeps failing on a dependency, the consumer dead-letters it
   * with DEPENDENCY_TIMEOUT (and publishes its failure) instead of failing it again. The queue's
   * redrive policy (maxReceiveCount one higher) only catches consumers that crash or time out.
   */
  maxReceiveAttempts: z.number().int().min(1).max(10),
  /** How long a processed message id is remembered (duplicates within it change nothing). */
  processedMessageTtlSeconds: Seconds.min(60),
});
export type ConsumerSettings = z.infer<typeof ConsumerSettingsSchema>;

export const PackageSettingsSchema = ConsumerSettingsSchema.extend({
  /** Heaviest total a drone carries; heavier deliveries are rejected with PACKAGE_TOO_HEAVY. */
  maxPayloadGrams: z.number().int().min(1),
});
export type PackageSettings = z.infer<typeof PackageSettingsSchema>;

export const DroneSchedulerSettingsSchema = ConsumerSettingsSchema.extend({
  /** The fleet: drone ids. A drone is never assigned two deliveries with overlapping windows. */
  drones: z.array(z.string().min(1).max(64)).min(1).max(1000),
  /** Longest pickup-to-dropoff distance a drone flies; farther deliveries get NO_DRONE_AVAILABLE. */
  maxRangeKm: z.number().positive(),
  /** How long a drone is reserved for one delivery, from the window's start. */
  assignmentSeconds: Seconds.min(1),
  /** A PIVOT looks for a window starting this much later (a later slot, maybe another drone). */
  pivotDelaySeconds: Seconds,
});
export type DroneSchedulerSettings = z.infer<typeof DroneSchedulerSettingsSchema>;

/**
 * submit-delivery: ingestion's settings and the limits it refuses at the door with a 400 naming the
 * field. The stack copies the limits from the services that own them (the drone scheduler's
 * maxRangeKm, the package service's maxPayloadGrams): one number each, read by both.
 */
export const SubmitDeliverySettingsSchema = ConsumerSettingsSchema.extend({
  maxRangeKm: DroneSchedulerSettingsSchema.shape.maxRangeKm,
  maxPayloadGrams: PackageSettingsSchema.shape.maxPayloadGrams,
});
export type SubmitDeliverySettings = z.infer<typeof SubmitDeliverySettingsSchema>;

/** What the door checks of a delivery: the limits alone (no drone bookings, no clock). */
export type DeliveryLimits = Pick<SubmitDeliverySettings, 'maxRangeKm' | 'maxPayloadGrams'>;

export const DeliverySettingsSchema = ConsumerSettingsSchema.extend({
  /** Expected flight time, for the estimated arrival of DeliveryScheduled v2. */
  expectedFlightSeconds: Seconds,
});
export type DeliverySettings = z.infer<typeof DeliverySettingsSchema>;

export const RemediationSettingsSchema = ConsumerSettingsSchema.extend({
  /** Back-off before a RETRY or PIVOT: base × 2^(occurrence-1), at most max. */
  retryBaseSeconds: Seconds,
  retryMaxSeconds: Seconds,
});
export type RemediationSettings = z.infer<typeof RemediationSettingsSchema>;

/** The fake drone fleet (lambdas/fakes): a flight, time-scaled per profile. */
export const FlightSettingsSchema = z.object({
  pickupMillis: z.number().int().min(0).max(600_000),
  flightMillis: z.number().int().min(0).max(600_000),
  /** Deliveries whose id starts with this fail in flight (FLIGHT_FAILED): a demo and test hook. */
  failingDeliveryPrefix: z.string().min(1).max(64),
});
export type FlightSettings = z.infer<typeof FlightSettingsSchema>;
