/**
 * A clock the runtime controls (Temporal's time-skipping test server, discrete-event simulators):
 * time stands still while anything is in progress (a request being served, an invocation running,
 * the runtime's own SDK call in flight: each holds an activity), and once nothing has been held for
 * `settleMillis` of wall time it jumps to the earliest due timer and fires it (timers due at the
 * same instant fire in the order they were armed). A step timeout of 5 minutes, a 15-minute SQS
 * delay or a day of hourly schedules then take as long as the work they trigger, not as the time
 * they name, and a machine too busy to keep a wall-clock deadline cannot miss a virtual one.
 *
 * A wait inside an activity (a long poll, a back-off) parks it: the activity stops holding the
 * clock until its waker resumes it, synchronously, before waking it. Activities are found through
 * AsyncLocalStorage, so a request handler parks without being handed its activity.
 *
 * The sandboxes read the same time through `sharedTime` (a SharedArrayBuffer the worker's Date
 * reads), so functions sign requests, compute expiries and read deadlines on this clock.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ClockActivity, ClockTimer, RuntimeClock, SandboxCalls } from './runtime-clock';
import { SeededSchedule } from './seeded-schedule';

/**
 * Where a seeded clock starts: a fixed instant, so a replay reads the same times; ahead of any
 * machine's time, so DynamoDB Local (which expires TTL items on the machine's time) never expires
 * an item whose expiry was computed on this clock during the run.
 */
export const SEEDED_START_MILLIS = Date.parse('2050-01-01T00:00:00.000Z');

export interface VirtualClockOptions {
  /** Epoch milliseconds the clock starts at. @default the wall clock's time at construction */
  readonly startMillis?: number;
  /**
   * Wall milliseconds without any activity held before time jumps: covers the hand-offs nothing
   * holds (bytes on a loopback socket between a reply and its reader). @default 3
   */
  readonly settleMillis?: number;
  /**
   * Seeded scheduling: work that starts on its own waits to be admitted (`admit`), one at a time
   * once nothing is in progress, in an order the seed picks; of timers due together one fires at a
   * time, the seed's pick (seeded-schedule.ts). @default - none (admitted at once; timers due
   * together fire together, in the order they were armed)
   */
  readonly seed?: number;
  /**
   * Receives the trace, one line per admission and per timer fired: the clock's time (ISO) and
   * what started. @default - no trace
   */
  readonly trace?: (line: string) => void;
  /**
   * Seeded: how long (the machine's time) the clock waits on a sandbox's request on its way or
   * answer not handled before it picks anyway, with a line in the trace (a sandbox that died with
   * an answer unhandled must not hold it for ever). @default 10,000
   */
  readonly unsettledPatienceMillis?: number;
}

interface PendingTimer {
  readonly due: number;
  readonly sequence: number;
  readonly callback: () => void;
  readonly label: string;
  cancelled: boolean;
}

class Activity implements ClockActivity {
  released = false;
  parks = 0;
  /** Its requests from elsewhere (expectCalls): what the sandbox counts, what the servers count. */
  calls: SandboxCalls | undefined;
  arrivals = 0;
  answers = 0;

  /**
   * A request of its own is on its way (more open in the sandbox than at the servers), or just sent
   * and the code not run on from it yet, an answer not handled yet, or a timer not on the clock yet.
   */
  get callsUnsettled(): boolean {
    const calls = this.calls;
    if (calls === undefined) return false;
    const sent = calls.sent();
    const handled = calls.handled();
    return (
      sent - handled > this.arrivals - this.answers ||
      this.answers > handled ||
      (calls.goneOn?.() ?? sent) < sent ||
      (calls.timerMessagesUnhandled?.() ?? 0) > 0
    );
  }

