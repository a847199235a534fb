/**
 * The choreography's protocol models (issue 25): generated from its code, checked by spin. What
 * lib/verify/verification.ts runs (the models, the broken variants), and what the tests read of them
 * (test/unit/verify/deliveries): nothing else of the folder is used outside it.
 */
export { bookingModel } from './booking-model';
export { BOOKING_RULES } from './booking-rules';
export { BOOKING_MESSAGES, bookingTable } from './booking-table';
export {
  DEFAULT_BOOKING_BOUNDS,
  DEFAULT_DELIVERY_BOUNDS,
  DUPLICATES_BOOKING_BOUNDS,
  LIVENESS_DELIVERY_BOUNDS,
} from './bounds';
export { deliveriesBrokenVariants } from './broken-variants';
export { deliveriesModels } from './deliveries-models';
export { DELIVERY_MESSAGES } from './delivery-messages';
export { deliveryModel } from './delivery-model';
export { DELIVERY_RULES } from './delivery-rules';
export { type DeliveryTable, deliveryTable } from './delivery-table';
