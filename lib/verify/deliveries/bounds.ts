/**
 * The bounds the deliveries models are generated within, in one place: every result prints them, and
 * the defaults are what the tests and DESIGN.md "Model-checked" measured (all checks well under a
 * minute on two cores). Larger bounds are a parameter, not an edit.
 */
export interface DeliveriesBounds {
  /** Booking: deliveries contending for the fleet (each a request, a retry and a compensation). */
  readonly deliveries: number;
  /** Booking: drones in the fleet (every window overlaps every other: one slot). */
  readonly drones: number;
  /** Deliveries of each request to its consumer (duplicates, redeliveries, zombies after a crash); a retry and a compensation are delivered once each. */
  readonly copies: number;
}

export const DEFAULT_DELIVERIES_BOUNDS: DeliveriesBounds = { deliveries: 2, drones: 2, copies: 1 };
