/**
 * The end of a campaign waits on the run's clock, capped on the wall clock: a virtual clock that
 * stood still (something holding it) must end the wait with the verdicts, not hang the campaign.
 */
import { waitOnTheRunsClock } from '../../../../lib/chaos/common/loop';

describe('waitOnTheRunsClock', () => {
  it('ends when the run clock reaches the deadline, without the cap', async () => {
    let clock = 0;
    const capped = await waitOnTheRunsClock(
      () => true,
      () => clock,
      () => 1_000,
      () => {
        clock += 400;
      },
      1,
      60_000,
    );
    expect(capped).toBe(false);
    expect(clock).toBe(1_200);
  });

  it('ends at once when nothing is left to wait for', async () => {
    let polls = 0;
    const capped = await waitOnTheRunsClock(
      () => false,
      () => 0,
      () => 1_000,
      () => {
        polls += 1;
      },
    );
    expect(capped).toBe(false);
    expect(polls).toBe(0);
  });

  it('ends on the wall-clock cap when the run clock stands still', async () => {
    const started = Date.now();
    const capped = await waitOnTheRunsClock(
      () => true,
      () => 0,
      () => 20,
      () => undefined,
      5,
      50,
    );
    expect(capped).toBe(true);
    // Twice the 20 ms the clock still had to run, plus the 50 ms of patience.
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });

  it('moves the cap when the deadline moves later (an operator reopened an order)', async () => {
    const started = Date.now();
    let deadline = 20;
    let polls = 0;
    const capped = await waitOnTheRunsClock(
      () => true,
      () => 0,
      () => deadline,
      () => {
        polls += 1;
        if (polls === 3) deadline = 100;
      },
      5,
      50,
    );
    expect(capped).toBe(true);
    // The cap moved to twice the new 100 ms plus 50 ms, counted from the poll that saw it.
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });
});
