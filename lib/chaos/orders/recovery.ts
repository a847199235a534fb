/**
 * Recovery latency: how long an order (or a delivery) took from the first fault that hit it to its
 * terminal state. Shared by every campaign; percentiles and summaries are the harness's (stats.ts).
 */

import { latenciesFromFirstHit } from '../common/recovery';
import type { OrderOutcome } from './campaign-snapshot';
import type { FaultEvent, FaultKind } from './faults';

/** latenciesFromFirstHit for the order campaign's fault log and orders. */
export function recoveryLatencies(
  faults: readonly FaultEvent[],
  orders: readonly OrderOutcome[],
  kind?: FaultKind,
): number[] {
  return latenciesFromFirstHit(
    faults.map((event) => ({ kind: event.kind, at: event.at, ids: event.orderIds })),
    orders.map((order) => ({ id: order.orderId, terminalAt: order.terminalAt })),
    kind,
  );
}
