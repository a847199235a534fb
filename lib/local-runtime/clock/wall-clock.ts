/**
 * The wall clock, as AWS runs: Date.now and Node's timers. Holding and parking are no-ops (time
 * moves regardless of what the system does).
 */
import type { ClockActivity, ClockTimer, RuntimeClock, SandboxCalls } from './runtime-clock';

const NO_ACTIVITY: ClockActivity = { id: '', label: '', release: () => undefined };
const NOT_PARKED = { resume: () => undefined };

export class WallClock implements RuntimeClock {
  readonly mode = 'wall' as const;

  now(): number {
    return Date.now();
  }

  date(): Date {
    return new Date();
  }

  setTimer(callback: () => void, delayMillis: number, _label?: string): ClockTimer {
    const timer = setTimeout(callback, Math.max(0, delayMillis));
    return { cancel: () => clearTimeout(timer) };
  }

  sleep(millis: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) {
        resolve();
        return;
      }
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, millis));
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  elapse(_millis: number): void {
    // The machine's time moves on its own.
  }

  hold(_label: string): ClockActivity {
    return NO_ACTIVITY;
  }

  expectCalls(_activity: ClockActivity, _calls: SandboxCalls): void {
    // Nothing waits for quiet on the wall clock.
  }

  arrived(_activity: ClockActivity): void {
    // Nothing waits for quiet on the wall clock.
  }

  answered(_activity: ClockActivity): void {
    // Nothing waits for quiet on the wall clock.
  }

  admit(_label: string, start: (activity: ClockActivity) => void): boolean {
    start(NO_ACTIVITY);
    return true;
  }

  activityOf(_id: string | undefined): ClockActivity | undefined {
    return undefined;
  }

  currentActivity(): ClockActivity | undefined {
    return undefined;
  }

  within<T>(_activity: ClockActivity, work: () => T): T {
    return work();
  }

  park(_activity?: ClockActivity): { resume(): void } {
    return NOT_PARKED;
  }
}
