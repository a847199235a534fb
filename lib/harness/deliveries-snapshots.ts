/**
 * What the tooling reads of a running drone delivery system (deliveries-driver.ts reads it; the
 * delivery campaign's invariants and the benchmarks judge it): each service's items and change
 * logs, the events observed on the bus, drones, dead letters and remediation's decisions.
 */
import { ServiceName } from '../../lambdas/choreography/contracts';

/** The queue consumers a campaign can disturb (the per-delivery faults aim at them). */
export const FAULTED_CONSUMERS = [
  ServiceName.Package,
  ServiceName.DroneScheduler,
  ServiceName.Delivery,
] as const;
export type FaultedConsumer = (typeof FAULTED_CONSUMERS)[number];

/** A change log entry as the checker reads it. */
export interface ChangeLogEntry {
  readonly id: string;
  readonly destination: string;
  readonly type: string;
  readonly sequence: number;
}

/** The Delivery service's DELIVERY#<id> item. */
export interface DeliveryItem {
  readonly deliveryId: string;
  readonly status: string;
  /** The Delivery service's last sequence number for the delivery (its lifecycle events). */
  readonly sequence: number;
  readonly outbox: readonly ChangeLogEntry[];
  /** The drone of its DroneScheduled reply, if it recorded one. */
  readonly droneId?: string;
}

/** The ingestion read model's DELIVERY#<id> item. */
export interface IngestionItem {
  readonly deliveryId: string;
  readonly status: string;
  readonly history: readonly {
    readonly type: string;
    readonly sequence: number;
    readonly producer: string;
  }[];
}

/** A lifecycle event as the test subscriber of the delivery bus received it (arrival order). */
export interface ObservedEvent {
  readonly deliveryId: string;
  readonly eventId: string;
  readonly type: string;
  readonly sequence: number;
  readonly producer: string;
}

/** The drone scheduler's ASSIGNMENT#<deliveryId> item. */
export interface AssignmentItem {
  readonly deliveryId: string;
  readonly status: string;
  readonly droneId?: string;
  readonly window?: Window;
}

/** A DRONE#<droneId> item as read at `at` (sampled while the run went on, and at the end). */
export interface DroneSample {
  readonly droneId: string;
  readonly at: number;
  readonly assignments: readonly ({ readonly deliveryId: string } & Window)[];
}

/** Remediation's DEADLETTER#<key> marker. */
export interface DeadLetterMarker {
  readonly key: string;
  readonly deliveryId?: string;
}

/** One decision in a REMEDIATION#<deliveryId> item. */
export interface RemediationDecisionRecord {
  readonly deliveryId: string;
  readonly deadLetterKey: string;
  readonly decision: string;
  readonly reasonCode: string;
  readonly source: string;
}

export interface Window {
  readonly start: string;
  readonly end: string;
}