  /** What it waits on, for the trace: requests sent and arrived, answers given and handled, timers. */
  get unsettledCounts(): string {
    const calls = this.calls;
    if (calls === undefined) return '';
    const timers = calls.timerMessagesUnhandled?.() ?? 0;
    const goneOn = calls.goneOn?.() ?? calls.sent();
    return `sent ${calls.sent()} gone on ${goneOn} arrived ${this.arrivals} answered ${this.answers} handled ${calls.handled()} timer messages ${timers}`;
  }

  constructor(
    private readonly clock: VirtualClock,
    readonly id: string,
    readonly label: string,
  ) {}

  get holding(): boolean {
    return !this.released && this.parks === 0;
  }

  release(): void {
    if (this.released) return;
    const wasHolding = this.holding;
    this.released = true;
    if (wasHolding) this.clock.changeHeld(-1);
    this.clock.forget(this.id);
  }

  park(): void {
    const wasHolding = this.holding;
    this.parks += 1;
    if (wasHolding) this.clock.changeHeld(-1);
  }

  resume(): void {
    if (this.parks === 0) return;
    this.parks -= 1;
    if (this.holding) this.clock.changeHeld(1);
  }
}

const wallTimeout = setTimeout;

export class VirtualClock implements RuntimeClock {
  readonly mode = 'virtual' as const;
  /** The current time, for the sandboxes (Float64 epoch millis at index 0). */
  readonly sharedTime = new SharedArrayBuffer(8);
  private readonly sharedView = new Float64Array(this.sharedTime);
  private readonly settleMillis: number;
  private readonly timers: PendingTimer[] = [];
  private readonly context = new AsyncLocalStorage<Activity>();
  private current: number;
  private sequence = 0;
  private held = 0;
  private generation = 0;
  private checkScheduled = false;
  private stopped = false;
  /** Freezes not thawed yet: no timer fires meanwhile. */
  private frozen = 0;
  private jumps = 0;
  private nextActivity = 0;
  private readonly activities = new Map<string, Activity>();
  private readonly schedule: SeededSchedule | undefined;
  private readonly trace: ((line: string) => void) | undefined;
  /** Since when (the machine's time) a sandbox's call has kept the clock from picking. */
  private unsettledSince: number | undefined;
  private readonly unsettledPatienceMillis: number;

  constructor(options: VirtualClockOptions = {}) {
    this.schedule = options.seed === undefined ? undefined : new SeededSchedule(options.seed);
    this.current = options.startMillis ?? (this.schedule ? SEEDED_START_MILLIS : Date.now());
    this.sharedView[0] = this.current;
    this.settleMillis = options.settleMillis ?? 3;
    this.unsettledPatienceMillis = options.unsettledPatienceMillis ?? 10_000;
    this.trace = options.trace;
  }

  /** The seed the clock schedules concurrent work by (undefined: not seeded). */
  get seed(): number | undefined {
    return this.schedule?.seed;
  }

  now(): number {
    return this.current;
  }

  date(): Date {
    return new Date(this.current);
  }

  /** Jumps made so far (each to the next due timer). */
  get advances(): number {
    return this.jumps;
  }

