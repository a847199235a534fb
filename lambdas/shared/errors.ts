/** One-line description of anything thrown, for logs and LastError causes. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    return `${error.name}: ${error.message}`;
  }
  return String(error);
}

/**
 * Whether `error` is one of the named AWS (or library) errors. Compared by name, never with
 * instanceof: a bundle can hold two copies of an SDK package, and an error class from one copy is
 * not the class the other copy threw.
 */
export function hasErrorName(error: unknown, ...names: readonly string[]): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === 'string' && names.includes(name);
}
