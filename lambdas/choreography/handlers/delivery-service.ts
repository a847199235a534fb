/**
 * Delivery service (delivery queue, FIFO, group = deliveryId): correlates the package and drone
 * replies, follows the flight, applies remediation's endings, and writes the lifecycle events to its
 * change log (published to the delivery bus by the relay). Composition only: the rules are
 * domain/delivery.ts, the consumer mechanics the kit's.
 */

import { asReaction, stateOf } from '../adapters/decisions';
import { DeliverySettingsSchema, ServiceName } from '../contracts';
import {
  DELIVERY_CONSUMED_TYPES,
  type DeliveryConsumedType,
  type DeliveryState,
  reactToDeliveryEvent,
} from '../domain/delivery';
import { type ConsumerDefinition, consumerHandler } from '../kit';

const deliveryKeyOf = (deliveryId: string) => `DELIVERY#${deliveryId}`;

export const handler = consumerHandler(
  DeliverySettingsSchema,
  ({ settings }): ConsumerDefinition<DeliveryConsumedType> => ({
    service: ServiceName.Delivery,
    accepts: DELIVERY_CONSUMED_TYPES,
    itemKeyOf: (event) => deliveryKeyOf(event.deliveryId),
    react: (current, event, now) =>
      asReaction(
        reactToDeliveryEvent({ state: stateOf<DeliveryState>(current), event, now, settings }),
        (state) => ({ state: { ...state } }),
      ),
  }),
);
