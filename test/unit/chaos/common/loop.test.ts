/**
 * A campaign's loop on the run's clock: Retry-After is waited on it (the system's time), and the end
 * waits on it with a cap on the wall clock (a virtual clock that stood still must end the wait with
 * the verdicts, not hang the campaign).
 */
import {
  MACHINE_PACE,
  type Pace,
  type RunClock,
  submitUntilAnswered,
  waitOnTheRunsClock,
} from '../../../../lib/chaos/common/loop';
import type { SubmitOutcome } from '../../../../lib/harness/orders-driver';

/** A run's clock read from `now`, the harness on the machine's pace (an unseeded run). */
function runClock(now: () => number, pace: Pace = MACHINE_PACE): RunClock {
  return { now, sleep: async () => undefined, pace };
}

describe('waitOnTheRunsClock', () => {
  it('ends when the run clock reaches the deadline, without the cap', async () => {
    let clock = 0;
    const capped = await waitOnTheRunsClock(
      () => true,
      runClock(() => clock),
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
      runClock(() => 0),
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
      runClock(() => 0),
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
      runClock(() => 0),
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

  it("polls on the harness's pace (a seeded run's clock), which alone moves the run on", async () => {
    let runMillis = 0;
    const waits: number[] = [];
    const seededPace: Pace = {
      now: () => runMillis,
      sleep: async (millis) => {
        waits.push(millis);
        runMillis += millis;
      },
    };
    const capped = await waitOnTheRunsClock(
      () => true,
      runClock(() => runMillis, seededPace),
      () => 2_000,
      () => undefined,
      500,
      60_000,
    );
    expect(capped).toBe(false);
    expect(waits).toEqual([500, 500, 500, 500]);
  });

  it('ends on the wall-clock cap when the pace it polls on never moves (a seeded clock held)', async () => {
    const stoodStill: Pace = { now: () => 0, sleep: () => new Promise(() => undefined) };
    const started = Date.now();
    const capped = await waitOnTheRunsClock(
      () => true,
      runClock(() => 0, stoodStill),
      () => 20,
      () => undefined,
      5,
      50,
    );
    expect(capped).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });
});

describe('submitUntilAnswered', () => {
  it("waits each Retry-After on the run's clock and reads the acceptance time from it", async () => {
    let runMillis = 1_000;
    const waits: number[] = [];
    const answers: SubmitOutcome[] = [
      { kind: 'retry', reason: 'HTTP 429', status: 429, afterMillis: 60_000 },
      { kind: 'retry', reason: 'socket hang up', afterMillis: 500 },
      { kind: 'accepted', status: 202 },
    ];
    const retried: number[] = [];
    const result = await submitUntilAnswered(
      async () => answers.shift() as SubmitOutcome,
      () => false,
      60_000,
      {
        now: () => runMillis,
        sleep: async (millis) => {
          waits.push(millis);
          runMillis += millis;
        },
        pace: MACHINE_PACE,
      },
      (outcome) => retried.push(outcome.status ?? 0),
    );
    // A minute's Retry-After on a virtual clock passes as fast as the system lets it, not in a minute.
    expect(waits).toEqual([60_000, 500]);
    expect(retried).toEqual([429, 0]);
    expect(result).toEqual({ acceptedAt: 61_500 });
  });

  it('returns a refusal as it came', async () => {
    const result = await submitUntilAnswered(
      async () => ({ kind: 'refused', status: 400, body: 'orderId is missing' }),
      () => false,
      60_000,
      runClock(() => 0),
    );
    expect(result).toEqual({ refused: 'HTTP 400: orderId is missing' });
  });
});
