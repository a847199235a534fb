/**
 * Seeded randomness for the chaos campaign. Every fault decision is a pure function of the seed and
 * a stable description of what is being decided (an order index, an idempotency key and a call
 * number), never of arrival order or wall-clock time, so the same seed makes the same decisions
 * even though the system's timing varies from run to run.
 */

/** Uniform in [0, 1). */
export type Random = () => number;

/** mulberry32: a small, fast 32-bit PRNG; good enough to spread faults, not for cryptography. */
export function mulberry32(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** FNV-1a over the UTF-16 code units: turns a decision's description into a 32-bit seed. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

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
