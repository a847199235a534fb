/**
 * Which port each REST API takes, as an offset from the runtime's port: the stacks an app names
 * (LocalRuntimeOptions.apiPortOrder) first, in its order, then the others in the assembly's order.
 * An app composes its stacks in whatever order its dependencies need (a stack that reads another's
 * exports comes after it), which is not the order its clients know the APIs by: naming the order
 * keeps each stack's API on a port that depends on the stack's name alone. The runtime knows no
 * app: the names come from the caller.
 */

/** Throws naming what is wrong with an order: an empty name, or a name given twice. */
function checkOrder(order: readonly string[]): void {
  const seen = new Set<string>();
  for (const name of order) {
    if (typeof name !== 'string' || name.trim() === '') {
      throw new Error(`apiPortOrder names stacks; got ${JSON.stringify(name)} in ${JSON.stringify(order)}`);
    }
    if (seen.has(name)) throw new Error(`apiPortOrder names the stack ${name} twice`);
    seen.add(name);
  }
}

/**
 * The port offset of each REST API, given as the name of its stack, in the assembly's order (a
 * stack's APIs one after another). A named stack takes one port per API it has, and at least one:
 * a named stack the assembly lacks, or that has no API, leaves its port free, so the stacks after it
 * keep theirs. Stacks not named follow, in the assembly's order. Without an order, or with one that
 * names none of the assembly's stacks (another app's assembly run with this app's order), offsets are
 * the APIs' positions in the assembly.
 */
export function apiPortOffsets(apiStacks: readonly string[], givenOrder: readonly string[] = []): number[] {
  checkOrder(givenOrder);
  const order = givenOrder.some((stack) => apiStacks.includes(stack)) ? givenOrder : [];
  const count = new Map<string, number>();
  for (const stack of apiStacks) count.set(stack, (count.get(stack) ?? 0) + 1);
  const first = new Map<string, number>();
  let next = 0;
  for (const stack of order) {
    first.set(stack, next);
    next += Math.max(1, count.get(stack) ?? 0);
  }
  for (const stack of apiStacks) {
    if (first.has(stack)) continue;
    first.set(stack, next);
    next += count.get(stack) ?? 0;
  }
  const taken = new Map<string, number>();
  return apiStacks.map((stack) => {
    const index = taken.get(stack) ?? 0;
    taken.set(stack, index + 1);
    return (first.get(stack) ?? 0) + index;
  });
}

/**
 * Stack names in API port order: the named ones the assembly has, in the order's order, then the
 * others as given (the assembly's order). Throws as apiPortOffsets does on a bad order.
 */
export function inApiPortOrder(stackNames: readonly string[], order: readonly string[] = []): string[] {
  checkOrder(order);
  const present = new Set(stackNames);
  const named = order.filter((name) => present.has(name));
  return [...named, ...stackNames.filter((name) => !order.includes(name))];
}
