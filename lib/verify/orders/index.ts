/** The orders protocol's model: generated from the code's rules, with its bounds and broken variants. */

export { type BrokenVariant, brokenVariants } from './broken-variants';
export { DEFAULT_ORDERS_BOUNDS, type OrdersBounds, resolveOrdersBounds } from './orders-bounds';
export { ORDERS_PROPERTIES, ordersModel } from './orders-model';
export { ORDERS_PROTOCOL, type OrdersProtocol } from './orders-protocol';
