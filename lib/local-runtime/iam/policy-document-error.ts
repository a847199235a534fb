/** A policy the local evaluator refuses, with every problem named (the local deploy fails with it). */
export class PolicyDocumentError extends Error {
  constructor(
    readonly policyName: string,
    readonly problems: readonly string[],
  ) {
    super(`${policyName}: ${problems.join('; ')}`);
    this.name = 'PolicyDocumentError';
  }
}
