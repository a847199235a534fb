/**
 * API Gateway's throttle, the token bucket AWS describes
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-request-throttling.html):
 * a bucket holds at most `burstLimit` tokens (full at first) and is refilled at `rateLimit` tokens a
 * second; a request takes one token, and a request that finds none is throttled (429). Times are
 * the runtime clock's milliseconds, so on a virtual clock the bucket refills by virtual time.
 */

/** A throttle's steady rate (requests a second, fractions allowed) and its burst (the bucket's size). */
export interface ThrottleLimits {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

export class TokenBucket {
  private tokens: number;
  private refilledAt: number;

  constructor(
    readonly limits: ThrottleLimits,
    now: number,
  ) {
    this.tokens = limits.burstLimit;
    this.refilledAt = now;
  }

  /** Whether a token is there at `now` (refilled up to then; a clock that went back refills nothing). */
  hasToken(now: number): boolean {
    const elapsedMillis = Math.max(0, now - this.refilledAt);
    this.tokens = Math.min(
      this.limits.burstLimit,
      this.tokens + (elapsedMillis / 1000) * this.limits.rateLimit,
    );
    this.refilledAt = Math.max(this.refilledAt, now);
    return this.tokens >= 1;
  }

  /** Takes a token (after `hasToken` said there is one). */
  take(): void {
    this.tokens -= 1;
  }
}
