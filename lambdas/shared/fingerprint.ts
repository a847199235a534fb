/**
 * Fingerprints of data: equal data gives the same fingerprint whatever the key order it arrived in,
 * so "is this resubmission the same as what we stored?" is one string comparison. Both wings need
 * it (an order's immutable data; a delivery's, a message's).
 */
import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every level and no whitespace, so equal data always serialises to
 * the same bytes whatever the key order of the request. Array order is kept: it is part of the data.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') {
    return JSON.stringify(value);
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new Error(`canonicalJson: cannot encode non-finite number ${value}`);
    }
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((element) => canonicalJson(element)).join(',')}]`;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
  }
  throw new Error(`canonicalJson: cannot encode a value of type ${typeof value}`);
}

/**
 * SHA-256 (hex) of the canonical JSON of `value`. Pass exactly the fields that define identity:
 * anything else in the object would make two equal things look different.
 */
export function fingerprintOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex');
}
