/**
 * The fake remote services (inventory, payment, shipping) that the agents call. They stand in for
 * third-party APIs so the pattern's failure modes can be provoked on demand, by SKU.
 *
 * They speak the remote service contract of lambdas/scheduler-agent-supervisor/contracts/remote-service.ts:
 * each service serves its step's operation path and its compensation's path.
 *
 * Scenarios, chosen by an item's SKU:
 *
 *   PERM-FAIL            payment only. 422 on every call, nothing recorded: a refusal that retrying
 *                        cannot fix (the agent answers Agent.PermanentFailure, and the order is
 *                        compensated).
 *   PERM-FAIL-INVENTORY  the same, played by the inventory service (the first step).
 *   PERM-FAIL-SHIPPING   the same, played by the shipping service (the last step).
 *   FLAKY                every service. The first two calls for a key answer 503, the third and
 *                        later succeed: a transient outage the agent's retries ride out, with one
 *                        effect. Original operations only (see UNDO-FLAKY).
 *   STALL-ONCE           payment only. The first call for a key records the effect, then holds the
 *                        response for STALL_MILLIS and answers 504, so a caller with a shorter
 *                        timeout sees no answer at all (the "did my charge go through?" case).
 *                        Later calls for the key answer 200 with the recorded result: a retry, even
 *                        by a later attempt, never charges twice.
 *   UNDO-FLAKY           every service. The first two calls for a compensation key answer 503, then
 *                        the compensation succeeds: one undo.
 *   UNDO-FAIL            every service. Every compensation is refused (422), nothing undone: the
 *                        order ends CompensationFailed and an operator is alerted.
 *   SLOW                 every service. Every call, original or compensation, waits SLOW_MILLIS
 *                        before it is answered as it would have been (admission control needs orders
 *                        that stay in flight).
 *   OUTAGE               payment only. 503 on every original call for the key until the outage is
 *                        ended for that key (an `outage-ended` ledger item, written by whoever plays
 *                        the people who fixed the provider: endOutage in the ledger adapter), then
 *                        normal. However many attempts the profile allows, the agent's retries and
 *                        the supervisor's restarts all fail until the order reaches Error; an
 *                        operator retry after the outage ended then completes it.
 *
 * Any other SKU behaves normally. Every scenario is keyed on the Idempotency-Key, so a new order
 * (new key) plays its scenario from the start. A compensation's body carries no items: it plays the
 * scenarios of the effect it undoes (the ledger keeps that effect's SKUs), and none when there is
 * no effect to undo.
 *
 * Compensations (each answered once per compensation key, then replayed with 200):
 *   - an effect recorded under `undoes` is marked undone: 201 { confirmationId, undone: true };
 *   - no effect under `undoes`: the key is closed and nothing is undone: 201 { confirmationId,
 *     undone: false }. A later original call with that key is refused (422), as is any original
 *     call whose effect was undone: an undo is final.
 */
import { type ServiceName } from '../../scheduler-agent-supervisor/contracts';
import { FLAKY_FAILURES_PER_KEY, PERMANENT_FAILURE_SKU, ScenarioSku } from '../contracts';

const STALL_ONCE_SERVICES: readonly ServiceName[] = ['payment'];
const OUTAGE_SERVICES: readonly ServiceName[] = ['payment'];

export interface ScenarioFlags {
  readonly permanentFailure: boolean;
  readonly flaky: boolean;
  readonly stallOnce: boolean;
  readonly undoFlaky: boolean;
  readonly undoFail: boolean;
  readonly slow: boolean;
  readonly outage: boolean;
}

/** Which scenarios this service plays for an order with these SKUs. */
export function scenarioFlags(service: ServiceName, skus: Iterable<string>): ScenarioFlags {
  const set = new Set(skus);
  return {
    permanentFailure: set.has(PERMANENT_FAILURE_SKU[service]),
    flaky: set.has(ScenarioSku.Flaky),
    stallOnce: set.has(ScenarioSku.StallOnce) && STALL_ONCE_SERVICES.includes(service),
    undoFlaky: set.has(ScenarioSku.UndoFlaky),
    undoFail: set.has(ScenarioSku.UndoFail),
    slow: set.has(ScenarioSku.Slow),
    outage: set.has(ScenarioSku.Outage) && OUTAGE_SERVICES.includes(service),
  };
}

/** What to do before touching the ledger: refuse for good, fail this call, or go on. */
export type PreEffectDecision =
  | { readonly kind: 'refuse'; readonly status: 422; readonly message: string }
  | { readonly kind: 'unavailable'; readonly status: 503; readonly message: string }
  | { readonly kind: 'proceed' };

/**
 * Before an original operation's effect.
 * @param callNumber 1-based number of this call for the key (from the ledger's counter); only
 *   consulted for FLAKY, so callers may pass 0 when the request is not flaky.
 * @param outageEnded whether the OUTAGE of this key was ended (the ledger's item); only consulted
 *   for OUTAGE.
 */
export function decideBeforeEffect(
  service: ServiceName,
  flags: ScenarioFlags,
  callNumber: number,
  outageEnded = false,
): PreEffectDecision {
  if (flags.outage && !outageEnded) {
    return {
      kind: 'unavailable',
      status: 503,
      message: `service unavailable (SKU ${ScenarioSku.Outage}: an outage until it is ended for this key)`,
    };
  }
  if (flags.permanentFailure) {
    return {
      kind: 'refuse',
      status: 422,
      message: `${service} refused for SKU ${PERMANENT_FAILURE_SKU[service]}`,
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

/**
 * Before a compensation's undo.
 * @param callNumber 1-based number of this call for the compensation key; only consulted for
 *   UNDO-FLAKY, so callers may pass 0 otherwise.
 */
export function decideBeforeUndo(
  service: ServiceName,
  flags: ScenarioFlags,
  callNumber: number,
): PreEffectDecision {
  if (flags.undoFail) {
    return {
      kind: 'refuse',
      status: 422,
      message: `${service} refuses every compensation for SKU ${ScenarioSku.UndoFail}`,
    };
  }
  if (flags.undoFlaky && callNumber <= FLAKY_FAILURES_PER_KEY) {
    return {
      kind: 'unavailable',
      status: 503,
      message: `service unavailable (SKU ${ScenarioSku.UndoFlaky}, call ${callNumber} of ${FLAKY_FAILURES_PER_KEY} failing calls)`,
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

/** How to answer once the undo is in the ledger: the first answer, or its replay. */
export function decideAfterUndo(
  createdNow: boolean,
): { readonly kind: 'created'; readonly status: 201 } | { readonly kind: 'replayed'; readonly status: 200 } {
  return createdNow ? { kind: 'created', status: 201 } : { kind: 'replayed', status: 200 };
}

/**
 * Ledger partition key of an effect, a closed key or an undo (LedgerAttr.Pk): one item per service
 * and key, so an effect and the closing of its key exclude each other.
 */
export function effectKey(service: ServiceName, idempotencyKey: string): string {
  return `${service}#${idempotencyKey}`;
}

/** Ledger partition key of the item that ends an OUTAGE for one key. */
export function outageEndedKey(service: ServiceName, idempotencyKey: string): string {
  return `outage-ended#${service}#${idempotencyKey}`;
}

export function callCounterKey(service: ServiceName, idempotencyKey: string): string {
  return `calls#${service}#${idempotencyKey}`;
}
