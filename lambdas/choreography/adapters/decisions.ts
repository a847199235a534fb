/**
 * From a domain's typed Decision to the kit's Reaction: the state becomes the item's attributes, and
 * a service that keeps more than one item adds the writes for the others (the drone scheduler's
 * DRONE#), all committed in the kit's one transaction.
 */
import type { Decision } from '../domain/decision';
import { change, type Reaction } from '../domain/reaction';
import type { ExtraWrite } from './service-store';

export function asReaction<S>(
  decision: Decision<S>,
  toItem: (state: S) => {
    readonly state: Readonly<Record<string, unknown>>;
    readonly extraWrites?: readonly ExtraWrite[];
  },
): Reaction<ExtraWrite> {
  if (decision.kind === 'ignore') return decision;
  const { state, extraWrites } = toItem(decision.state);
  return change(state, decision.emissions, {
    ...(decision.deadLetter ? { deadLetter: decision.deadLetter } : {}),
    ...(extraWrites && extraWrites.length > 0 ? { extraWrites } : {}),
  });
}

/**
 * A state item's attributes read back as the service's state type. Only the service's own handler
 * writes the item, from that very type (asReaction above), so the shape is the one it wrote.
 */
export function stateOf<S>(
  item: { readonly state: Readonly<Record<string, unknown>> } | undefined,
): S | undefined {
  return item?.state as S | undefined;
}
