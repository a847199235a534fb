/**
 * A clock from its name, as a command line or the environment gives it (`npm start -- --clock
 * virtual`, LOCAL_CLOCK=virtual for the tests): one place that knows the names and refuses others.
 */
import type { ClockMode, RuntimeClock } from './runtime-clock';
import { VirtualClock } from './virtual-clock';
import { WallClock } from './wall-clock';

export const CLOCK_MODES: readonly ClockMode[] = ['wall', 'virtual'];

/**
 * The clock mode `text` names (undefined or empty: the wall clock); another value is refused,
 * naming `source` (the flag or variable it came from).
 */
export function clockModeOf(text: string | undefined, source: string): ClockMode {
  if (text === undefined || text === '') return 'wall';
  if (!(CLOCK_MODES as readonly string[]).includes(text)) {
    throw new Error(`${source} must be ${CLOCK_MODES.join(' or ')}, got '${text}'`);
  }
  return text as ClockMode;
}

/** The clock `mode` names, read as clockModeOf reads it. */
export function createClock(mode: string | undefined, source: string): RuntimeClock {
  return clockModeOf(mode, source) === 'virtual' ? new VirtualClock() : new WallClock();
}
