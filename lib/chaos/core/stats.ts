/**
 * Recovery latency: how long an order took from the first fault that hit it to its terminal state.
 */
import type { FaultEvent, FaultKind } from './faults';
import type { OrderOutcome } from './invariants';

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

/**
 * Per order hit by a fault (of the given kind, or of any kind): terminal time minus the first
 * firing. Orders that never became terminal are left out (the liveness invariant reports them).
 */
export function recoveryLatencies(
  faults: readonly FaultEvent[],
  orders: readonly OrderOutcome[],
  kind?: FaultKind,
): number[] {
  const firstHit = new Map<string, number>();
  for (const event of faults) {
    if (kind !== undefined && event.kind !== kind) continue;
    for (const orderId of event.orderIds) {
      const seen = firstHit.get(orderId);
      if (seen === undefined || event.at < seen) firstHit.set(orderId, event.at);
    }
  }
  const latencies: number[] = [];
  for (const order of orders) {
    const hit = firstHit.get(order.orderId);
    if (hit !== undefined && order.terminalAt !== undefined) {
      latencies.push(Math.max(0, order.terminalAt - hit));
    }
  }
  return latencies;
}
