/** The protocol models (issue 25): generated from the wings' rules, checked exhaustively by spin. */
export {
  type BrokenVariant,
  brokenVariants,
  DEFAULT_ORDERS_BOUNDS,
  type OrdersBounds,
  ordersModel,
} from './orders';
export { runSpin, type SpinModel, type SpinResult } from './spin';
export {
  deliveriesSuite,
  describeCheck,
  formatTrail,
  LIVENESS_QUICK_BOUNDS,
  ordersSuite,
  type VerificationReport,
  type VerificationSuite,
  verify,
  WIDER_BOUNDS,
} from './verification';
