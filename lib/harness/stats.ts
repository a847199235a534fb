/**
 * The statistics every tool reports with: nearest-rank percentiles, the campaigns' latency summary
 * (p50, p95, p99) and the benchmarks' distribution (p50, p90, max), and ratios that refuse to
 * divide by zero.
 */

/** Nearest-rank percentile (p in (0, 100]) of unsorted values; undefined when there are none. */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (!(p > 0 && p <= 100)) throw new Error(`percentile must be within (0, 100], got ${p}`);
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((left, right) => left - right);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export interface LatencySummary {
  readonly count: number;
  readonly p50?: number;
  readonly p95?: number;
  readonly p99?: number;
}

export function summarize(values: readonly number[]): LatencySummary {
  return {
    count: values.length,
    ...optional('p50', percentile(values, 50)),
    ...optional('p95', percentile(values, 95)),
    ...optional('p99', percentile(values, 99)),
  };
}

function optional<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>);
}

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
