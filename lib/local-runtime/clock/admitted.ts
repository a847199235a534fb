/**
 * `RuntimeClock.admit` as a promise, for work that starts from async code (an invocation once its
 * sandbox is acquired, an SDK call of the runtime's own): resolves with the held activity, at once
 * unless a seeded clock makes it wait its turn.
 */
import type { ClockActivity, RuntimeClock } from './runtime-clock';

export function admitted(clock: RuntimeClock, label: string): Promise<ClockActivity> {
  return new Promise((resolve) => {
    clock.admit(label, resolve);
  });
}
