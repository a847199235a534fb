/** The local runtime's clock: one interface, the wall clock and the virtual clock. */

export { admitted } from './admitted';
export { asActivity } from './as-activity';
export { CLOCK_MODES, clockModeOf, createClock } from './create-clock';
export { type ClockGlobals, globalsOn } from './globals-on';
export { holdDuringCalls } from './hold-during-calls';
export {
  ACTIVITY_HEADER,
  CALL_HEADER,
  CLOCK_NOW_HEADER,
  type ClockActivity,
  type ClockMode,
  type ClockTimer,
  type RuntimeClock,
  type SandboxCalls,
} from './runtime-clock';
export { hashString, mulberry32, type Random } from './seeded-random';
export { SEEDED_START_MILLIS, VirtualClock, type VirtualClockOptions } from './virtual-clock';
export { WallClock } from './wall-clock';
