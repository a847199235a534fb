/** Helpers for fingerprint tests: the same data under many key orders. */

/** Deterministic pseudo-random generator so the property-style cases are reproducible. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

export function shuffledKeys<T extends object>(value: T, random: () => number): T {
  const entries = Object.entries(value);
  for (let index = entries.length - 1; index > 0; index -= 1) {
    const swap = Math.floor(random() * (index + 1));
    const current = entries[index];
    const other = entries[swap];
    if (current && other) {
      entries[index] = other;
      entries[swap] = current;
    }
  }
  return Object.fromEntries(entries) as T;
}
