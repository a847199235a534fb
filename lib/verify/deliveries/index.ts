/** The choreography's protocol models (issue 25): generated from its code, checked by spin. */
export { bookingModel } from './booking-model';
export { BOOKING_RULES, type BookingRules } from './booking-rules';
export { BOOKING_MESSAGES, type BookingRow, bookingTable } from './booking-table';
export { DEFAULT_DELIVERIES_BOUNDS, type DeliveriesBounds } from './bounds';
export { deliveriesBrokenVariants } from './broken-variants';
export { deliveriesModels } from './deliveries-models';
