/**
 * A client outside the runtime as one activity of a seeded clock (asActivity): its work waits its
 * turn, holds the clock while it runs, and names itself in the headers it is given; on any other
 * clock it runs at once with no headers.
 */
import {
  ACTIVITY_HEADER,
  asActivity,
  type ClockActivity,
  VirtualClock,
  WallClock,
} from '../../../../lib/local-runtime/clock';

describe('asActivity', () => {
  it('on a seeded clock, waits its turn, holds the clock while it works and names itself', async () => {
    const clock = new VirtualClock({ seed: 2 });
    // Another activity holds the clock: the client's work is not admitted meanwhile.
    const busy = await new Promise<ClockActivity>((resolve) => clock.admit('invoke X', resolve));
    let seen: Readonly<Record<string, string>> | undefined;
    let holdingDuring: string[] = [];
    const done = asActivity(clock, 'client submit o-1', async (headers) => {
      seen = headers;
      holdingDuring = clock.holding();
      return 'answered';
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(seen).toBeUndefined();
    busy.release();
    await expect(done).resolves.toBe('answered');
    expect(holdingDuring).toEqual(['client submit o-1 #1']);
    expect(seen?.[ACTIVITY_HEADER]).toMatch(/^a\d+$/);
    // Released once the work ended.
    expect(clock.holding()).toEqual([]);
    clock.stop();
  });

  it('runs at once with no headers on an unseeded clock or none', async () => {
    const unseeded = new VirtualClock();
    await expect(asActivity(unseeded, 'client submit', async (headers) => headers)).resolves.toEqual({});
    expect(unseeded.holding()).toEqual([]);
    unseeded.stop();
    await expect(asActivity(new WallClock(), 'client submit', async (headers) => headers)).resolves.toEqual(
      {},
    );
    await expect(asActivity(undefined, 'client submit', async (headers) => headers)).resolves.toEqual({});
  });
});
