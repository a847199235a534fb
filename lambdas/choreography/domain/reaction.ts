/**
 * What a service decides about one consumed event, as data: the pure half of every consumer. The
 * consumer kit (adapters/fifo-consumer.ts) turns it into one transaction (processed-message marker,
 * state item with its change log, extra writes) and, after the commit, a dead letter.
 */
import type { DeliveryAlert, DeliveryMetric, OutboxEntry, ReasonCode } from '../contracts';
import type { Emission } from './envelope';

/** A business rejection to dead-letter after the commit (PACKAGE_TOO_HEAVY, NO_DRONE_AVAILABLE). */
export interface DeadLetterReason {
  readonly reasonCode: ReasonCode;
  readonly detail: string;
  /**
   * The attempt the dead letter reports (the drone scheduler's scheduling attempt); by default the
   * message's receive count.
   */
  readonly attempt?: number;
}

/** A count the change is reported as once committed (once: a redelivery is a duplicate), under its own dimension. */
export interface ChangeCount {
  readonly metric: DeliveryMetric;
  readonly dimension: { readonly name: string; readonly value: string };
}

/** The service's state item as it was read: its own attributes plus the change log bookkeeping. */
export interface ServiceItem {
  /** The item's partition key, e.g. `PACKAGES#<deliveryId>`. */
  readonly key: string;
  /** Bumped by every commit: the condition a concurrent writer loses on. */
  readonly version: number;
  /** The producer's last sequence number for the delivery (0 before its first event). */
  readonly sequence: number;
  /** The change log as read (the commit extends it). */
  readonly outbox: readonly OutboxEntry[];
  /** The service's own attributes (everything but pk, version, sequence, outbox, expiresAt). */
  readonly state: Readonly<Record<string, unknown>>;
}

/**
 * The decision. `ignore`: a stale or repeated event; only the marker is written (so a redelivery is
 * a duplicate) and only if the item has not moved since it was read. `change`: the item's new state
 * (replacing its own attributes), the events it emits, optionally operator alerts, counts, a dead letter and, for services
 * that keep more than one item (the drone scheduler's DRONE#), extra conditional writes.
 */
export type Reaction<ExtraWrite = never> =
  | { readonly kind: 'ignore'; readonly reason: string }
  | {
      readonly kind: 'change';
      readonly state: Readonly<Record<string, unknown>>;
      readonly emissions: readonly Emission[];
      readonly deadLetter?: DeadLetterReason;
      readonly extraWrites?: readonly ExtraWrite[];
      /** Operator alerts (remediation): change log entries to the alert bus, after the emissions. */
      readonly alerts?: readonly DeliveryAlert[];
      /** Counted after the commit (the ingestion projection's DeliveriesEnteredStatus). */
      readonly counts?: readonly ChangeCount[];
    };

export function ignore(reason: string): Reaction<never> {
  return { kind: 'ignore', reason };
}

export function change<ExtraWrite = never>(
  state: Readonly<Record<string, unknown>>,
  emissions: readonly Emission[],
  options: {
    readonly deadLetter?: DeadLetterReason;
    readonly extraWrites?: readonly ExtraWrite[];
    readonly alerts?: readonly DeliveryAlert[];
    readonly counts?: readonly ChangeCount[];
  } = {},
): Reaction<ExtraWrite> {
  return { kind: 'change', state, emissions, ...options };
}
