/**
 * Gauges the supervisor measures after each sweep (DESIGN.md, Alarms and the metric contract):
 * orders in Error, compensations that stopped progressing, and the age of the oldest order in
 * flight. Each is a bounded read of the StateIndex, never a Scan; a reading that stops at its cap
 * reports what it saw (a lower bound, enough for an alarm on "> 0") and says so.
 */
import { isoAt } from '../../shared/clock';
import { ProcessState, SUPERVISED_STATES } from '../contracts';
import type { OrderGaugeReader } from './ports';

export interface OrderGaugeSettings {
  /** A CompensationInProgress record not updated for this long is stuck (compensationStuckAfterSeconds). */
  readonly compensationStuckAfterSeconds: number;
  /** Most index entries one gauge reads. */
  readonly cap: number;
}

export interface OrderGauges {
  readonly ordersInError: number;
  readonly compensationsStuck: number;
  /** Seconds since the oldest non-terminal order was created; 0 when none is in flight. */
  readonly oldestInFlightAgeSeconds: number;
  /** The gauges whose reading stopped at the cap (their values are lower bounds). */
  readonly capped: readonly string[];
}

/** Default cap of one gauge's reading: far above the admission limit of any profile. */
export const DEFAULT_GAUGE_CAP = 10_000;

export async function measureOrderGauges(
  reader: OrderGaugeReader,
  now: number,
  settings: OrderGaugeSettings,
): Promise<OrderGauges> {
  const [inError, stuck, oldest] = await Promise.all([
    reader.countInState(ProcessState.Error, { cap: settings.cap }),
    reader.countInState(ProcessState.CompensationInProgress, {
      updatedBefore: isoAt(now - settings.compensationStuckAfterSeconds * 1000),
      cap: settings.cap,
    }),
    reader.earliestCreatedAt(SUPERVISED_STATES, settings.cap),
  ]);
  const createdAt = oldest.createdAt === undefined ? undefined : Date.parse(oldest.createdAt);
  const capped = [
    ...(inError.capped ? ['ordersInError'] : []),
    ...(stuck.capped ? ['compensationsStuck'] : []),
    ...(oldest.capped ? ['oldestInFlightAgeSeconds'] : []),
  ];
  return {
    ordersInError: inError.count,
    compensationsStuck: stuck.count,
    oldestInFlightAgeSeconds:
      createdAt === undefined || Number.isNaN(createdAt)
        ? 0
        : Math.max(0, Math.floor((now - createdAt) / 1000)),
    capped,
  };
}
