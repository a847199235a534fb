/**
 * The order flow's terminal counts (DESIGN.md, Alarms and the metric contract), decided from one
 * stream record of the state table: the status notifier sees every transition exactly once in
 * order, so this is where "processed", "failed" and "compensated" are counted, once each.
 */
import { OrderMetric, ProcessState } from '../contracts';
import type { StatusChange } from './client-status';

/** One metric value the transition is reported as. */
export interface FlowMeasurement {
  readonly metric: OrderMetric;
  readonly value: number;
  readonly unit: 'Count' | 'Seconds';
}

const TERMINAL_METRIC: Readonly<Partial<Record<string, OrderMetric>>> = {
  [ProcessState.Processed]: OrderMetric.OrdersProcessed,
  [ProcessState.Error]: OrderMetric.OrdersFailed,
  [ProcessState.Compensated]: OrderMetric.OrdersCompensated,
  [ProcessState.CompensationFailed]: OrderMetric.CompensationsFailed,
};

/**
 * What a change is counted as: nothing unless it moves the record into a terminal state. An order
 * that reached Processed after at least one failed attempt also reports its recovery time: from
 * its submission to Processed (the record keeps no first-failure time, so the window includes its
 * first attempt; DESIGN.md says why).
 */
export function flowMeasurements(change: StatusChange): FlowMeasurement[] {
  const image = change.newImage;
  if (change.eventName !== 'MODIFY' || image === undefined) return [];
  if (change.oldImage?.processState === image.processState) return [];
  const metric = TERMINAL_METRIC[image.processState];
  if (metric === undefined) return [];
  const measurements: FlowMeasurement[] = [{ metric, value: 1, unit: 'Count' }];
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
