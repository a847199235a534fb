/**
 * Node's timer functions and `Date`, bound to a RuntimeClock, for code that reads them as globals
 * and cannot be handed a clock: the Step Functions engine (../stepfunctions/engine.ts), whose Wait
 * states, Retry intervals and own timeouts call the global `setTimeout` and `Date.now()`.
 */
import type { ClockTimer, RuntimeClock } from './runtime-clock';

export interface ClockGlobals {
  /** Arms `callback(...args)` on the clock; returns the timer `clearTimeout` takes. */
  readonly setTimeout: (
    callback: (...args: unknown[]) => void,
    delayMillis?: number,
    ...args: unknown[]
  ) => ClockTimer;
  readonly clearTimeout: (timer: ClockTimer | undefined) => void;
  /** `Date` whose `now()` and argument-less `new Date()` read the clock; everything else is Date's. */
  readonly Date: DateConstructor;
}

export function globalsOn(clock: RuntimeClock): ClockGlobals {
  function ClockDate(this: unknown, ...args: unknown[]): Date | string {
    // Called without `new`, Date gives the current time as a string.
    if (!new.target) return clock.date().toString();
    return Reflect.construct(Date, args.length === 0 ? [clock.now()] : args, new.target) as Date;
  }
  // Static methods (parse, UTC) are Date's; instances are Dates (instanceof holds both ways).
  Object.setPrototypeOf(ClockDate, Date);
  ClockDate.prototype = Date.prototype;
  ClockDate.now = () => clock.now();
  return {
    setTimeout: (callback, delayMillis = 0, ...args) => clock.setTimer(() => callback(...args), delayMillis),
    clearTimeout: (timer) => timer?.cancel(),
    Date: ClockDate as unknown as DateConstructor,
  };
}
