/**
 * What API Gateway throttles, read from a stack's resolved templates for the local REST APIs
 * (apigateway/api-throttle.ts enforces it): each stage's method throttles (an
 * AWS::ApiGateway::Stage's MethodSettings, or a Deployment's StageDescription) and each usage plan
 * (AWS::ApiGateway::UsagePlan: its throttle, its API stages and their method throttles) with the
 * keys its AWS::ApiGateway::UsagePlanKey resources put in it. A plan's quota is named as not
 * enforced.
 */
import type { KeyPlan, PartialThrottle, StageThrottle } from '../apigateway/api-throttle';
import { methodKey } from '../apigateway/api-throttle';
import type { StackContext } from '../provisioning';
import { asNumber, asRecord, asString } from './values';

const STAGE = 'AWS::ApiGateway::Stage';
const DEPLOYMENT = 'AWS::ApiGateway::Deployment';
export const USAGE_PLAN = 'AWS::ApiGateway::UsagePlan';
export const USAGE_PLAN_KEY = 'AWS::ApiGateway::UsagePlanKey';

/** A usage plan as the runtime enforces it: its throttle on each API stage it names. */
export interface LocalUsagePlan {
  readonly planId: string;
  /** `<stack>/<logical id>`, for messages. */
  readonly name: string;
  readonly stages: ReadonlyArray<{ readonly apiId: string; readonly stage: string; readonly plan: KeyPlan }>;
}

/** One key's membership of a plan (a UsagePlanKey), by the key's id. */
export interface LocalUsagePlanKey {
  readonly keyId: string;
  readonly planId: string;
}

function throttleOf(rate: unknown, burst: unknown): PartialThrottle | undefined {
  const rateLimit = asNumber(rate);
  const burstLimit = asNumber(burst);
  if (rateLimit === undefined && burstLimit === undefined) return undefined;
  return {
    ...(rateLimit !== undefined && { rateLimit }),
    ...(burstLimit !== undefined && { burstLimit }),
  };
}

/**
 * A stage's MethodSettings as throttles: `/*` with `*` is every method's; otherwise by
 * `<resource path>/<method>`. CloudFormation writes `/orders/{id}` as `/~1orders~1{id}` (a leading
 * `/`, each of the path's slashes as `~1`) and the root as `/`.
 */
function methodSettings(settings: unknown): StageThrottle {
  let everyMethod: PartialThrottle | undefined;
  const byMethod: Record<string, PartialThrottle> = {};
  for (const setting of Array.isArray(settings) ? settings : []) {
    const { ResourcePath, HttpMethod, ThrottlingRateLimit, ThrottlingBurstLimit } = asRecord(setting);
    const throttle = throttleOf(ThrottlingRateLimit, ThrottlingBurstLimit);
    if (throttle === undefined) continue;
    const written = asString(ResourcePath) ?? '/*';
    const path = written === '/' || written === '/*' ? written : written.slice(1).replaceAll('~1', '/');
    const method = (asString(HttpMethod) ?? '*').toUpperCase();
    if (path === '/*' && method === '*') everyMethod = throttle;
    else byMethod[methodKey(path, method)] = throttle;
  }
  return { ...(everyMethod && { everyMethod }), byMethod };
}

/** The method throttles of each stage of the API `apiId` declared in this stack, by stage name. */
export function stageThrottles(context: StackContext, apiId: string): Record<string, StageThrottle> {
  const stages: Record<string, StageThrottle> = {};
  for (const [logicalId] of context.ofType(STAGE)) {
    const properties = context.resolver.properties(logicalId);
    const name = asString(properties.StageName);
    if (properties.RestApiId !== apiId || name === undefined) continue;
    stages[name] = methodSettings(properties.MethodSettings);
  }
  for (const [logicalId] of context.ofType(DEPLOYMENT)) {
    const properties = context.resolver.properties(logicalId);
    const name = asString(properties.StageName);
    if (properties.RestApiId !== apiId || name === undefined) continue;
    const description = asRecord(properties.StageDescription);
    const settings = methodSettings(description.MethodSettings);
    const stageWide = throttleOf(description.ThrottlingRateLimit, description.ThrottlingBurstLimit);
    stages[name] = { ...settings, ...(stageWide && { everyMethod: stageWide }) };
  }
  return stages;
}

/** The stack's usage plans (a plan with a quota is named: the quota is not enforced). */
export function usagePlans(context: StackContext): LocalUsagePlan[] {
  return context.ofType(USAGE_PLAN).map(([logicalId]) => {
    const properties = context.resolver.properties(logicalId);
    if (properties.Quota !== undefined) {
      context.named(logicalId, USAGE_PLAN, 'its Quota is not enforced locally (its Throttle is)');
    }
    const throttle = asRecord(properties.Throttle);
    const planThrottle = throttleOf(throttle.RateLimit, throttle.BurstLimit);
    const planId = context.resolver.physicalName(logicalId);
    const stages = (Array.isArray(properties.ApiStages) ? properties.ApiStages : []).map((entry) => {
      const { ApiId, Stage, Throttle } = asRecord(entry);
      const byMethod: Record<string, PartialThrottle> = {};
      for (const [method, limits] of Object.entries(asRecord(Throttle))) {
        const own = asRecord(limits);
        const methodThrottle = throttleOf(own.RateLimit, own.BurstLimit);
        if (methodThrottle) byMethod[method] = methodThrottle;
      }
      const plan: KeyPlan = { planId, ...(planThrottle && { throttle: planThrottle }), byMethod };
      return { apiId: String(ApiId), stage: String(Stage), plan };
    });
    return { planId, name: `${context.stack.stackName}/${logicalId}`, stages };
  });
}

/** The stack's UsagePlanKey resources: which key (by id) is in which plan (by id). */
export function usagePlanKeys(context: StackContext): LocalUsagePlanKey[] {
  return context.ofType(USAGE_PLAN_KEY).map(([logicalId]) => {
    const properties = context.resolver.properties(logicalId);
    return { keyId: String(properties.KeyId), planId: String(properties.UsagePlanId) };
  });
}
