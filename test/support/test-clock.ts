/**
 * The clock the runtimes of the tests run on, one home for the choice: LOCAL_CLOCK names it
 * (`npm test` runs on the virtual clock; `npm run test:wall` on the wall clock; unset: the wall
 * clock), see lib/local-runtime/clock/README.md.
 */
import { type ClockMode, createClock, type RuntimeClock } from '../../lib/local-runtime';
import { SasContextKey } from '../../lib/scheduler-agent-supervisor/sas-context-key';

export function testClock(): RuntimeClock {
  return createClock(process.env.LOCAL_CLOCK, 'LOCAL_CLOCK');
}

/** The mode of testClock(), for what takes a mode and makes its own clock (the campaigns). */
export function testClockMode(): ClockMode {
  return testClock().mode;
}

/**
 * The CDK context the tests synthesize the app with (as `-c key=value`): on the virtual clock the
 * deployed workflow timings (`timings=default`: step timeouts, heartbeats, back-offs, supervisor
 * rate; lib/scheduler-agent-supervisor/config.ts), which pass there at the speed of the work; on
 * the wall clock the local profile's own short ones, or a recovery would take minutes.
 */
export function testTimingsContext(): Readonly<Record<string, string>> {
  return testClockMode() === 'virtual' ? { [SasContextKey.Timings]: 'default' } : {};
}
