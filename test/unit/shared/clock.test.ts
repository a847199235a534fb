import { type Clock, isoAt, timeBudget } from '../../../lambdas/shared/clock';

function manualClock(start: number): Clock & { advance(ms: number): void } {
  let now = start;
  return { now: () => now, advance: (ms) => (now += ms) };
}

describe('timeBudget', () => {
  it('counts down to its deadline and never goes negative', () => {
    const clock = manualClock(1000);
    const budget = timeBudget({ clock, deadlineEpochMillis: 1500 });
    expect(budget.remainingMillis()).toBe(500);
    clock.advance(400);
    expect(budget.remainingMillis()).toBe(100);
    clock.advance(1000);
    expect(budget.remainingMillis()).toBe(0);
  });

  it('is bounded by the live remaining time less the safety margin when that is tighter', () => {
    const clock = manualClock(0);
    let live = 10_000;
    const budget = timeBudget({
      clock,
      deadlineEpochMillis: 5_000,
      liveRemainingMillis: () => live,
      safetyMarginMillis: 1_000,
    });
    expect(budget.remainingMillis()).toBe(5_000);
    live = 3_000;
    expect(budget.remainingMillis()).toBe(2_000);
    live = 500;
    expect(budget.remainingMillis()).toBe(0);
  });
});

describe('isoAt', () => {
  it('formats epoch millis as ISO-8601 UTC', () => {
    expect(isoAt(0)).toBe('1970-01-01T00:00:00.000Z');
  });
});
