/**
 * The arithmetic figures share: ratios of a measurement to its baseline, and the shape of a
 * distribution (on the chaos campaign's nearest-rank percentile, lib/chaos/core/stats.ts).
 */
import { percentile } from '../../chaos/core/stats';

/** numerator / denominator; a zero or non-finite denominator is an error, never Infinity or NaN in a figure. */
export function ratio(numerator: number, denominator: number): number {
  if (!Number.isFinite(numerator) || !Number.isFinite(denominator) || denominator === 0) {
    throw new Error(`ratio: cannot divide ${numerator} by ${denominator}`);
  }
  return numerator / denominator;
}

export interface Distribution {
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly max: number;
}

/** Count, median, 90th percentile (nearest rank) and maximum; undefined when there are no values. */
export function distributionOf(values: readonly number[]): Distribution | undefined {
  const p50 = percentile(values, 50);
  const p90 = percentile(values, 90);
  if (p50 === undefined || p90 === undefined) return undefined;
  return { count: values.length, p50, p90, max: Math.max(...values) };
}
