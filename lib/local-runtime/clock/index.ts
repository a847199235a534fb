/** The local runtime's clock: one interface, the wall clock and the virtual clock. */

export { CLOCK_MODES, clockModeOf, createClock } from './create-clock';
export { type ClockGlobals, globalsOn } from './globals-on';
export { holdDuringCalls } from './hold-during-calls';
export {
  ACTIVITY_HEADER,
  type ClockActivity,
  type ClockMode,
  type ClockTimer,
  type RuntimeClock,
} from './runtime-clock';
export { VirtualClock, type VirtualClockOptions } from './virtual-clock';
export { WallClock } from './wall-clock';
