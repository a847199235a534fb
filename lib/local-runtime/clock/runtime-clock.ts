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
  /** What holds (a seeded clock's trace names a request's caller by it): '' on the wall clock. */
  readonly label: string;
  release(): void;
}

/**
 * The header the runtime's own SDK clients send their activity's id in, so the server that serves
 * the call works as part of it (and parks it while a long poll waits).
 */
export const ACTIVITY_HEADER = 'x-local-runtime-activity';

/**
 * The header a sandbox's request names its number in among its invocation's requests (1, 2, ...,
 * in the order the code sent them): a seeded clock tells requests sent together apart by it.
 */
export const CALL_HEADER = 'x-local-runtime-call';

/**
 * The header the local CloudWatch answers with its clock's time (epoch milliseconds): what a reader
 * of "the last hour" of metrics needs, since the metrics are stamped on that clock, which on the
 * virtual clock is far from the machine's (the console's dashboard reads it; AWS sends none, and
 * its metrics are on the wall clock).
 */
export const CLOCK_NOW_HEADER = 'x-local-runtime-now';

export type ClockMode = 'wall' | 'virtual';

/** What a sandbox counts of its requests to the runtime, during one invocation (expectCalls). */
export interface SandboxCalls {
  /** Requests sent so far. */
  sent(): number;
  /**
   * Answers handled so far (the code ran on for a while after each), and requests that ended with
   * no answer (one that never arrived: a connection refused or reset).
   */
  handled(): number;
  /** Requests sent so far that the code has run on from for a while. @default - as `sent` */
  goneOn?(): number;
  /**
   * Messages about its timers (armed, cancelled, waiting) the sandbox has posted and the runtime
   * has not applied yet. @default - none counted
   */
  timerMessagesUnhandled?(): number;
}

export interface RuntimeClock {
  readonly mode: ClockMode;
  /**
   * The seed a virtual clock orders concurrent work by (`admit`), when it has one: what the
   * machine's time would start (a poll on it) cannot be replayed then. @default - none
   */
  readonly seed?: number;
  /**
   * Where the sandboxes read the time (Float64 epoch millis at index 0), when it is not the
   * machine's: a virtual clock's. @default - none (the sandboxes read their own Date)
   */
  readonly sharedTime?: SharedArrayBuffer;
  /** Epoch milliseconds. */
  now(): number;
  /** `new Date(now())`. */
  date(): Date;
  /**
   * Calls `callback` once `delayMillis` have passed on this clock (at least 0). `label` names the
   * timer in a seeded clock's trace. @default label 'timer'
   */
  setTimer(callback: () => void, delayMillis: number, label?: string): ClockTimer;
  /** Resolves after `millis` on this clock, or as soon as `signal` aborts; never rejects. */
  sleep(millis: number, signal?: AbortSignal): Promise<void>;
  /**
   * Moves a virtual clock on by `millis` now, without waiting to be quiet (a no-op on the wall
   * clock): each invocation starts a millisecond after the one before at the earliest, so the
   * times causally ordered calls record keep their order, as on AWS where every call takes time.
   */
  elapse(millis: number): void;
  /**
   * `activity` sends requests to the runtime's servers from elsewhere (a sandbox's thread), which
   * counts what it sent and what answers it has handled (`calls`). A seeded clock counts a request
   * in progress from when it is sent until it arrives (`arrived`), and an answer from when it is
   * sent (`answered`) until the sandbox has handled it: requests sent together are all waiting
   * their turn before one is picked, and code that runs on after an answer sends its next request
   * before the next pick. A no-op elsewhere.
   */
  expectCalls(activity: ClockActivity, calls: SandboxCalls): void;
  /** A request that names `activity` as its sender arrived (see `expectCalls`). */
  arrived(activity: ClockActivity): void;
  /** The answer to a request that named `activity` left (see `expectCalls`). */
  answered(activity: ClockActivity): void;
  /** Marks work in progress until released (a no-op on the wall clock). */
  hold(label: string): ClockActivity;
  /**
   * Starts work that begins on its own (a request arriving, an invocation, the runtime's own SDK
   * call), holding the clock as `hold(label)` does: at once, and `true`; on a seeded virtual clock
   * it waits to be admitted, one at a time once nothing is in progress, in the order the seed
   * picks among the labels waiting, and `false` (`start` runs later). `label` is what the seeded
   * order sorts by and the trace shows: it names the work without the run's random parts.
   */
  admit(label: string, start: (activity: ClockActivity) => void): boolean;
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
