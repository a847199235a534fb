/**
 * The one clock of the local runtime: every timer the runtime owns (Step Functions timeouts and
 * heartbeats, SQS delays, visibility and long polls, EventBridge schedules, Lambda timeouts and
 * retries, event-source windows, alarm periods) reads it, so that the same runtime can run on the
 * wall clock (WallClock, as AWS does) or on a clock it controls (VirtualClock: time moves only when
 * the system is quiet, then jumps to the next due timer). Kept to what the services need.
 */

/** A timer armed on a RuntimeClock. */
export interface ClockTimer {
  /** Disarms the timer; a no-op once it fired or was cancelled. */
  cancel(): void;
}

/**
 * Work in progress (a request being served, an invocation running, an SDK call of the runtime's own
 * in flight): a virtual clock does not move while any is held. Releasing twice is a no-op.
 */
export interface ClockActivity {
  /** Names the activity across a hop (ACTIVITY_HEADER): '' on the wall clock. */
  readonly id: string;
  release(): void;
}

/**
 * The header the runtime's own SDK clients send their activity's id in, so the server that serves
 * the call works as part of it (and parks it while a long poll waits).
 */
export const ACTIVITY_HEADER = 'x-local-runtime-activity';

export type ClockMode = 'wall' | 'virtual';

export interface RuntimeClock {
  readonly mode: ClockMode;
  /**
   * Where the sandboxes read the time (Float64 epoch millis at index 0), when it is not the
   * machine's: a virtual clock's. @default - none (the sandboxes read their own Date)
   */
  readonly sharedTime?: SharedArrayBuffer;
  /** Epoch milliseconds. */
  now(): number;
  /** `new Date(now())`. */
  date(): Date;
  /** Calls `callback` once `delayMillis` have passed on this clock (at least 0). */
  setTimer(callback: () => void, delayMillis: number): ClockTimer;
  /** Resolves after `millis` on this clock, or as soon as `signal` aborts; never rejects. */
  sleep(millis: number, signal?: AbortSignal): Promise<void>;
  /**
   * Moves a virtual clock on by `millis` now, without waiting to be quiet (a no-op on the wall
   * clock): each invocation starts a millisecond after the one before at the earliest, so the
   * times causally ordered calls record keep their order, as on AWS where every call takes time.
   */
  elapse(millis: number): void;
  /** Marks work in progress until released (a no-op on the wall clock). */
  hold(label: string): ClockActivity;
  /** The activity an id names, while it is not released (never on the wall clock). */
  activityOf(id: string | undefined): ClockActivity | undefined;
  /**
   * The activity the work running now is part of (see `within`), while it is not released: what
   * a hop names in ACTIVITY_HEADER when it forwards a request (never on the wall clock).
   */
  currentActivity(): ClockActivity | undefined;
  /**
   * Runs `work` as part of `activity`: a wait inside it (sleep, or a wait that called `park`) lets
   * the clock move while it waits, instead of holding it still.
   */
  within<T>(activity: ClockActivity, work: () => T): T;
  /**
   * `activity`, or the work running now (see `within`), is about to wait for something only time
   * or another actor can bring: it stops holding the clock until `resume` is called, which the
   * waker calls synchronously before it wakes the waiter. Outside any activity, a no-op.
   */
  park(activity?: ClockActivity): { resume(): void };
}
