/**
 * One small seeded generator for everything the local runtime decides by a seed (the order of
 * concurrent work on a seeded virtual clock, the ids it mints there) and for the chaos campaigns'
 * plans: the same seed gives the same draws on every machine. Not for secrets.
 */

/** Uniform in [0, 1). */
export type Random = () => number;

/** mulberry32: a small, fast 32-bit PRNG; good enough to spread choices, not for cryptography. */
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
