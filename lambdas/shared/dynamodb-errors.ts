import { hasErrorName } from './errors';

/** True when a conditional write was refused because its condition did not hold. */
export function isConditionalCheckFailed(error: unknown): boolean {
  return hasErrorName(error, 'ConditionalCheckFailedException');
}
