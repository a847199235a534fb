/**
 * The choreography's rules as the model checker reads them (lib/verify, issue 25): the drone
 * scheduler's and the Delivery service's pure reactions, the Delivery service's named guards, and
 * the conditions the kit's transaction puts on its writes (the processed-message marker, the state
 * item's version, the DRONE# item's version). The statuses and event types are contracts already
 * (contracts/index.ts). Tooling reaches a wing only through its public face; this file is that face
 * for the protocol's rules, so the models are generated from the code that runs, not from a copy.
 */
export { droneWriteOf } from './adapters/drone-fleet';
export { type ItemCondition, itemConditionOf, MARKER_CONDITION } from './adapters/service-store';
export type { Decision } from './domain/decision';
export {
  DELIVERY_CONSUMED_TYPES,
  DELIVERY_GUARDS,
  type DeliveryConsumedType,
  type DeliveryGuards,
  type DeliveryInput,
  type DeliveryState,
  reactToDeliveryEvent,
} from './domain/delivery';
export {
  type AssignmentState,
  AssignmentStatus,
  type DroneState,
  type DroneUpdate,
  reactToDroneEvent,
  SCHEDULER_CONSUMED_TYPES,
  type SchedulerChange,
  type SchedulerConsumedType,
  type SchedulerInput,
} from './domain/drone-scheduler';
export { eventIdOf } from './domain/envelope';
