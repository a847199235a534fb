/**
 * Recovery latency, for every campaign: how long a subject (an order, a delivery) took from the first
 * fault that hit it to its terminal state.
 */

/** A fault firing as the latency measure sees it: its kind, when, and the ids (orders, deliveries) it hit. */
export interface Hit {
  readonly kind: string;
  readonly at: number;
  readonly ids: readonly string[];
}

/** When a subject (order, delivery) became terminal; absent if it never did. */
export interface Finish {
  readonly id: string;
  readonly terminalAt?: number | undefined;
}

/**
 * Per subject hit by a fault (of the given kind, or of any kind): terminal time minus the first
 * firing. Subjects that never became terminal are left out (the liveness invariant reports them).
 */
export function latenciesFromFirstHit(
  hits: readonly Hit[],
  finishes: readonly Finish[],
  kind?: string,
): number[] {
  const firstHit = new Map<string, number>();
  for (const hit of hits) {
    if (kind !== undefined && hit.kind !== kind) continue;
    for (const id of hit.ids) {
      const seen = firstHit.get(id);
      if (seen === undefined || hit.at < seen) firstHit.set(id, hit.at);
    }
  }
  const latencies: number[] = [];
  for (const finish of finishes) {
    const hit = firstHit.get(finish.id);
    if (hit !== undefined && finish.terminalAt !== undefined) {
      latencies.push(Math.max(0, finish.terminalAt - hit));
    }
  }
  return latencies;
}
