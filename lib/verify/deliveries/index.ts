/** The choreography's protocol models (issue 25): generated from its code, checked by spin. */
export { bookingModel } from './booking-model';
export { BOOKING_RULES, type BookingRules } from './booking-rules';
export { BOOKING_MESSAGES, type BookingRow, bookingTable } from './booking-table';
export {
  DEFAULT_DELIVERIES_BOUNDS,
  DEFAULT_DELIVERY_BOUNDS,
  type DeliveriesBounds,
  type DeliveryBounds,
  DUPLICATES_BOOKING_BOUNDS,
  LIVENESS_DELIVERY_BOUNDS,
} from './bounds';
export { deliveriesBrokenVariants } from './broken-variants';
export { deliveriesModels } from './deliveries-models';
export { DELIVERY_MESSAGES, type DeliveryMessage } from './delivery-messages';
export { DELIVERY_PROPERTIES, deliveryModel } from './delivery-model';
export { DELIVERY_RULES, type DeliveryRules } from './delivery-rules';
export { type DeliveryRow, type DeliveryTable, deliveryTable, type ModelDelivery } from './delivery-table';
