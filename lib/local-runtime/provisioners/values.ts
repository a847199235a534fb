/** Reading resolved template properties, whose values are whatever the template wrote. */

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  return undefined;
}

export function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** The name (or id) at the end of an ARN: after the last ':' or '/'. */
export function arnName(arn: string): string {
  return arn.slice(Math.max(arn.lastIndexOf(':'), arn.lastIndexOf('/')) + 1);
}
