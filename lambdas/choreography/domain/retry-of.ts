/**
 * A RETRY or PIVOT carries the dead-lettered message it repeats (`retryOf`). That message may itself
 * be a RemediationDecided (a retry that was dead-lettered again), so the original work is found by
 * unwrapping: each level is parsed against the contracts like any message a consumer receives.
 */
import { type DeliveryEvent, EventType, parseEvent } from '../contracts';

/** Deeper than any ladder (the longest has four rungs): a loop of decisions is a defect, not work. */
const MAX_DEPTH = 8;

/**
 * The innermost event of the accepted types that `retryOf` repeats, or why there is none.
 * @param accepted the types the consumer would process again (RemediationDecided is unwrapped, never returned)
 */
export function originalOf<T extends EventType>(
  retryOf: Readonly<Record<string, unknown>> | undefined,
  accepted: readonly T[],
): { readonly ok: true; readonly event: DeliveryEvent<T> } | { readonly ok: false; readonly detail: string } {
  let current: unknown = retryOf;
  for (let depth = 0; depth < MAX_DEPTH; depth += 1) {
    if (current === undefined) return { ok: false, detail: 'the decision carries no retryOf message' };
    const parsed = parseEvent(JSON.stringify(current), [...accepted, EventType.RemediationDecided]);
    if (!parsed.ok) return { ok: false, detail: `retryOf is not a message to repeat: ${parsed.detail}` };
    const event = parsed.event as DeliveryEvent;
    if (event.type !== EventType.RemediationDecided) {
      return { ok: true, event: event as DeliveryEvent<T> };
    }
    current = event.data.retryOf;
  }
  return { ok: false, detail: `retryOf is nested deeper than ${MAX_DEPTH} decisions` };
}
