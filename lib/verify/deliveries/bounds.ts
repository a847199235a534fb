/**
 * The bounds the deliveries models are generated within, in one place: every result prints them, and
 * the defaults are what the tests and DESIGN.md "Model-checked" measured (all checks well under a
 * minute on two cores). Larger bounds are a parameter, not an edit.
 */
/** The booking model's bounds (booking-model.ts). */
export interface BookingBounds {
  /** Deliveries contending for the fleet (each a request, a retry and a compensation). */
  readonly deliveries: number;
  /** Drones in the fleet (every window overlaps every other: one slot). */
  readonly drones: number;
  /** Deliveries of each request to its consumer (duplicates, redeliveries, zombies after a crash); a retry and a compensation are delivered once each. */
  readonly copies: number;
}

export const DEFAULT_BOOKING_BOUNDS: BookingBounds = { deliveries: 2, drones: 2, copies: 1 };

/**
 * The booking model with duplicates: one delivery, two drones, each request delivered twice (and
 * its liveness). Two deliveries with two copies each did not finish within 5 minutes at two drones,
 * and took 50,712,823 states and 92 s at one drone (DESIGN.md "Model-checked").
 */
export const DUPLICATES_BOOKING_BOUNDS: BookingBounds = { deliveries: 1, drones: 2, copies: 2 };

/** The delivery model's bounds (delivery-model.ts, the Delivery service's record): its messages are DELIVERY_MESSAGES, each delivered once, these twice. */
export interface DeliveryBounds {
  /** Names of the messages delivered twice (a duplicate running beside, or after, its original). */
  readonly duplicated: readonly string[];
  /** Consumers in flight at once (the FIFO queue runs one per delivery; more are redeliveries beside a zombie). */
  readonly inFlight: number;
  /**
   * Consumers that may crash before their commit (their message lost, or dead-lettered). 0 by
   * default: a run that loses a message reaches no state the run delivering it last does not (the
   * properties are checked at every commit), and each crash doubles the consumers' choices.
   */
  readonly lost: number;
}

export const DEFAULT_DELIVERY_BOUNDS: DeliveryBounds = { duplicated: ['PackageReady'], inFlight: 2, lost: 0 };

/** The delivery model's liveness bounds: no duplicate (the search for unfair cycles at the default bounds takes 15 s). */
export const LIVENESS_DELIVERY_BOUNDS: DeliveryBounds = { duplicated: [], inFlight: 2, lost: 0 };
