/**
 * A seeded virtual clock (issue 22, item 4): work that starts on its own waits to be admitted, one
 * at a time once nothing is in progress, in an order that depends on the seed and on the labels
 * waiting, not on the order they arrived in; timers due together fire one at a time in the seed's
 * order; a request still on its way from a sandbox is waited for; every admission and timer is a
 * line of the trace. Waits here are for the clock's settling (wall milliseconds).
 */
import { type ClockActivity, SEEDED_START_MILLIS, VirtualClock } from '../../../../lib/local-runtime/clock';
import { SeededSchedule } from '../../../../lib/local-runtime/clock/seeded-schedule';

async function until(predicate: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt += 1) {
    if (predicate()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`never: ${what}`);
}

const LABELS = [
  'invoke B',
  'sdk ReceiveMessage /q1',
  'invoke A',
  'request POST /x',
  'sdk GetRecords s',
  'invoke C',
];

/** Admits `labels` (in that arrival order) on a clock seeded `seed`; resolves with the admission order. */
async function admissionOrder(seed: number, labels: readonly string[]): Promise<string[]> {
  const clock = new VirtualClock({ seed });
  const admitted: string[] = [];
  for (const label of labels) {
    clock.admit(label, (activity) => {
      admitted.push(label);
      // Each holds a little while: the next is admitted only once it is released.
      setTimeout(() => activity.release(), 2);
    });
  }
  await until(() => admitted.length === labels.length, 'all admitted');
  clock.stop();
  return admitted;
}

describe('SeededSchedule', () => {
  it('picks among the waiting sorted by label, so the arrival order does not matter', () => {
    const pick = (arrivals: readonly string[]) => {
      const schedule = new SeededSchedule(3);
      for (const label of arrivals) schedule.enqueue({ label, start: () => undefined });
      const order: string[] = [];
      for (let next = schedule.next(); next; next = schedule.next()) order.push(next.admission.label);
      return order;
    };
    expect(pick(LABELS)).toEqual(pick([...LABELS].reverse()));
    expect([...pick(LABELS)].sort()).toEqual([...LABELS].sort());
  });

  it('counts the others waiting under the same label (a tie), and numbers each label in turn', () => {
    const schedule = new SeededSchedule(1);
    schedule.enqueue({ label: 'same', start: () => undefined });
    schedule.enqueue({ label: 'same', start: () => undefined });
    expect(schedule.next()?.ties).toBe(1);
    expect(schedule.next()?.ties).toBe(0);
    expect([schedule.numbered('x'), schedule.numbered('x'), schedule.numbered('y')]).toEqual([
      'x #1',
      'x #2',
      'y #1',
    ]);
  });
});

