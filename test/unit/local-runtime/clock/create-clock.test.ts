/** A clock from its name: the wall clock by default, the virtual clock when named, others refused. */
import { createClock, VirtualClock, WallClock } from '../../../../lib/local-runtime/clock';

describe('createClock', () => {
  it('makes the wall clock by default and the virtual clock when named', () => {
    expect(createClock(undefined, 'LOCAL_CLOCK')).toBeInstanceOf(WallClock);
    expect(createClock('', 'LOCAL_CLOCK')).toBeInstanceOf(WallClock);
    expect(createClock('wall', '--clock')).toBeInstanceOf(WallClock);
    expect(createClock('virtual', '--clock')).toBeInstanceOf(VirtualClock);
  });

  it('refuses another name, naming where it came from and what it takes', () => {
    expect(() => createClock('Virtual', '--clock')).toThrow("--clock must be wall or virtual, got 'Virtual'");
  });
});

describe('WallClock', () => {
  it('reads the machine time, holds nothing and parks nothing', async () => {
    const clock = new WallClock();
    const before = Date.now();
    expect(clock.now()).toBeGreaterThanOrEqual(before);
    expect(clock.hold('anything').id).toBe('');
    expect(clock.activityOf('a1')).toBeUndefined();
    let fired = false;
    clock.setTimer(() => {
      fired = true;
    }, 1);
    await clock.sleep(20);
    expect(fired).toBe(true);
    const aborted = new AbortController();
    aborted.abort();
    await clock.sleep(60_000, aborted.signal);
  });
});
