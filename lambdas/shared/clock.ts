/** Time source of the use cases, injected so tests can pin "now" (epoch milliseconds). */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Waiting, injected next to the clock so tests can advance a fake clock instead of waiting. */
export type Sleep = (millis: number) => Promise<void>;

/** Real waiting on a timer (what every handler injects). */
export const sleep: Sleep = (millis) => new Promise<void>((resolve) => setTimeout(resolve, millis));

export function isoAt(epochMillis: number): string {
  return new Date(epochMillis).toISOString();
}

/**
 * How much time a piece of work may still spend. The supervisor checks it before every page so a
 * run never outlives its schedule slot or its Lambda invocation.
 */
export interface TimeBudget {
  remainingMillis(): number;
}

/**
 * A budget ending at the tighter of a fixed deadline and a live remaining-time source (the Lambda
 * context's getRemainingTimeInMillis, less a safety margin so the invocation can still flush).
 */
export function timeBudget(options: {
  readonly clock: Clock;
  readonly deadlineEpochMillis: number;
  readonly liveRemainingMillis?: () => number;
  readonly safetyMarginMillis?: number;
}): TimeBudget {
  const margin = options.safetyMarginMillis ?? 0;
  return {
    remainingMillis: () => {
      const byDeadline = options.deadlineEpochMillis - options.clock.now();
      const live = options.liveRemainingMillis ? options.liveRemainingMillis() - margin : byDeadline;
      return Math.max(0, Math.min(byDeadline, live));
    },
  };
}
