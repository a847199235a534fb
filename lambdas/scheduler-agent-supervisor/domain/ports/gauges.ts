/**
 * What the gauges need (DESIGN.md, Alarms and the metric contract): bounded counts of records by state.
 */
import type { ProcessState } from '../../contracts';

/** A bounded count: `capped` when the reading stopped at its cap and more may exist. */
export interface BoundedCount {
  readonly count: number;
  readonly capped: boolean;
}

/** Bounded readings of the operators' StateIndex (ProcessState, UpdatedAt) for the gauges. */
export interface OrderGaugeReader {
  /** Records in `state` (last updated before `updatedBefore`, ISO, when given), counted up to `cap`. */
  countInState(
    state: ProcessState,
    options: { readonly updatedBefore?: string; readonly cap: number },
  ): Promise<BoundedCount>;
  /** The earliest CreatedAt (ISO) of the records in `states`, reading at most `cap` of them. */
  earliestCreatedAt(
    states: readonly ProcessState[],
    cap: number,
  ): Promise<{ readonly createdAt?: string; readonly capped: boolean }>;
}

/** The admission counters' sum (slots held: orders in flight). */
export interface InFlightReader {
  slotsHeld(shardKeys: readonly string[]): Promise<number>;
}
