/**
 * A zod refinement for the registries the stacks write into a handler's environment (the orders'
 * clients, the deliveries' requesters): each named field is unique across the entries, reported as
 * "<field> '<value>' appears twice", so a registry that maps one key id to two callers fails at load.
 */
import type * as z from 'zod';

export function distinctFields<T extends Record<K, string>, K extends keyof T & string>(
  fields: readonly K[],
): (entries: readonly T[], context: z.RefinementCtx) => void {
  return (entries, context) => {
    for (const field of fields) {
      const seen = new Set<string>();
      for (const entry of entries) {
        if (seen.has(entry[field])) {
          context.addIssue({ code: 'custom', message: `${field} '${entry[field]}' appears twice` });
        }
        seen.add(entry[field]);
      }
    }
  };
}
