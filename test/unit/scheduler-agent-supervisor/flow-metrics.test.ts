import { OrderMetric, ProcessState } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import type { StatusChange } from '../../../lambdas/scheduler-agent-supervisor/domain/client-status';
import { flowMeasurements } from '../../../lambdas/scheduler-agent-supervisor/domain/flow-metrics';

const image = (processState: string, extra: Partial<NonNullable<StatusChange['newImage']>> = {}) => ({
  orderId: 'o-1',
  processState,
  updatedAt: '2030-01-01T00:10:00.000Z',
  createdAt: '2030-01-01T00:00:00.000Z',
  failureCount: 0,
  ...extra,
});

const modify = (from: string, to: ReturnType<typeof image>): StatusChange => ({
  eventName: 'MODIFY',
  oldImage: { processState: from },
  newImage: to,
});

describe('flow measurements: once per transition into a terminal state', () => {
  it.each([
    [ProcessState.Processing, ProcessState.Processed, OrderMetric.OrdersProcessed],
    [ProcessState.Processing, ProcessState.Error, OrderMetric.OrdersFailed],
    [ProcessState.CompensationInProgress, ProcessState.Compensated, OrderMetric.OrdersCompensated],
    [ProcessState.CompensationInProgress, ProcessState.CompensationFailed, OrderMetric.CompensationsFailed],
  ])('%s -> %s counts %s once', (from, to, metric) => {
    expect(flowMeasurements(modify(from, image(to)))).toEqual([{ metric, value: 1, unit: 'Count' }]);
  });

  it('counts nothing for a write within a state, a non-terminal transition, an insert or a removal', () => {
    expect(flowMeasurements(modify(ProcessState.Processed, image(ProcessState.Processed)))).toEqual([]);
    expect(flowMeasurements(modify(ProcessState.Processing, image(ProcessState.Pending)))).toEqual([]);
    expect(flowMeasurements({ eventName: 'INSERT', newImage: image(ProcessState.Pending) })).toEqual([]);
    expect(
      flowMeasurements({ eventName: 'REMOVE', oldImage: { processState: ProcessState.Processed } }),
    ).toEqual([]);
  });

  it('reports the recovery time of an order that needed more than one attempt: submission to Processed', () => {
    expect(
      flowMeasurements(modify(ProcessState.Processing, image(ProcessState.Processed, { failureCount: 2 }))),
    ).toEqual([
      { metric: OrderMetric.OrdersProcessed, value: 1, unit: 'Count' },
      { metric: OrderMetric.RecoveryTimeSeconds, value: 600, unit: 'Seconds' },
    ]);
  });

  it('reports no recovery time for a first-attempt success or an unreadable creation time', () => {
    expect(flowMeasurements(modify(ProcessState.Processing, image(ProcessState.Processed)))).toHaveLength(1);
    expect(
      flowMeasurements(
        modify(ProcessState.Processing, image(ProcessState.Processed, { failureCount: 1, createdAt: 'x' })),
      ),
    ).toHaveLength(1);
  });
});
