/**
 * Seeded randomness for the chaos campaign. Every fault decision is a pure function of the seed and
 * a stable description of what is being decided (an order index, an idempotency key and a call
 * number), never of arrival order or wall-clock time, so the same seed makes the same decisions
 * even though the system's timing varies from run to run.
 */

import { hashString, mulberry32, type Random } from '../../local-runtime';

export { hashString, mulberry32, type Random };

/** A uniform draw in [0, 1) that depends only on the seed and the parts naming the decision. */
export function seededUnit(seed: number, ...parts: readonly (string | number)[]): number {
  return mulberry32(hashString(`${seed >>> 0}|${parts.join('|')}`))();
}

/** Fisher-Yates shuffle of a copy, driven by the given generator. */
export function shuffled<T>(items: readonly T[], random: Random): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    const held = copy[index] as T;
    copy[index] = copy[other] as T;
    copy[other] = held;
  }
  return copy;
}

/** One element picked uniformly; throws on an empty list rather than returning undefined. */
export function pick<T>(items: readonly T[], random: Random): T {
  if (items.length === 0) throw new Error('pick: cannot pick from an empty list');
  return items[Math.floor(random() * items.length)] as T;
}
