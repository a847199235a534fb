/**
 * API Gateway's request throttling of one REST API, as AWS applies it
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-request-throttling.html):
 * first the caller's usage plan (per API key: the plan's throttle, one bucket per key shared by
 * every API stage of the plan, then the plan's throttle of the method, if any), then the stage's
 * method throttle (its MethodSettings: each method has a bucket of its own, shared by all callers;
 * the `/*` `*` setting is every method's default, a method's own setting overrides it field by
 * field). A request over any limit is throttled and takes no token; one that passes takes a token
 * of each bucket it counts against. AWS's account-level limits (10,000 requests a second, burst
 * 5,000) are not modelled, so a throttle missing its rate or its burst (AWS fills it from them) is
 * not enforced. Quotas are not enforced either (the provisioner names a plan that sets one).
 */
import { type ThrottleLimits, TokenBucket } from './token-bucket';

/** A throttle as a template states it: either field may be unset. */
export interface PartialThrottle {
  readonly rateLimit?: number;
  readonly burstLimit?: number;
}

/** One stage's method throttles (its MethodSettings). */
export interface StageThrottle {
  /** The `/*` `*` setting: each method of the stage is throttled on its own to it. @default - none */
  readonly everyMethod?: PartialThrottle;
  /**
   * A method's own setting, by `<resource path>/<HTTP method>` (`/orders/POST`, `/orders/*` for
   * every method of a resource). @default - none
   */
  readonly byMethod?: Readonly<Record<string, PartialThrottle>>;
}

/** The usage plan an API key has on one stage of the API (API Gateway allows one). */
export interface KeyPlan {
  readonly planId: string;
  /** The plan's throttle, each key on its own. @default - none */
  readonly throttle?: PartialThrottle;
  /** The plan's throttle of a method on this stage, by `<resource path>/<HTTP method>`. @default - none */
  readonly byMethod?: Readonly<Record<string, PartialThrottle>>;
}

export interface ApiThrottleSpec {
  /** By stage name. */
  readonly stages: Readonly<Record<string, StageThrottle>>;
  /** By API key value, then stage name: the key's usage plan on that stage. */
  readonly keyPlans: Readonly<Record<string, Readonly<Record<string, KeyPlan>>>>;
}

/** The request throttling judges: the method it reached and the API key it was let in with. */
export interface ThrottledRequest {
  readonly stage: string;
  /** The method's resource path, e.g. `/orders/{orderId}`. */
  readonly resourcePath: string;
  /** The method's HTTP method as declared (`ANY` for an ANY method). */
  readonly httpMethod: string;
  /** The API key the method required and accepted. @default - none: no usage plan applies */
  readonly apiKey?: string;
}

export type ThrottleVerdict =
  | { readonly throttled: false }
  | { readonly throttled: true; readonly by: 'usage plan' | 'usage plan method' | 'stage method' };

/** Both fields set, else undefined (not enforced: see the module's header). */
function complete(throttle: PartialThrottle | undefined): ThrottleLimits | undefined {
  const { rateLimit, burstLimit } = throttle ?? {};
  return rateLimit === undefined || burstLimit === undefined ? undefined : { rateLimit, burstLimit };
}

/** `<resource path>/<HTTP method>`, the key of a method's setting (the root is `//GET`). */
export const methodKey = (resourcePath: string, httpMethod: string): string =>
  `${resourcePath}/${httpMethod}`;

export class ApiThrottle {
  /**
   * @param buckets shared by every API of the runtime: a usage plan's bucket of a key counts the
   *   key's requests to every API stage of the plan
   */
  constructor(
    private readonly apiId: string,
    private readonly spec: ApiThrottleSpec,
    private readonly buckets: Map<string, TokenBucket> = new Map(),
  ) {}

  /** Whether the request is throttled at `now` (the runtime clock's milliseconds); takes its tokens if not. */
  admit(request: ThrottledRequest, now: number): ThrottleVerdict {
    const method = methodKey(request.resourcePath, request.httpMethod);
    const anyMethod = methodKey(request.resourcePath, '*');
    const where = `${this.apiId}/${request.stage} ${method}`;
    const counted: Array<{ by: 'usage plan' | 'usage plan method' | 'stage method'; bucket: TokenBucket }> =
      [];
    const count = (by: (typeof counted)[number]['by'], id: string, limits: ThrottleLimits | undefined) => {
      if (limits === undefined) return;
      let bucket = this.buckets.get(id);
      if (bucket === undefined) {
        bucket = new TokenBucket(limits, now);
        this.buckets.set(id, bucket);
      }
      counted.push({ by, bucket });
    };
    const plan =
      request.apiKey === undefined ? undefined : this.spec.keyPlans[request.apiKey]?.[request.stage];
    if (plan !== undefined) {
      const key = `plan ${plan.planId} key ${request.apiKey}`;
      count('usage plan', key, complete(plan.throttle));
      count('usage plan method', `${key} ${where}`, complete(plan.byMethod?.[method]));
    }
    const stage = this.spec.stages[request.stage];
    const own = stage?.byMethod?.[method] ?? stage?.byMethod?.[anyMethod];
    count('stage method', `stage ${where}`, complete({ ...stage?.everyMethod, ...definedOnly(own) }));
    const empty = counted.find(({ bucket }) => !bucket.hasToken(now));
    if (empty !== undefined) return { throttled: true, by: empty.by };
    for (const { bucket } of counted) bucket.take();
    return { throttled: false };
  }
}

/** The fields of a throttle that are set (an unset field of a method's own setting inherits). */
function definedOnly(throttle: PartialThrottle | undefined): PartialThrottle {
  return {
    ...(throttle?.rateLimit !== undefined && { rateLimit: throttle.rateLimit }),
    ...(throttle?.burstLimit !== undefined && { burstLimit: throttle.burstLimit }),
  };
}
