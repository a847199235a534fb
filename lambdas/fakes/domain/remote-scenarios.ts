/**
 * The fake remote services (inventory, payment, shipping) that the agents call. They stand in for
 * third-party APIs so the pattern's failure modes can be provoked on demand, by SKU.
 *
 * They speak the remote service contract of lambdas/scheduler-agent-supervisor/contracts/remote-service.ts.
 *
 * Scenarios, chosen by an item's SKU:
 *
 *   PERM-FAIL   payment only. 422 on every call, nothing recorded: a refusal that retrying cannot
 *               fix (the agent answers Agent.PermanentFailure, the order goes to Error).
 *   FLAKY       every service. The first two calls for a key answer 503, the third and later
 *               succeed: a transient outage the agent's retries ride out, with one effect.
 *   STALL-ONCE  payment only. The first call for a key records the effect, then holds the response
 *               for STALL_MILLIS and answers 504, so a caller with a shorter timeout sees no answer
 *               at all (the "did my charge go through?" case). Later calls for the key answer 200
 *               with the recorded result: a retry, even by a later attempt, never charges twice.
 *
 * Any other SKU behaves normally. Every scenario is keyed on the Idempotency-Key, so a new order
 * (new key) plays its scenario from the start.
 */
import { ORDER_STEPS, type ServiceName } from '../../scheduler-agent-supervisor/contracts';

export const ScenarioSku = {
  PermanentFailure: 'PERM-FAIL',
  Flaky: 'FLAKY',
  StallOnce: 'STALL-ONCE',
} as const;

/** Calls per key that a FLAKY service fails before it starts succeeding. */
export const FLAKY_FAILURES_PER_KEY = 2;

/** Services that play each scenario (the others ignore the SKU). */
const PERMANENT_FAILURE_SERVICES: readonly ServiceName[] = ['payment'];
const STALL_ONCE_SERVICES: readonly ServiceName[] = ['payment'];

export interface ScenarioFlags {
  readonly permanentFailure: boolean;
  readonly flaky: boolean;
  readonly stallOnce: boolean;
}

/** The service that owns an operation path, or undefined for a path no service serves. */
export function serviceForPath(path: string): ServiceName | undefined {
  return ORDER_STEPS.find((step) => step.operationPath === path)?.service;
}

/** Which scenarios this service plays for this request's items. */
export function scenarioFlags(service: ServiceName, items: readonly { sku: string }[]): ScenarioFlags {
  const skus = new Set(items.map((item) => item.sku));
  return {
    permanentFailure: skus.has(ScenarioSku.PermanentFailure) && PERMANENT_FAILURE_SERVICES.includes(service),
    flaky: skus.has(ScenarioSku.Flaky),
    stallOnce: skus.has(ScenarioSku.StallOnce) && STALL_ONCE_SERVICES.includes(service),
  };
}

/** What to do before touching the effect: refuse for good, fail this call, or go on. */
export type PreEffectDecision =
  | { readonly kind: 'refuse'; readonly status: 422; readonly message: string }
  | { readonly kind: 'unavailable'; readonly status: 503; readonly message: string }
  | { readonly kind: 'proceed' };

/**
 * @param callNumber 1-based number of this call for the key (from the ledger's counter); only
 *   consulted for FLAKY, so callers may pass 0 when the request is not flaky.
 */
export function decideBeforeEffect(flags: ScenarioFlags, callNumber: number): PreEffectDecision {
  if (flags.permanentFailure) {
    return {
      kind: 'refuse',
      status: 422,
      message: `payment refused for SKU ${ScenarioSku.PermanentFailure}`,
    };
  }
  if (flags.flaky && callNumber <= FLAKY_FAILURES_PER_KEY) {
    return {
      kind: 'unavailable',
      status: 503,
      message: `service unavailable (SKU ${ScenarioSku.Flaky}, call ${callNumber} of ${FLAKY_FAILURES_PER_KEY} failing calls)`,
    };
  }
  return { kind: 'proceed' };
}

/** How to answer once the effect is in the ledger. */
export type PostEffectDecision =
  | { readonly kind: 'created'; readonly status: 201 }
  | { readonly kind: 'replayed'; readonly status: 200 }
  | { readonly kind: 'stall-then-fail'; readonly status: 504 };

/** @param createdNow true when this call wrote the effect, false when it was already recorded. */
export function decideAfterEffect(flags: ScenarioFlags, createdNow: boolean): PostEffectDecision {
  if (!createdNow) return { kind: 'replayed', status: 200 };
  if (flags.stallOnce) return { kind: 'stall-then-fail', status: 504 };
  return { kind: 'created', status: 201 };
}

/** Ledger partition key of an effect, and of the per-key call counter (LedgerAttr.Pk). */
export function effectKey(service: ServiceName, idempotencyKey: string): string {
  return `${service}#${idempotencyKey}`;
}

export function callCounterKey(service: ServiceName, idempotencyKey: string): string {
  return `calls#${service}#${idempotencyKey}`;
}