describe('VirtualClock with a seed', () => {
  it('admits the same work in the same order for a seed, whatever order it arrives in', async () => {
    const first = await admissionOrder(11, LABELS);
    expect(await admissionOrder(11, [...LABELS].reverse())).toEqual(first);
    expect(await admissionOrder(11, [...LABELS.slice(3), ...LABELS.slice(0, 3)])).toEqual(first);
    // Another seed, another order (for at least one of a few seeds).
    const others = await Promise.all([12, 13, 14, 15].map((seed) => admissionOrder(seed, LABELS)));
    expect(others.some((order) => order.join() !== first.join())).toBe(true);
  });

  it('admits one at a time, each once nothing else is in progress', async () => {
    const clock = new VirtualClock({ seed: 5 });
    let running = 0;
    let most = 0;
    let done = 0;
    for (const label of LABELS) {
      const started = clock.admit(label, (activity) => {
        running += 1;
        most = Math.max(most, running);
        setTimeout(() => {
          running -= 1;
          done += 1;
          activity.release();
        }, 5);
      });
      expect(started).toBe(false);
    }
    await until(() => done === LABELS.length, 'all done');
    expect(most).toBe(1);
    clock.stop();
  });

  it('admits at once without a seed, as before', () => {
    const clock = new VirtualClock();
    let activity: ClockActivity | undefined;
    expect(clock.admit('invoke A', (held) => (activity = held))).toBe(true);
    expect(clock.holding()).toEqual(['invoke A']);
    activity?.release();
    clock.stop();
  });

  it('fires timers due together one at a time, in the same order for a seed, each a line of the trace', async () => {
    const run = async (seed: number) => {
      const lines: string[] = [];
      const clock = new VirtualClock({ seed, trace: (line) => lines.push(line) });
      const fired: string[] = [];
      for (const name of ['a', 'b', 'c', 'd', 'e'])
        clock.setTimer(() => fired.push(name), 60_000, `timer ${name}`);
      await until(() => fired.length === 5, 'five timers');
      clock.stop();
      return { fired, lines };
    };
    const first = await run(21);
    expect((await run(21)).fired).toEqual(first.fired);
    expect([...first.fired].sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    // Starts at a fixed instant, ahead of any machine's time.
    expect(first.lines).toEqual(first.fired.map((name) => `2050-01-01T00:01:00.000Z timer ${name}`));
    const orders = await Promise.all([22, 23, 24, 25].map(async (seed) => (await run(seed)).fired.join()));
    expect(orders.some((order) => order !== first.fired.join())).toBe(true);
  });

  it('starts at the seeded instant, and numbers what it admits in the trace and the held label', async () => {
    const lines: string[] = [];
    const clock = new VirtualClock({ seed: 1, trace: (line) => lines.push(line) });
    expect(clock.now()).toBe(SEEDED_START_MILLIS);
    expect(clock.seed).toBe(1);
    const labels: string[] = [];
    for (let index = 0; index < 2; index += 1) {
      clock.admit('invoke A', (activity) => {
        labels.push(activity.label);
        activity.release();
      });
    }
    await until(() => labels.length === 2, 'both admitted');
    expect(labels).toEqual(['invoke A #1', 'invoke A #2']);
    expect(lines).toEqual([
      '2050-01-01T00:00:00.000Z invoke A (tie of 2)',
      '2050-01-01T00:00:00.000Z invoke A',
    ]);
    clock.stop();
  });

  it('waits for a request still on its way from a sandbox before it picks', async () => {
    const clock = new VirtualClock({ seed: 2 });
    const invocation = await new Promise<ClockActivity>((resolve) => clock.admit('invoke F', resolve));
    const sent = 2;
    clock.expectCalls(invocation, { sent: () => sent, handled: () => 0 });
    // The first of two requests sent together arrives: it parks the invocation and waits its turn.
    const admitted: string[] = [];
    const request = (label: string) => {
      clock.arrived(invocation);
      clock.admit(label, (activity) => {
        admitted.push(label);
        activity.release();
      });
    };
    const parked = clock.park(invocation);
    request('request call 2');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(admitted).toEqual([]);
    // The second arrives: both are picked, in the seed's order over both.
    request('request call 1');
    await until(() => admitted.length === 2, 'both requests admitted');
    expect([...admitted].sort()).toEqual(['request call 1', 'request call 2']);
    parked.resume();
    invocation.release();
    clock.stop();
  });
});

describe('VirtualClock with a seed, a sandbox answered', () => {
  it('waits until the sandbox has handled an answer before it picks (its next request may follow)', async () => {
    const clock = new VirtualClock({ seed: 3 });
    const invocation = await new Promise<ClockActivity>((resolve) => clock.admit('invoke G', resolve));
    let handled = 0;
    clock.expectCalls(invocation, { sent: () => 2, handled: () => handled });
    const admitted: string[] = [];
    const admit = (label: string) =>
      clock.admit(label, (activity) => {
        admitted.push(label);
        activity.release();
      });
    // Both requests arrived; the first is answered while the second still waits its turn.
    clock.arrived(invocation);
    clock.arrived(invocation);
    const parked = clock.park(invocation);
    clock.answered(invocation);
    admit('request call 2');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(admitted).toEqual([]);
    // Handled: the sandbox ran on and sent nothing more; the waiting request is picked.
    handled = 1;
    await until(() => admitted.length === 1, 'the waiting request admitted');
    parked.resume();
    invocation.release();
    clock.stop();
  });
});

describe('VirtualClock with a seed, a sandbox arming a timer', () => {
  it('waits until the timers a sandbox armed are on the clock before it picks', async () => {
    const clock = new VirtualClock({ seed: 4 });
    const invocation = await new Promise<ClockActivity>((resolve) => clock.admit('invoke T', resolve));
    // The request arrived and the invocation is parked on it; the socket timer the SDK armed as the
    // request went is still on its way to the host.
    let unhandled = 1;
    clock.expectCalls(invocation, {
      sent: () => 1,
      handled: () => 0,
      timerMessagesUnhandled: () => unhandled,
    });
    clock.arrived(invocation);
    const parked = clock.park(invocation);
    const admitted: string[] = [];
    clock.admit('request next', (activity) => {
      admitted.push(activity.label);
      activity.release();
    });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(admitted).toEqual([]);
    unhandled = 0;
    await until(() => admitted.length === 1, 'the waiting request admitted');
    parked.resume();
    invocation.release();
    clock.stop();
  });
});

describe('VirtualClock with a seed, a sandbox sending', () => {
  /** An invocation parked on its first request, and whether work waiting is admitted meanwhile. */
  const admittedWhile = async (counts: { sent: number; goneOn: number; handled: number }) => {
    const clock = new VirtualClock({ seed: 6 });
    const invocation = await new Promise<ClockActivity>((resolve) => clock.admit('invoke S', resolve));
    clock.expectCalls(invocation, {
      sent: () => counts.sent,
      goneOn: () => counts.goneOn,
      handled: () => counts.handled,
    });
    clock.arrived(invocation);
    const parked = clock.park(invocation);
    let admitted = false;
    clock.admit('request next', (activity) => {
      admitted = true;
      activity.release();
    });
    await new Promise((resolve) => setTimeout(resolve, 60));
    const before = admitted;
    parked.resume();
    invocation.release();
    clock.stop();
    return before;
  };

  it('waits until the code has run on from a request it sent (the next may be on its way)', async () => {
    expect(await admittedWhile({ sent: 1, goneOn: 0, handled: 0 })).toBe(false);
    expect(await admittedWhile({ sent: 1, goneOn: 1, handled: 0 })).toBe(true);
  });

  it('does not wait for a request that ended without arriving (a connection reset)', async () => {
    // The first arrived and is being served; the second failed before it reached its server.
    expect(await admittedWhile({ sent: 2, goneOn: 2, handled: 1 })).toBe(true);
    // Still open in the sandbox: on its way.
    expect(await admittedWhile({ sent: 2, goneOn: 2, handled: 0 })).toBe(false);
  });
});

describe('VirtualClock with a seed, a timer the time has reached', () => {
  it('fires it before it admits more work: a stream of work does not starve it', async () => {
    const lines: string[] = [];
    const clock = new VirtualClock({ seed: 5, trace: (line) => lines.push(line) });
    clock.setTimer(() => undefined, 5, 'timer back-off');
    // Each piece of work moves the time on by a millisecond (an invocation does) and queues the next.
    let admittedCount = 0;
    const next = (): void => {
      clock.admit(`work ${admittedCount}`, (activity) => {
        admittedCount += 1;
        clock.elapse(1);
        if (admittedCount < 20) next();
        activity.release();
      });
    };
    next();
    await until(() => admittedCount === 20 && lines.some((line) => line.endsWith('timer back-off')), 'all');
    clock.stop();
    // Due after the fifth piece of work: it fires before the sixth is admitted, not after the last.
    expect(lines.findIndex((line) => line.endsWith('timer back-off'))).toBe(5);
    expect(lines[5]).toBe('2050-01-01T00:00:00.005Z timer back-off');
  });
});

describe('VirtualClock with a seed, a sandbox that never handles its answer', () => {
  it('picks anyway after its patience, and says so in the trace', async () => {
    const lines: string[] = [];
    const clock = new VirtualClock({
      seed: 3,
      trace: (line) => lines.push(line),
      unsettledPatienceMillis: 50,
    });
    const invocation = await new Promise<ClockActivity>((resolve) => clock.admit('invoke H', resolve));
    // An answer came back and is never handled (the sandbox died before it ran on).
    clock.expectCalls(invocation, { sent: () => 1, handled: () => 0 });
    clock.arrived(invocation);
    clock.answered(invocation);
    clock.park(invocation);
    let admitted = false;
    clock.admit('request next', (activity) => {
      admitted = true;
      activity.release();
    });
    await until(() => admitted, 'the waiting request admitted after the patience');
    clock.stop();
    expect(lines.slice(1)).toEqual([
      '2050-01-01T00:00:00.000Z gave up waiting on invoke H #1 (sent 1 gone on 1 arrived 1 answered 1 handled 0 timer messages 0)',
      '2050-01-01T00:00:00.000Z request next',
    ]);
  });
});
