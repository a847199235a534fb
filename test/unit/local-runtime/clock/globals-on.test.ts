/**
 * Node's timer functions and Date bound to a clock, as the Step Functions engine's copy reads them:
 * the time is the clock's, everything else is Date's, and timers fire (or not) on the clock.
 */
import { globalsOn, VirtualClock } from '../../../../lib/local-runtime/clock';

const START = Date.parse('2030-06-01T12:00:00Z');

describe('globalsOn', () => {
  it("gives a Date whose now and argument-less construction read the clock, and Date's otherwise", () => {
    const clock = new VirtualClock({ startMillis: START });
    const { Date: ClockDate } = globalsOn(clock);
    clock.elapse(1_500);
    expect(ClockDate.now()).toBe(START + 1_500);
    expect(new ClockDate().getTime()).toBe(START + 1_500);
    expect(new ClockDate('2001-02-03T04:05:06Z').toISOString()).toBe('2001-02-03T04:05:06.000Z');
    expect(new ClockDate(2001, 1, 3).getFullYear()).toBe(2001);
    expect(ClockDate.parse('1970-01-01T00:00:01Z')).toBe(1_000);
    expect(ClockDate.UTC(1970, 0, 1, 0, 0, 2)).toBe(2_000);
    expect(ClockDate()).toBe(new Date(START + 1_500).toString());
    expect(new ClockDate()).toBeInstanceOf(Date);
    expect(new Date(0)).toBeInstanceOf(ClockDate);
    clock.stop();
  });

  it('arms setTimeout on the clock, with its arguments, and clearTimeout disarms it', async () => {
    const clock = new VirtualClock({ startMillis: START });
    const { setTimeout: clockTimeout, clearTimeout: clockClear } = globalsOn(clock);
    const fired: Array<[string, number]> = [];
    clockTimeout((what) => fired.push([String(what), clock.now() - START]), 60_000, 'minute');
    const cleared = clockTimeout(() => fired.push(['cleared', clock.now() - START]), 30_000);
    clockClear(cleared);
    clockClear(undefined);
    await clock.sleep(120_000);
    expect(fired).toEqual([['minute', 60_000]]);
    clock.stop();
  });
});
