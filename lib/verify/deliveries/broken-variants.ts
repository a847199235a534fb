/**
 * The broken variants: the code's own rules with one guard taken out, each of which the verifier
 * must catch with a counterexample (test/unit/verify/deliveries). The model is generated from the
 * mutated rules exactly as from the real ones, so a variant tests the model's power to find what the
 * guard prevents.
 */
import type { SpinModel } from '../spin';
import { bookingModel } from './booking-model';
import { BOOKING_RULES } from './booking-rules';
import { DEFAULT_DELIVERIES_BOUNDS, type DeliveriesBounds } from './bounds';

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

export function deliveriesBrokenVariants(
  bounds: DeliveriesBounds = DEFAULT_DELIVERIES_BOUNDS,
): { readonly name: string; readonly description: string; readonly model: SpinModel }[] {
  return [
    {
      name: 'booking-without-drone-version',
      description:
        "the DRONE# write without its version condition (droneWriteOf's ConditionExpression dropped)",
      model: bookingModel(
        bounds,
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
        bounds,
        { ...BOOKING_RULES, itemCondition: () => undefined },
        'booking-without-assignment-version',
      ),
    },
  ];
}
