/** True when a conditional write was refused because its condition did not hold. */
export function isConditionalCheckFailed(error: unknown): boolean {
  return (error as { name?: unknown } | null)?.name === 'ConditionalCheckFailedException';
}
