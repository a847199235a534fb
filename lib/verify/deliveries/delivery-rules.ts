/**
 * The Delivery service's rules the delivery model is generated from: the pure reaction with the
 * named guards it applies (DELIVERY_GUARDS), and the conditions the kit's transaction puts on the
 * DELIVERY# item and the processed-message marker, all as the code exports them (protocol.ts). A
 * broken variant passes the same rules with one guard changed.
 */
import {
  DELIVERY_GUARDS,
  type DeliveryGuards,
  type ItemCondition,
  itemConditionOf,
  MARKER_CONDITION,
  reactToDeliveryEvent,
} from '../../../lambdas/choreography/protocol';

export interface DeliveryRules {
  readonly react: typeof reactToDeliveryEvent;
  readonly guards: DeliveryGuards;
  readonly itemCondition: (read: { readonly version: number } | undefined) => ItemCondition | undefined;
  readonly markerCondition: ItemCondition | undefined;
}

export const DELIVERY_RULES: DeliveryRules = {
  react: reactToDeliveryEvent,
  guards: DELIVERY_GUARDS,
  itemCondition: itemConditionOf,
  markerCondition: MARKER_CONDITION,
};
