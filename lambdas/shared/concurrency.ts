/** Bounded concurrency: many pieces of work, at most a few in flight at once. */

/** Runs `action` on every item, at most `limit` at a time; resolves once all are done. */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  action: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next];
      next += 1;
      if (item !== undefined) {
        await action(item);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}
