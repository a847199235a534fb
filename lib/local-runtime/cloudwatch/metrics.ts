/**
 * The runtime's metric store: what functions emit (EMF), what PutMetricData sends and what the
 * runtime samples itself (AWS/SQS), kept for a bounded time and summarized per period.
 *
 * As in CloudWatch, a metric is its namespace, name and full set of dimensions (a query names all
 * of them); values are kept per second (the finest storage resolution), with their unit, as
 * sum / count / min / max, which is all the statistics served here need (no percentiles).
 */
import type { MetricDatum } from './emf';

export const STATISTICS = ['SampleCount', 'Average', 'Sum', 'Minimum', 'Maximum'] as const;
export type Statistic = (typeof STATISTICS)[number];

export function isStatistic(value: unknown): value is Statistic {
  return STATISTICS.includes(value as Statistic);
}

export interface MetricIdentity {
  readonly namespace: string;
  readonly metricName: string;
  readonly dimensions: Readonly<Record<string, string>>;
}

export interface Aggregate {
  readonly sum: number;
  readonly count: number;
  readonly min: number;
  readonly max: number;
}

/** One period's summary: its start (epoch millis) and the aggregate of its values. */
export interface PeriodAggregate {
  readonly timestamp: number;
  readonly aggregate: Aggregate;
  /** The unit asked for, else the metric's latest unit. */
  readonly unit: string;
}

export function statisticOf(aggregate: Aggregate, statistic: Statistic): number {
  switch (statistic) {
    case 'SampleCount':
      return aggregate.count;
    case 'Sum':
      return aggregate.sum;
    case 'Average':
      return aggregate.sum / aggregate.count;
    case 'Minimum':
      return aggregate.min;
    case 'Maximum':
      return aggregate.max;
  }
}

function merge(left: Aggregate | undefined, right: Aggregate): Aggregate {
  if (!left) return right;
  return {
    sum: left.sum + right.sum,
    count: left.count + right.count,
    min: Math.min(left.min, right.min),
    max: Math.max(left.max, right.max),
  };
}

export function metricKey(identity: MetricIdentity): string {
  const dimensions = Object.entries(identity.dimensions)
    .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`);
  return [identity.namespace, identity.metricName, ...dimensions].join('\u0000');
}

interface Series {
  readonly identity: MetricIdentity;
  /** Unit -> second (epoch seconds) -> aggregate. */
  readonly byUnit: Map<string, Map<number, Aggregate>>;
  lastUnit: string;
}

export interface MetricStoreOptions {
  /** How long values are kept. @default 1 hour */
  readonly retentionMillis?: number;
  /** @default Date.now */
  readonly clock?: () => number;
}

export class MetricStore {
  private readonly series = new Map<string, Series>();
  private readonly clock: () => number;
  private retentionMillis: number;
  private lastPruneAt = 0;

  constructor(options: MetricStoreOptions = {}) {
    this.clock = options.clock ?? Date.now;
    this.retentionMillis = options.retentionMillis ?? 60 * 60 * 1000;
  }

  /** The store's time (epoch millis): what a value without a timestamp is stamped with. */
  now(): number {
    return this.clock();
  }

  /** Keeps values at least this long (an alarm's evaluation range may need more than the default). */
  retainAtLeast(millis: number): void {
    this.retentionMillis = Math.max(this.retentionMillis, millis);
  }

  put(datum: MetricDatum): void {
    let aggregate: Aggregate | undefined;
    for (const value of datum.values)
      aggregate = merge(aggregate, { sum: value, count: 1, min: value, max: value });
    if (aggregate) this.record(datum, datum.unit, datum.timestamp, aggregate);
  }

  /** Values already summarized (PutMetricData's StatisticValues, or Values with Counts). */
  record(identity: MetricIdentity, unit: string, timestamp: number, aggregate: Aggregate): void {
    const now = this.clock();
    if (timestamp < now - this.retentionMillis) return;
    const key = metricKey(identity);
    let series = this.series.get(key);
    if (!series) {
      const { namespace, metricName, dimensions } = identity;
      series = {
        identity: { namespace, metricName, dimensions: { ...dimensions } },
        byUnit: new Map(),
        lastUnit: unit,
      };
      this.series.set(key, series);
    }
    series.lastUnit = unit;
    let seconds = series.byUnit.get(unit);
    if (!seconds) {
      seconds = new Map();
      series.byUnit.set(unit, seconds);
    }
    const second = Math.floor(timestamp / 1000);
    seconds.set(second, merge(seconds.get(second), aggregate));
    if (now - this.lastPruneAt > 60_000) this.prune(now);
  }

  /**
   * The aggregates of one metric per period of `periodSeconds`, for values in [start, end); periods
   * are counted from `origin` (@default 0: aligned to the clock, as alarms see them; GetMetricData
   * counts them from its StartTime); periods without values are left out. `unit` keeps only values
   * recorded with that unit.
   */
  aggregates(
    identity: MetricIdentity,
    query: {
      readonly start: number;
      readonly end: number;
      readonly periodSeconds: number;
      readonly unit?: string;
      readonly origin?: number;
    },
  ): PeriodAggregate[] {
    const series = this.series.get(metricKey(identity));
    if (!series) return [];
    const periodMillis = query.periodSeconds * 1000;
    const origin = query.origin ?? 0;
    const byPeriod = new Map<number, Aggregate>();
    for (const [unit, seconds] of series.byUnit) {
      if (query.unit !== undefined && query.unit !== unit) continue;
      for (const [second, aggregate] of seconds) {
        const at = second * 1000;
        if (at < query.start || at >= query.end) continue;
        const periodStart = origin + Math.floor((at - origin) / periodMillis) * periodMillis;
        byPeriod.set(periodStart, merge(byPeriod.get(periodStart), aggregate));
      }
    }
    return [...byPeriod]
      .sort(([left], [right]) => left - right)
      .map(([timestamp, aggregate]) => ({ timestamp, aggregate, unit: query.unit ?? series.lastUnit }));
  }

  /** Every metric with values kept, optionally of one namespace or name. */
  list(filter: { readonly namespace?: string; readonly metricName?: string } = {}): MetricIdentity[] {
    return [...this.series.values()]
      .map((series) => series.identity)
      .filter(
        (identity) =>
          (filter.namespace === undefined || identity.namespace === filter.namespace) &&
          (filter.metricName === undefined || identity.metricName === filter.metricName),
      );
  }

  private prune(now: number): void {
    this.lastPruneAt = now;
    const oldestSecond = Math.floor((now - this.retentionMillis) / 1000);
    for (const [key, series] of this.series) {
      for (const [unit, seconds] of series.byUnit) {
        for (const second of seconds.keys()) if (second < oldestSecond) seconds.delete(second);
        if (seconds.size === 0) series.byUnit.delete(unit);
      }
      if (series.byUnit.size === 0) this.series.delete(key);
    }
  }
}
