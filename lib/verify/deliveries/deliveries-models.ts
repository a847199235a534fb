/**
 * The deliveries models to check, generated from the choreography's code within their bounds: the
 * drone scheduler's booking, and the Delivery service's record (DESIGN.md "Model-checked" says what
 * each proves and what is not modelled). Every model here runs in `npm test` (npm run verify --
 * --quick): together with the broken variants they stay within about 25 s on two cores.
 */
import type { SpinModel } from '../spin';
import { bookingModel } from './booking-model';
import { BOOKING_RULES } from './booking-rules';
import {
  type BookingBounds,
  DEFAULT_BOOKING_BOUNDS,
  DEFAULT_DELIVERY_BOUNDS,
  type DeliveryBounds,
  DUPLICATES_BOOKING_BOUNDS,
} from './bounds';
import { deliveryModel } from './delivery-model';

export function deliveriesModels(
  bookingBounds: BookingBounds = DEFAULT_BOOKING_BOUNDS,
  deliveryBounds: DeliveryBounds = DEFAULT_DELIVERY_BOUNDS,
): SpinModel[] {
  return [
    bookingModel(bookingBounds),
    bookingModel(DUPLICATES_BOOKING_BOUNDS, BOOKING_RULES, 'booking-duplicates', true),
    deliveryModel(deliveryBounds),
  ];
}
