/**
 * The one retry engine of lambdas/: full-jitter exponential back-off ("Exponential Backoff And
 * Jitter", AWS Architecture Blog), bounded by a number of attempts, a deadline, a budget, or any mix
 * of them. Full jitter spreads the retries of many callers that failed together (one throttled
 * table, one downstream outage) instead of bringing them back in waves.
 *
 * Time, randomness and sleeping are injected, so every delay a caller makes can be pinned by its
 * tests; the local runtime's chaos campaign relies on those timings staying exactly as specified.
 */
import type { Clock, Sleep } from './clock';

/** Uniform in [0, 1), like Math.random. */
export type RandomSource = () => number;

/** How the delays grow: the ceiling doubles per retry from baseMillis up to capMillis. */
export interface BackoffCurve {
  /** Ceiling of the delay before the first retry. */
  readonly baseMillis: number;
  /** Largest ceiling, however many retries came before. */
  readonly capMillis: number;
  /**
   * Smallest delay drawn (default 0). A loop that waits for someone else's progress sets it above
   * zero so it always yields instead of asking again at once.
   */
  readonly minDelayMillis?: number;
}

/** When to stop. Each bound is optional; the first one reached ends the retries. */
export interface RetryBounds {
  /** Attempts in all, the first one included. */
  readonly maxAttempts?: number;
  /**
   * Epoch millis at which the work is worthless (nobody will take the answer): no retry is
   * scheduled to start at or after it.
   */
  readonly deadlineEpochMillis?: number;
  /** Time the retries may use: no retry is scheduled to start more than this after the first attempt began. */
  readonly budgetMillis?: number;
}

export type BackoffPolicy = BackoffCurve & RetryBounds;

export type GiveUpReason = 'attempts-exhausted' | 'deadline' | 'budget-spent';

export type RetryDecision =
  | { readonly kind: 'retry'; readonly delayMillis: number }
  | { readonly kind: 'give-up'; readonly reason: GiveUpReason };

/**
 * Full-jitter delay: random(0, min(cap, base * 2^retryIndex)), never below minDelayMillis.
 * @param retryIndex 0 for the delay before the first retry.
 */
export function fullJitterDelayMillis(retryIndex: number, curve: BackoffCurve, random: RandomSource): number {
  const ceiling = Math.min(curve.capMillis, curve.baseMillis * 2 ** retryIndex);
  return Math.max(curve.minDelayMillis ?? 0, Math.floor(random() * ceiling));
}

/** Where a retry loop stands after a failed attempt. */
export interface RetryProgress {
  /** Attempts made so far (at least 1: a decision follows a failure). */
  readonly attemptsMade: number;
  readonly now: number;
  /** When the first attempt began (epoch millis); what the budget is counted from. */
  readonly firstAttemptAt: number;
}

/**
 * After a failed attempt: wait a jittered delay and try again, or give up. The attempt bound is
 * checked before drawing the delay (so a spent loop consumes no randomness); the deadline and the
 * budget are checked against the instant the retry would start.
 */
export function nextRetry(
  policy: BackoffPolicy,
  progress: RetryProgress,
  random: RandomSource,
): RetryDecision {
  if (policy.maxAttempts !== undefined && progress.attemptsMade >= policy.maxAttempts) {
    return { kind: 'give-up', reason: 'attempts-exhausted' };
  }
  const delayMillis = fullJitterDelayMillis(progress.attemptsMade - 1, policy, random);
  const retryAt = progress.now + delayMillis;
  if (policy.deadlineEpochMillis !== undefined && retryAt >= policy.deadlineEpochMillis) {
    return { kind: 'give-up', reason: 'deadline' };
  }
  if (policy.budgetMillis !== undefined && retryAt - progress.firstAttemptAt > policy.budgetMillis) {
    return { kind: 'give-up', reason: 'budget-spent' };
  }
  return { kind: 'retry', delayMillis };
}

/** What one attempt produced: a final value (success, or a failure not worth retrying) or a retryable failure. */
export type AttemptResult<T, F> =
  | { readonly done: true; readonly value: T }
  | { readonly done: false; readonly failure: F };

export type RetryResult<T, F> =
  | { readonly kind: 'done'; readonly value: T; readonly attempts: number }
  | {
      readonly kind: 'gave-up';
      readonly reason: GiveUpReason;
      readonly attempts: number;
      /** The last retryable failure; undefined only when the deadline had passed before the first attempt. */
      readonly lastFailure: F | undefined;
    };

export interface RetryOptions<F> {
  readonly policy: BackoffPolicy;
  readonly clock: Clock;
  readonly sleep: Sleep;
  readonly random: RandomSource;
  /**
   * Whether the clock is also checked against the deadline right before every attempt, the first
   * included (default true): a slow attempt or a timer that fires late can carry the loop past the
   * deadline after the decision to retry. Off for a loop whose attempts start no side effect of
   * their own (they only ask whether someone else's has finished), where a late answer still helps.
   */
  readonly attemptsRespectDeadline?: boolean;
  /** Told before each wait, e.g. to log or count the retry. */
  readonly onRetry?: (retry: {
    readonly attempt: number;
    readonly delayMillis: number;
    readonly failure: F;
  }) => void;
}

/**
 * Runs `attempt` until it is done or a bound is reached, sleeping a full-jitter delay between
 * attempts. An attempt that throws ends the loop with that error: only what the attempt reports as a
 * retryable failure is retried.
 */
export async function retryWithBackoff<T, F>(
  attempt: (context: { readonly attempt: number; readonly now: number }) => Promise<AttemptResult<T, F>>,
  options: RetryOptions<F>,
): Promise<RetryResult<T, F>> {
  const { policy, clock } = options;
  const attemptDeadline = options.attemptsRespectDeadline === false ? undefined : policy.deadlineEpochMillis;
  const firstAttemptAt = clock.now();
  let lastFailure: F | undefined;
  for (let attempts = 0; ; ) {
    const now = clock.now();
    if (attemptDeadline !== undefined && now >= attemptDeadline) {
      return { kind: 'gave-up', reason: 'deadline', attempts, lastFailure };
    }
    attempts += 1;
    const result = await attempt({ attempt: attempts, now });
    if (result.done) {
      return { kind: 'done', value: result.value, attempts };
    }
    lastFailure = result.failure;
    const decision = nextRetry(
      policy,
      { attemptsMade: attempts, now: clock.now(), firstAttemptAt },
      options.random,
    );
    if (decision.kind === 'give-up') {
      return { kind: 'gave-up', reason: decision.reason, attempts, lastFailure };
    }
    options.onRetry?.({ attempt: attempts, delayMillis: decision.delayMillis, failure: result.failure });
    await options.sleep(decision.delayMillis);
  }
}
