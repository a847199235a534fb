/** The order chart's time axis (console/src/time-axis.ts): linear within activity, long idle gaps cut. */
import { timeAxisOf } from '../../../console/src/time-axis';

const s = (seconds: number) => 1_800_000_000_000 + seconds * 1000;

describe('the chart time axis', () => {
  it('is linear over the width when nothing idles for long', () => {
    const axis = timeAxisOf(
      [
        [s(0), s(10)],
        [s(15), s(20)],
      ],
      800,
    );
    expect(axis.breaks).toEqual([]);
    expect([axis.x(s(0)), axis.x(s(10)), axis.x(s(20))]).toEqual([0, 400, 800]);
    expect(axis.ticks.length).toBeGreaterThan(1);
  });

  it('cuts a stall of minutes between two attempts to a break, so the later one is not a sliver', () => {
    // Attempt 1 runs two minutes (its payment call times out), attempt 2 a second, 279 s later.
    const axis = timeAxisOf(
      [
        [s(0), s(120)],
        [s(399.5), s(400.5)],
      ],
      800,
    );
    expect(axis.breaks).toEqual([{ x: expect.any(Number), skippedMs: 279_500 }]);
    const [gap] = axis.breaks;
    expect(axis.x(s(120))).toBeLessThan(gap?.x ?? 0);
    expect(axis.x(s(399.5))).toBeGreaterThan(gap?.x ?? 0);
    expect(axis.x(s(400.5))).toBe(800);
    // The second stretch keeps a width of its own, and a label: a stretch too short for a round
    // tick is labelled at its start.
    expect(axis.x(s(400.5)) - axis.x(s(399.5))).toBeGreaterThanOrEqual(36);
    expect(axis.ticks.filter((tick) => tick.at >= s(399.5)).length).toBeGreaterThanOrEqual(1);
  });

  it('keeps a gap that is short against the whole span', () => {
    const axis = timeAxisOf(
      [
        [s(0), s(100)],
        [s(115), s(120)],
      ],
      800,
    );
    expect(axis.breaks).toEqual([]);
  });
});
