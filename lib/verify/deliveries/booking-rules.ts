/**
 * The drone scheduler's rules the booking model is generated from: the pure reaction, the DRONE#
 * write with its condition, the ASSIGNMENT# item's condition and the marker's, all as the code
 * exports them (protocol.ts). A broken variant passes the same rules with one guard taken out.
 */
import {
  droneWriteOf,
  type ItemCondition,
  itemConditionOf,
  MARKER_CONDITION,
  reactToDroneEvent,
} from '../../../lambdas/choreography/protocol';

export interface BookingRules {
  readonly react: typeof reactToDroneEvent;
  readonly droneWrite: typeof droneWriteOf;
  readonly itemCondition: (read: { readonly version: number } | undefined) => ItemCondition | undefined;
  readonly markerCondition: ItemCondition | undefined;
}

export const BOOKING_RULES: BookingRules = {
  react: reactToDroneEvent,
  droneWrite: droneWriteOf,
  itemCondition: itemConditionOf,
  markerCondition: MARKER_CONDITION,
};