  setTimer(callback: () => void, delayMillis: number, label = 'timer'): ClockTimer {
    const timer: PendingTimer = {
      due: this.current + Math.max(0, delayMillis),
      sequence: this.sequence++,
      callback,
      label,
      cancelled: false,
    };
    this.insert(timer);
    this.touch();
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  sleep(millis: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) {
        resolve();
        return;
      }
      const parked = this.park();
      const done = () => {
        timer.cancel();
        signal?.removeEventListener('abort', done);
        parked.resume();
        resolve();
      };
      const timer = this.setTimer(done, millis);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  elapse(millis: number): void {
    if (millis <= 0) return;
    this.current += millis;
    this.sharedView[0] = this.current;
    this.touch();
  }

  admit(label: string, start: (activity: ClockActivity) => void): boolean {
    const schedule = this.schedule;
    if (!schedule) {
      start(this.hold(label));
      return true;
    }
    // Numbered in admission order among its label's: a request it sends names it apart from
    // another of the same label (two invocations of one function).
    schedule.enqueue({ label, start: () => start(this.hold(schedule.numbered(label))) });
    this.touch();
    return false;
  }

  hold(label: string): ClockActivity {
    const activity = new Activity(this, `a${this.nextActivity++}`, label);
    this.activities.set(activity.id, activity);
    this.changeHeld(1);
    return activity;
  }

  expectCalls(activity: ClockActivity, calls: SandboxCalls): void {
    if (!this.schedule || !(activity instanceof Activity)) return;
    activity.calls = calls;
  }

  arrived(activity: ClockActivity): void {
    if (activity instanceof Activity) activity.arrivals += 1;
  }

  answered(activity: ClockActivity): void {
    if (activity instanceof Activity) activity.answers += 1;
  }

  activityOf(id: string | undefined): ClockActivity | undefined {
    return id === undefined ? undefined : this.activities.get(id);
  }

  currentActivity(): ClockActivity | undefined {
    const activity = this.context.getStore();
    return activity && !activity.released ? activity : undefined;
  }

  /** The next due timer, in milliseconds from now (undefined without one). */
  nextDueIn(): number | undefined {
    const next = this.timers.find((timer) => !timer.cancelled);
    return next === undefined ? undefined : next.due - this.current;
  }

  /** Labels of the activities holding the clock now (what a stuck run waits for). */
  holding(): string[] {
    return [...this.activities.values()]
      .filter((activity) => activity.holding)
      .map((activity) => activity.label);
  }

  within<T>(activity: ClockActivity, work: () => T): T {
    if (!(activity instanceof Activity)) return work();
    return this.context.run(activity, work);
  }

  park(given?: ClockActivity): { resume(): void } {
    const activity = given instanceof Activity ? given : this.context.getStore();
    if (!activity || activity.released) return { resume: () => undefined };
    activity.park();
    let resumed = false;
    return {
      resume: () => {
        if (resumed) return;
        resumed = true;
        activity.resume();
      },
    };
  }

  /**
   * Fires no timer until thawed; work waiting is still admitted, in the seed's order. For a caller
   * that stops and starts the runtime on the same clock (a chaos campaign's restart): the new
   * runtime's start-up is admitted while the timers of those that outlive it wait.
   */
  freeze(): { thaw(): void } {
    this.frozen += 1;
    let thawed = false;
    return {
      thaw: () => {
        if (thawed) return;
        thawed = true;
        this.frozen -= 1;
        this.touch();
      },
    };
  }

  /** Stops jumping (the runtime stopped); armed timers never fire. */
  stop(): void {
    this.stopped = true;
  }

  /** @internal a released activity. */
  forget(id: string): void {
    this.activities.delete(id);
  }

  /** @internal activities report here. */
  changeHeld(delta: number): void {
    this.held += delta;
    this.touch();
  }

  private insert(timer: PendingTimer): void {
    let low = 0;
    let high = this.timers.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      const other = this.timers[middle] as PendingTimer;
      if (other.due < timer.due || (other.due === timer.due && other.sequence < timer.sequence)) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    this.timers.splice(low, 0, timer);
  }

  /** Something changed: once nothing is held, check again after the settle time. */
  private touch(): void {
    this.generation += 1;
    if (this.held > 0 || this.checkScheduled || this.stopped) return;
    this.checkScheduled = true;
    const seen = this.generation;
    wallTimeout(() => this.check(seen), this.settleMillis).unref();
  }

  private check(seen: number): void {
    this.checkScheduled = false;
    if (this.stopped || this.held > 0) return;
    if (seen !== this.generation) {
      this.touch();
      return;
    }
    if (this.schedule && this.sandboxCallsUnsettled()) {
      // Not quiet yet: a sandbox's request is on its way, or it is handling an answer. Waited for
      // a while of the machine's time at most (unsettledPatienceMillis); giving up is a line of
      // the trace, where a replay may part.
      // wall clock: a patience, not a time of the system's
      this.unsettledSince ??= Date.now();
      // wall clock: as above
      if (Date.now() - this.unsettledSince < this.unsettledPatienceMillis) {
        this.touch();
        return;
      }
      this.record(`gave up waiting on ${this.unsettledLabels().join(', ')}`);
      for (const activity of this.activities.values()) activity.calls = undefined;
    }
    this.unsettledSince = undefined;
    // A timer already due (the time moved on as work ran: elapse) fires before more work is
    // admitted: a steady stream of admissions must not starve it (an SDK's retry back-off would
    // wait until the function's own timeout on the machine's time).
    if (this.schedule && this.schedule.pending > 0 && (this.frozen > 0 || !this.dueNow())) {
      this.admitNext(this.schedule);
      return;
    }
    if (this.frozen > 0) return;
    this.advance();
  }

  private unsettledLabels(): string[] {
    return [...this.activities.values()]
      .filter((activity) => activity.callsUnsettled)
      .map((activity) => `${activity.label} (${activity.unsettledCounts})`);
  }

  private sandboxCallsUnsettled(): boolean {
    for (const activity of this.activities.values()) if (activity.callsUnsettled) return true;
    return false;
  }

  /** Starts the seed's pick among the work waiting to be admitted. */
  private admitNext(schedule: SeededSchedule): void {
    const picked = schedule.next();
    if (!picked) return;
    const { admission, ties } = picked;
    this.record(`${admission.label}${ties > 0 ? ` (tie of ${ties + 1})` : ''}`);
    try {
      admission.start();
    } catch {
      // Its owner reports its failure; the clock keeps going.
    }
    this.touch();
  }

  private record(what: string): void {
    this.trace?.(`${new Date(this.current).toISOString()} ${what}`);
  }

  /** Fires every timer due at the earliest due time, after moving the time there. */
  private advance(): void {
    while (this.timers.length > 0 && (this.timers[0] as PendingTimer).cancelled) this.timers.shift();
    const first = this.timers[0];
    if (!first) return;
    if (first.due > this.current) {
      this.current = first.due;
      this.sharedView[0] = this.current;
      this.jumps += 1;
    }
    const due = this.schedule ? this.takeOneDue(this.schedule) : this.takeAllDue();
    // The callbacks start work that holds the clock once it reaches a request or an invocation;
    // a hold across this turn covers what they start synchronously.
    const firing = this.hold('timers');
    for (const timer of due) {
      try {
        timer.callback();
      } catch {
        // A timer's failure is its owner's to report; the clock keeps going.
      }
    }
    setImmediate(() => firing.release());
  }

  /** Whether a timer is due at the current time (no jump needed). */
  private dueNow(): boolean {
    while (this.timers.length > 0 && (this.timers[0] as PendingTimer).cancelled) this.timers.shift();
    const first = this.timers[0];
    return first !== undefined && first.due <= this.current;
  }

  /** Every timer due now, in arming order. */
  private takeAllDue(): PendingTimer[] {
    const due: PendingTimer[] = [];
    while (this.timers.length > 0 && (this.timers[0] as PendingTimer).due <= this.current) {
      const timer = this.timers.shift() as PendingTimer;
      if (!timer.cancelled) due.push(timer);
    }
    return due;
  }

  /** Seeded: one of the timers due now, the seed's pick (the others fire at later turns). */
  private takeOneDue(schedule: SeededSchedule): PendingTimer[] {
    const due = this.timers.filter((timer) => !timer.cancelled && timer.due <= this.current);
    const chosen = due[schedule.choose(due.length)];
    if (!chosen) return [];
    this.timers.splice(this.timers.indexOf(chosen), 1);
    this.record(chosen.label);
    return [chosen];
  }
}
