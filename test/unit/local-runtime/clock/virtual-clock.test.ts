/**
 * The virtual clock on its own: time stands still while an activity is held, jumps to the next due
 * timer once nothing is held, fires timers due together in the order they were armed, lets a
 * parked wait move it, and shows the sandboxes the same time through shared memory. Waits here are
 * for the clock's own settling (a few wall milliseconds), never for the time the timers name.
 */
import { VirtualClock } from '../../../../lib/local-runtime/clock';

const START = Date.UTC(2026, 0, 1);

/** Resolves once `predicate` holds (polled on the wall clock), or fails naming `what`. */
async function until(predicate: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt += 1) {
    if (predicate()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never: ${what}`);
}

describe('VirtualClock', () => {
  it('jumps to each due timer in turn, firing timers due together in the order they were armed', async () => {
    const clock = new VirtualClock({ startMillis: START });
    const fired: Array<[string, number]> = [];
    clock.setTimer(() => fired.push(['hour', clock.now() - START]), 3_600_000);
    clock.setTimer(() => fired.push(['second', clock.now() - START]), 1_000);
    clock.setTimer(() => fired.push(['second again', clock.now() - START]), 1_000);
    clock.setTimer(() => fired.push(['day', clock.now() - START]), 86_400_000);
    await until(() => fired.length === 4, 'four timers fired');
    expect(fired).toEqual([
      ['second', 1_000],
      ['second again', 1_000],
      ['hour', 3_600_000],
      ['day', 86_400_000],
    ]);
    expect(clock.now()).toBe(START + 86_400_000);
    expect(clock.advances).toBe(3);
  });

  it('stands still while an activity is held, and moves once it is released', async () => {
    const clock = new VirtualClock({ startMillis: START });
    let fired = false;
    const work = clock.hold('a request');
    clock.setTimer(() => {
      fired = true;
    }, 300_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fired).toBe(false);
    expect(clock.now()).toBe(START);
    expect(clock.holding()).toEqual(['a request']);
    work.release();
    work.release();
    await until(() => fired, 'the timer fired after the release');
    expect(clock.now()).toBe(START + 300_000);
    // The firing turn holds the clock until the next turn of the event loop (a poll of this test
    // can run in the same timers phase, before it ends): then nothing is held.
    await until(() => clock.holding().length === 0, 'the firing turn ended');
    expect(clock.holding()).toEqual([]);
  });

  it('lets a wait inside an activity (a long poll) move the clock, and holds it again once woken', async () => {
    const clock = new VirtualClock({ startMillis: START });
    const request = clock.hold('long poll');
    const woke = clock.within(request, () => clock.sleep(20_000).then(() => clock.holding()));
    expect(await woke).toContain('long poll');
    expect(clock.now()).toBe(START + 20_000);
    request.release();
    expect(clock.holding()).not.toContain('long poll');
  });

  it('wakes a parked waiter when its waker resumes it, before time reaches its deadline', async () => {
    const clock = new VirtualClock({ startMillis: START });
    const request = clock.hold('receive');
    let wake: (() => void) | undefined;
    const woken = clock.within(
      request,
      () =>
        new Promise<number>((resolve) => {
          const parked = clock.park();
          const timer = clock.setTimer(() => wake?.(), 20_000);
          wake = () => {
            timer.cancel();
            parked.resume();
            resolve(clock.now());
          };
        }),
    );
    const sender = clock.hold('send');
    clock.setTimer(() => wake?.(), 5_000);
    sender.release();
    expect(await woken).toBe(START + 5_000);
    expect(clock.holding()).toContain('receive');
    request.release();
    expect(clock.holding()).not.toContain('receive');
  });

  it('never fires a cancelled timer, and finds an activity by its id until it is released', async () => {
    const clock = new VirtualClock({ startMillis: START });
    let cancelledFired = false;
    clock
      .setTimer(() => {
        cancelledFired = true;
      }, 1_000)
      .cancel();
    let laterFired = false;
    clock.setTimer(() => {
      laterFired = true;
    }, 2_000);
    await until(() => laterFired, 'the later timer fired');
    expect(cancelledFired).toBe(false);
    expect(clock.now()).toBe(START + 2_000);
    const activity = clock.hold('sdk call');
    expect(clock.activityOf(activity.id)).toBe(activity);
    activity.release();
    expect(clock.activityOf(activity.id)).toBeUndefined();
    expect(clock.activityOf(undefined)).toBeUndefined();
  });

  it('names the activity the running work is part of, and none outside or once released', async () => {
    const clock = new VirtualClock({ startMillis: START });
    const activity = clock.hold('request POST /');
    expect(clock.currentActivity()).toBeUndefined();
    const seen = await clock.within(activity, async () => {
      await Promise.resolve();
      return clock.currentActivity();
    });
    expect(seen).toBe(activity);
    activity.release();
    expect(clock.within(activity, () => clock.currentActivity())).toBeUndefined();
    clock.stop();
  });

  it('shows the sandboxes its time through shared memory', async () => {
    const clock = new VirtualClock({ startMillis: START });
    const shared = new Float64Array(clock.sharedTime);
    expect(shared[0]).toBe(START);
    let seen = 0;
    clock.setTimer(() => {
      seen = shared[0] ?? 0;
    }, 90_000);
    await until(() => seen !== 0, 'the timer fired');
    expect(seen).toBe(START + 90_000);
  });
});

describe('VirtualClock.elapse', () => {
  it('moves the time on at once, and a timer it passes fires once the clock is quiet', async () => {
    const clock = new VirtualClock({ startMillis: START });
    const work = clock.hold('invocations');
    let firedAt = 0;
    clock.setTimer(() => {
      firedAt = clock.now();
    }, 1);
    clock.elapse(1);
    clock.elapse(1);
    expect(clock.now()).toBe(START + 2);
    expect(new Float64Array(clock.sharedTime)[0]).toBe(START + 2);
    work.release();
    await until(() => firedAt !== 0, 'the passed timer fired');
    expect(firedAt).toBe(START + 2);
  });
});

describe('VirtualClock.freeze', () => {
  it('fires no timer while frozen, admits the work waiting meanwhile, and fires once thawed', async () => {
    // A campaign's runtime restart: the new runtime's start-up is admitted in the seed's order while
    // the harness's timers wait (they fired as many times as the start-up took of the machine's time).
    const clock = new VirtualClock({ seed: 4, startMillis: START });
    let fired = false;
    clock.setTimer(() => {
      fired = true;
    }, 1_000);
    const frozen = clock.freeze();
    const started: string[] = [];
    for (const label of ['start-up call B', 'start-up call A']) {
      clock.admit(label, (activity) => {
        started.push(label);
        activity.release();
      });
    }
    await until(() => started.length === 2, 'both admitted while frozen');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fired).toBe(false);
    expect(clock.now()).toBe(START);
    frozen.thaw();
    frozen.thaw();
    await until(() => fired, 'the timer fired once thawed');
    expect(clock.now()).toBe(START + 1_000);
    clock.stop();
  });
});
