/**
 * API Gateway's throttle on the runtime's clock (times given, no clock read): a token bucket per
 * limit, full at first and refilled at its rate; a key's usage plan counts the key alone (one
 * bucket per key, shared by every API of the plan), the stage's method throttle counts every caller
 * of one method, and a throttled request takes no token.
 */
import { ApiThrottle, type ApiThrottleSpec } from '../../../../lib/local-runtime/apigateway/api-throttle';
import { TokenBucket } from '../../../../lib/local-runtime/apigateway/token-bucket';

/** How many of `count` requests made at `now` are let through. */
function admitted(
  throttle: ApiThrottle,
  count: number,
  now: number,
  request: Parameters<ApiThrottle['admit']>[0],
) {
  return Array.from({ length: count }, () => throttle.admit(request, now)).filter(
    (verdict) => !verdict.throttled,
  ).length;
}

const ping = { stage: 'v1', resourcePath: '/ping', httpMethod: 'GET' };

describe('token bucket', () => {
  it('holds its burst at first, refills at its rate up to its burst, and never refills backwards', () => {
    const bucket = new TokenBucket({ rateLimit: 2, burstLimit: 3 }, 1_000);
    for (let taken = 0; taken < 3; taken += 1) {
      expect(bucket.hasToken(1_000)).toBe(true);
      bucket.take();
    }
    expect(bucket.hasToken(1_000)).toBe(false);
    // Half a second at 2 a second: one token.
    expect(bucket.hasToken(1_499)).toBe(false);
    expect(bucket.hasToken(1_500)).toBe(true);
    bucket.take();
    // A clock read earlier than the last refill adds nothing.
    expect(bucket.hasToken(1_200)).toBe(false);
    // An hour later: full again, not more.
    expect(bucket.hasToken(3_601_500)).toBe(true);
    for (let taken = 0; taken < 3; taken += 1) bucket.take();
    expect(bucket.hasToken(3_601_500)).toBe(false);
  });

  it('with a burst of 0 lets nothing through', () => {
    expect(new TokenBucket({ rateLimit: 0, burstLimit: 0 }, 0).hasToken(60_000)).toBe(false);
  });
});

describe('API throttle', () => {
  const spec: ApiThrottleSpec = {
    stages: {
      v1: {
        everyMethod: { rateLimit: 1, burstLimit: 5 },
        byMethod: { '/open/GET': { burstLimit: 2 }, '/half/GET': { rateLimit: 3 } },
      },
    },
    keyPlans: {
      small: { v1: { planId: 'plan-small', throttle: { rateLimit: 1, burstLimit: 2 } } },
      large: {
        v1: {
          planId: 'plan-large',
          throttle: { rateLimit: 1, burstLimit: 4 },
          byMethod: { '/other/GET': { rateLimit: 1, burstLimit: 1 } },
        },
      },
    },
  };

  it("throttles each key to its usage plan's burst, then lets one more through per 1/rate seconds", () => {
    const throttle = new ApiThrottle('api', spec);
    expect(admitted(throttle, 6, 0, { ...ping, apiKey: 'small' })).toBe(2);
    expect(throttle.admit({ ...ping, apiKey: 'small' }, 0)).toEqual({ throttled: true, by: 'usage plan' });
    // The other key is in another plan: the flood took none of its tokens.
    expect(admitted(throttle, 3, 0, { ...ping, apiKey: 'large' })).toBe(3);
    expect(admitted(throttle, 3, 999, { ...ping, apiKey: 'small' })).toBe(0);
    expect(admitted(throttle, 3, 1_000, { ...ping, apiKey: 'small' })).toBe(1);
  });

  it("throttles a method for all callers together at the stage's limits, each method on its own", () => {
    const throttle = new ApiThrottle('api', spec);
    // Small (burst 2) and large (burst 4) together reach the stage's burst of 5 on /ping.
    expect(admitted(throttle, 2, 0, { ...ping, apiKey: 'small' })).toBe(2);
    expect(admitted(throttle, 3, 0, { ...ping, apiKey: 'large' })).toBe(3);
    expect(throttle.admit({ ...ping, apiKey: 'large' }, 0)).toEqual({ throttled: true, by: 'stage method' });
    // Without a key (no plan): the stage's limit alone. Another method has a bucket of its own.
    expect(admitted(throttle, 6, 0, { stage: 'v1', resourcePath: '/free', httpMethod: 'POST' })).toBe(5);
  });

  it("takes a method's own setting over the stage default, field by field", () => {
    const throttle = new ApiThrottle('api', spec);
    // /open: burst 2 of its own, the stage's rate of 1 a second.
    const open = { stage: 'v1', resourcePath: '/open', httpMethod: 'GET' };
    expect(admitted(throttle, 4, 0, open)).toBe(2);
    expect(admitted(throttle, 4, 1_000, open)).toBe(1);
    // /half: rate 3 of its own, the stage's burst of 5.
    const half = { stage: 'v1', resourcePath: '/half', httpMethod: 'GET' };
    expect(admitted(throttle, 6, 0, half)).toBe(5);
    expect(admitted(throttle, 6, 1_000, half)).toBe(3);
  });

  it("applies a plan's throttle of a method besides the plan's own, and a throttled request takes no token", () => {
    const throttle = new ApiThrottle('api', spec);
    const other = { stage: 'v1', resourcePath: '/other', httpMethod: 'GET', apiKey: 'large' };
    expect(admitted(throttle, 3, 0, other)).toBe(1);
    expect(throttle.admit(other, 0)).toEqual({ throttled: true, by: 'usage plan method' });
    // The refused ones took none of the plan's 4: three more pass on /ping.
    expect(admitted(throttle, 4, 0, { ...ping, apiKey: 'large' })).toBe(3);
  });

  it("counts a key's plan bucket across the APIs that share the runtime's buckets", () => {
    const buckets = new Map<string, TokenBucket>();
    const first = new ApiThrottle('first', spec, buckets);
    const second = new ApiThrottle('second', spec, buckets);
    expect(admitted(first, 1, 0, { ...ping, apiKey: 'small' })).toBe(1);
    expect(admitted(second, 3, 0, { ...ping, apiKey: 'small' })).toBe(1);
  });

  it('does not enforce a throttle missing its rate or its burst, nor a stage or key it has no spec of', () => {
    const throttle = new ApiThrottle('api', {
      stages: { v1: { everyMethod: { burstLimit: 1 } } },
      keyPlans: { key: { v1: { planId: 'plan', throttle: { rateLimit: 1 } } } },
    });
    expect(admitted(throttle, 50, 0, { ...ping, apiKey: 'key' })).toBe(50);
    expect(admitted(throttle, 50, 0, { ...ping, stage: 'v2', apiKey: 'unknown' })).toBe(50);
  });
});
