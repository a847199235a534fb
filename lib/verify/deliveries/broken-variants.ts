/**
 * The broken variants: the code's own rules with one guard taken out, each of which the verifier
 * must catch with a counterexample (test/unit/verify/deliveries). The model is generated from the
 * mutated rules exactly as from the real ones, so a variant tests the model's power to find what the
 * guard prevents.
 */

import { DELIVERY_GUARDS } from '../../../lambdas/choreography/protocol';
import type { SpinModel } from '../spin';
import { bookingModel } from './booking-model';
import { BOOKING_RULES } from './booking-rules';
import {
  type BookingBounds,
  DEFAULT_BOOKING_BOUNDS,
  DEFAULT_DELIVERY_BOUNDS,
  type DeliveryBounds,
} from './bounds';
import { deliveryModel } from './delivery-model';
import { DELIVERY_RULES } from './delivery-rules';

/** A write with its condition dropped: DynamoDB then writes unconditionally. */
function unconditional<T extends object>(write: T): T {
  const {
    ConditionExpression: _expression,
    ExpressionAttributeNames: _names,
    ExpressionAttributeValues: _values,
    ...rest
  } = write as T & Record<string, unknown>;
  return rest as T;
}

/** The Delivery service's rules with one guard changed: a variant's model, named. */
function deliveryVariant(
  name: string,
  description: string,
  bounds: DeliveryBounds,
  rules: Partial<typeof DELIVERY_RULES>,
) {
  return { name, description, model: deliveryModel(bounds, { ...DELIVERY_RULES, ...rules }, name) };
}

export function deliveriesBrokenVariants(
  bookingBounds: BookingBounds = DEFAULT_BOOKING_BOUNDS,
  deliveryBounds: DeliveryBounds = DEFAULT_DELIVERY_BOUNDS,
): { readonly name: string; readonly description: string; readonly model: SpinModel }[] {
  return [
    deliveryVariant(
      'delivery-without-is-newer',
      'DELIVERY_GUARDS.isNewer always true: any reply replaces the recorded one',
      deliveryBounds,
      { guards: { ...DELIVERY_GUARDS, isNewer: () => true } },
    ),
    deliveryVariant(
      'delivery-without-is-final',
      'DELIVERY_GUARDS.isFinal always false: a terminal status is not final',
      deliveryBounds,
      { guards: { ...DELIVERY_GUARDS, isFinal: () => false } },
    ),
    deliveryVariant(
      'delivery-without-item-version',
      "the DELIVERY# item's write without its condition (itemConditionOf dropped)",
      deliveryBounds,
      { itemCondition: () => undefined },
    ),
    {
      name: 'booking-without-drone-version',
      description:
        "the DRONE# write without its version condition (droneWriteOf's ConditionExpression dropped)",
      model: bookingModel(
        bookingBounds,
        {
          ...BOOKING_RULES,
          droneWrite: (table, update) => {
            const write = BOOKING_RULES.droneWrite(table, update);
            return write.Put ? { Put: unconditional(write.Put) } : write;
          },
        },
        'booking-without-drone-version',
      ),
    },
    {
      name: 'booking-without-assignment-version',
      description: "the ASSIGNMENT# item's write without its condition (itemConditionOf dropped)",
      model: bookingModel(
        bookingBounds,
        { ...BOOKING_RULES, itemCondition: () => undefined },
        'booking-without-assignment-version',
      ),
    },
  ];
}
