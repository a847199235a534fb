import {
  type BackoffPolicy,
  fullJitterDelayMillis,
  nextRetry,
  type RetryOptions,
  retryWithBackoff,
} from '../../../lambdas/shared/backoff';
import { type FakeTime, fakeTime } from './fake-time';

const curve = { baseMillis: 100, capMillis: 1_000 };

describe('fullJitterDelayMillis', () => {
  it('draws uniformly below min(cap, base * 2^n)', () => {
    expect(fullJitterDelayMillis(0, curve, () => 0)).toBe(0);
    expect(fullJitterDelayMillis(0, curve, () => 0.5)).toBe(50);
    expect(fullJitterDelayMillis(2, curve, () => 0.5)).toBe(200);
    expect(fullJitterDelayMillis(2, curve, () => 0.999_999)).toBe(399);
  });

  it('never exceeds the cap however many retries came before', () => {
    expect(fullJitterDelayMillis(30, curve, () => 0.999_999)).toBe(999);
  });

  it('never goes below the minimum delay', () => {
    expect(fullJitterDelayMillis(0, { ...curve, minDelayMillis: 1 }, () => 0)).toBe(1);
    expect(fullJitterDelayMillis(0, { ...curve, minDelayMillis: 1 }, () => 0.5)).toBe(50);
  });
});

describe('nextRetry bounded by attempts and a deadline', () => {
  const policy: BackoffPolicy = { ...curve, maxAttempts: 3, deadlineEpochMillis: 10_000 };
  const at = (attemptsMade: number, now = 0) => ({ attemptsMade, now, firstAttemptAt: 0 });

  it('retries after a jittered delay while attempts and time remain', () => {
    expect(nextRetry(policy, at(1), () => 0.5)).toEqual({ kind: 'retry', delayMillis: 50 });
    expect(nextRetry(policy, at(2), () => 0.5)).toEqual({ kind: 'retry', delayMillis: 100 });
  });

  it('gives up once the attempts are spent, without drawing a delay', () => {
    const random = jest.fn(() => 0.5);
    expect(nextRetry(policy, at(3), random)).toEqual({ kind: 'give-up', reason: 'attempts-exhausted' });
    expect(random).not.toHaveBeenCalled();
  });

  it('gives up rather than start a retry at or after the deadline', () => {
    expect(nextRetry(policy, at(1, 9_950), () => 0.5)).toEqual({ kind: 'give-up', reason: 'deadline' });
    expect(nextRetry(policy, at(1, 9_949), () => 0.5)).toEqual({ kind: 'retry', delayMillis: 50 });
  });

  it('retries without end when no bound is set', () => {
    expect(nextRetry(curve, { attemptsMade: 1_000, now: 0, firstAttemptAt: 0 }, () => 0.5)).toEqual({
      kind: 'retry',
      delayMillis: 500,
    });
  });
});

describe('nextRetry bounded by attempts and a budget', () => {
  const policy: BackoffPolicy = { maxAttempts: 3, baseMillis: 200, capMillis: 300, budgetMillis: 2000 };
  const elapsed = (attemptsMade: number, elapsedMillis: number) => ({
    attemptsMade,
    now: 5_000 + elapsedMillis,
    firstAttemptAt: 5_000,
  });

  it('retries after a full-jitter delay that doubles per attempt up to the cap', () => {
    expect(nextRetry(policy, elapsed(1, 0), () => 0.999)).toEqual({ kind: 'retry', delayMillis: 199 });
    expect(nextRetry(policy, elapsed(2, 0), () => 0.999)).toEqual({ kind: 'retry', delayMillis: 299 });
    expect(nextRetry({ ...policy, maxAttempts: 10 }, elapsed(5, 0), () => 0.5)).toEqual({
      kind: 'retry',
      delayMillis: 150,
    });
    expect(nextRetry(policy, elapsed(1, 0), () => 0)).toEqual({ kind: 'retry', delayMillis: 0 });
  });

  it('gives up once the attempts are spent', () => {
    expect(nextRetry(policy, elapsed(3, 0), () => 0)).toEqual({
      kind: 'give-up',
      reason: 'attempts-exhausted',
    });
  });

  it('may use the budget in full, but gives up rather than start a retry after it', () => {
    expect(nextRetry(policy, elapsed(1, 1900), () => 0.5)).toEqual({ kind: 'retry', delayMillis: 100 });
    expect(nextRetry(policy, elapsed(1, 1901), () => 0.5)).toEqual({
      kind: 'give-up',
      reason: 'budget-spent',
    });
  });
});

