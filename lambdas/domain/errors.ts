/** One-line description of anything thrown, for logs and LastError causes. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    return `${error.name}: ${error.message}`;
  }
  return String(error);
}

/** A start message names an order the state store does not know: it can never succeed. */
export class UnknownOrderError extends Error {
  constructor(readonly orderId: string) {
    super(`No state record for order '${orderId}'`);
    this.name = 'UnknownOrderError';
  }
}
