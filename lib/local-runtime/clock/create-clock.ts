/**
 * A clock from its name, as a command line or the environment gives it (`npm start -- --clock
 * virtual`, LOCAL_CLOCK=virtual for the tests): one place that knows the names and refuses others.
 */
import type { ClockMode, RuntimeClock } from './runtime-clock';
import { VirtualClock } from './virtual-clock';
import { WallClock } from './wall-clock';

export const CLOCK_MODES: readonly ClockMode[] = ['wall', 'virtual'];

/** Whether `text` names a clock mode. */
export function isClockMode(text: string): text is ClockMode {
  return (CLOCK_MODES as readonly string[]).includes(text);
}

/**
 * The clock `mode` names (undefined or empty: the wall clock); another value is refused, naming
 * `source` (the flag or variable it came from).
 */
export function createClock(mode: string | undefined, source: string): RuntimeClock {
  if (mode === undefined || mode === '') return new WallClock();
  if (!isClockMode(mode)) throw new Error(`${source} must be ${CLOCK_MODES.join(' or ')}, got '${mode}'`);
  return mode === 'virtual' ? new VirtualClock() : new WallClock();
}
