/**
 * A set of value tuples as a short Promela guard: a union of products (`(a == 0) && (b == 1 || b == 3)
 * || ...`), found by splitting on the first variable and merging the values whose remaining sets are
 * equal. The decision tables stay exact (every tuple the code was asked about is covered, no other)
 * while the verifier's C stays small enough to compile in seconds.
 */
export function productGuard(
  tuples: readonly (readonly number[])[],
  names: readonly string[],
  domain: number,
): string {
  const [name, ...rest] = names;
  if (name === undefined) return tuples.length > 0 ? '1' : '0';
  const byValue = new Map<number, (readonly number[])[]>();
  for (const [value, ...tail] of tuples) {
    if (value === undefined) continue;
    byValue.set(value, [...(byValue.get(value) ?? []), tail]);
  }
  const merged = new Map<string, { values: number[]; tails: (readonly number[])[] }>();
  for (const [value, tails] of [...byValue.entries()].sort(([a], [b]) => a - b)) {
    const key = JSON.stringify([...tails].map((tail) => tail.join(',')).sort());
    const entry = merged.get(key) ?? { values: [], tails };
    entry.values.push(value);
    merged.set(key, entry);
  }
  const terms = [...merged.values()].map(({ values, tails }) => {
    const head =
      values.length === domain ? '1' : `(${values.map((value) => `${name} == ${value}`).join(' || ')})`;
    const tail = productGuard(tails, rest, domain);
    if (tail === '1') return head;
    return head === '1' ? `(${tail})` : `${head} && (${tail})`;
  });
  return terms.length === 1 ? (terms[0] as string) : terms.map((term) => `(${term})`).join(' || ');
}