describe('retryWithBackoff', () => {
  function options(
    time: FakeTime,
    policy: BackoffPolicy,
    extra: Partial<RetryOptions<string>> = {},
  ): RetryOptions<string> {
    return { policy, clock: time.clock, sleep: time.sleep, random: () => 0.5, ...extra };
  }

  /** An attempt that fails with the scripted failures, then succeeds with 'ok'. */
  function failing(failures: string[], time?: FakeTime, attemptMillis = 0) {
    const started: { attempt: number; now: number }[] = [];
    const attempt = async (context: { attempt: number; now: number }) => {
      started.push(context);
      time?.advance(attemptMillis);
      const failure = failures.shift();
      return failure === undefined ? { done: true as const, value: 'ok' } : { done: false as const, failure };
    };
    return { started, attempt };
  }

  it('returns the first value without sleeping', async () => {
    const time = fakeTime(0);
    const { attempt } = failing([]);
    await expect(retryWithBackoff(attempt, options(time, curve))).resolves.toEqual({
      kind: 'done',
      value: 'ok',
      attempts: 1,
    });
    expect(time.sleeps).toEqual([]);
  });

  it('sleeps the growing jittered delays between failed attempts and reports each retry', async () => {
    const time = fakeTime(1_000);
    const { attempt, started } = failing(['a', 'b'], time);
    const retries: unknown[] = [];
    const result = await retryWithBackoff(
      attempt,
      options(time, curve, { onRetry: (retry) => retries.push(retry) }),
    );
    expect(result).toEqual({ kind: 'done', value: 'ok', attempts: 3 });
    expect(time.sleeps).toEqual([50, 100]);
    expect(retries).toEqual([
      { attempt: 1, delayMillis: 50, failure: 'a' },
      { attempt: 2, delayMillis: 100, failure: 'b' },
    ]);
    expect(started).toEqual([
      { attempt: 1, now: 1_000 },
      { attempt: 2, now: 1_050 },
      { attempt: 3, now: 1_150 },
    ]);
  });

  it('gives up at the attempt bound, reporting the last failure', async () => {
    const time = fakeTime(0);
    const { attempt } = failing(['a', 'b', 'c', 'd'], time);
    await expect(retryWithBackoff(attempt, options(time, { ...curve, maxAttempts: 3 }))).resolves.toEqual({
      kind: 'gave-up',
      reason: 'attempts-exhausted',
      attempts: 3,
      lastFailure: 'c',
    });
  });

  it('counts the budget from the first attempt, slow attempts included', async () => {
    const time = fakeTime(0);
    const { attempt } = failing(['a', 'b', 'c'], time, 1_500);
    const policy = { ...curve, maxAttempts: 10, budgetMillis: 2_000 };
    await expect(retryWithBackoff(attempt, options(time, policy))).resolves.toEqual({
      kind: 'gave-up',
      reason: 'budget-spent',
      attempts: 2,
      lastFailure: 'b',
    });
    expect(time.sleeps).toEqual([50]);
  });

  it('starts no attempt at or after the deadline, the first one included', async () => {
    const time = fakeTime(10_000);
    const { attempt, started } = failing([]);
    await expect(
      retryWithBackoff(attempt, options(time, { ...curve, deadlineEpochMillis: 10_000 })),
    ).resolves.toEqual({ kind: 'gave-up', reason: 'deadline', attempts: 0, lastFailure: undefined });
    expect(started).toEqual([]);
  });

  it('checks the deadline again after a sleep that overran it', async () => {
    const time = fakeTime(0);
    const { attempt, started } = failing(['a'], time);
    const lateTimer = async (millis: number) => {
      await time.sleep(millis);
      time.advance(10_000);
    };
    await expect(
      retryWithBackoff(
        attempt,
        options(time, { ...curve, deadlineEpochMillis: 5_000 }, { sleep: lateTimer }),
      ),
    ).resolves.toEqual({ kind: 'gave-up', reason: 'deadline', attempts: 1, lastFailure: 'a' });
    expect(started).toHaveLength(1);
  });

  it('lets attempts run past the deadline when told they start no side effect, but never sleeps into it', async () => {
    const time = fakeTime(10_000);
    const { attempt, started } = failing(['held', 'held'], time);
    const policy = { ...curve, deadlineEpochMillis: 10_000 };
    await expect(
      retryWithBackoff(attempt, options(time, policy, { attemptsRespectDeadline: false })),
    ).resolves.toEqual({ kind: 'gave-up', reason: 'deadline', attempts: 1, lastFailure: 'held' });
    expect(started).toEqual([{ attempt: 1, now: 10_000 }]);
    expect(time.sleeps).toEqual([]);
  });

  it('ends with the error of an attempt that throws, without retrying it', async () => {
    const time = fakeTime(0);
    let calls = 0;
    const attempt = async () => {
      calls += 1;
      throw new Error('not retryable');
    };
    await expect(retryWithBackoff(attempt, options(time, curve))).rejects.toThrow('not retryable');
    expect(calls).toBe(1);
  });
});
