/**
 * The order flow's counts (DESIGN.md, Alarms and the metric contract), decided from one stream
 * record of the state table: the status notifier sees every transition exactly once in order, so
 * this is where "processed", "failed" and "compensated" are counted, once each, and where every
 * entry into a state is counted (OrdersEnteredState, by `state`: the console's dashboard of the
 * last hour reads it).
 */
import { OrderMetric, ProcessState, STATE_DIMENSION } from '../contracts';
import type { StatusChange } from './client-status';

/** One metric value the transition is reported as. */
export interface FlowMeasurement {
  readonly metric: OrderMetric;
  readonly value: number;
  readonly unit: 'Count' | 'Seconds';
  /** The metric's own dimension besides `service` (OrdersEnteredState's `state`). */
  readonly dimension?: { readonly name: string; readonly value: string };
}

const TERMINAL_METRIC: Readonly<Partial<Record<string, OrderMetric>>> = {
  [ProcessState.Processed]: OrderMetric.OrdersProcessed,
  [ProcessState.Error]: OrderMetric.OrdersFailed,
  [ProcessState.Compensated]: OrderMetric.OrdersCompensated,
  [ProcessState.CompensationFailed]: OrderMetric.CompensationsFailed,
};

/**
 * What a change is counted as: nothing unless it moves the record into a state (its creation, or a
 * change of ProcessState), which counts OrdersEnteredState for that state; a terminal state also
 * counts its terminal metric. An order that reached Processed after at least one failed attempt
 * also reports its recovery time: from its submission to Processed (the record keeps no
 * first-failure time, so the window includes its first attempt; DESIGN.md says why).
 */
export function flowMeasurements(change: StatusChange): FlowMeasurement[] {
  const image = change.newImage;
  if (image === undefined) return [];
  if (change.eventName === 'INSERT') return [enteredState(image.processState)];
  if (change.eventName !== 'MODIFY') return [];
  if (change.oldImage?.processState === image.processState) return [];
  const entered = enteredState(image.processState);
  const metric = TERMINAL_METRIC[image.processState];
  if (metric === undefined) return [entered];
  const measurements: FlowMeasurement[] = [{ metric, value: 1, unit: 'Count' }, entered];
  if (image.processState === ProcessState.Processed && (image.failureCount ?? 0) >= 1) {
    const from = Date.parse(image.createdAt ?? '');
    const to = Date.parse(image.updatedAt);
    if (!Number.isNaN(from) && !Number.isNaN(to) && to >= from) {
      measurements.push({
        metric: OrderMetric.RecoveryTimeSeconds,
        value: Math.round((to - from) / 1000),
        unit: 'Seconds',
      });
    }
  }
  return measurements;
}

function enteredState(state: string): FlowMeasurement {
  return {
    metric: OrderMetric.OrdersEnteredState,
    value: 1,
    unit: 'Count',
    dimension: { name: STATE_DIMENSION, value: state },
  };
}
