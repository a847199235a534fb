import {
  OrderMetric,
  ProcessState,
  STATE_DIMENSION,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
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

const entered = (state: string) => ({
  metric: OrderMetric.OrdersEnteredState,
  value: 1,
  unit: 'Count',
  dimension: { name: STATE_DIMENSION, value: state },
});

describe('flow measurements: once per transition into a terminal state', () => {
  it.each([
    [ProcessState.Processing, ProcessState.Processed, OrderMetric.OrdersProcessed],
    [ProcessState.Processing, ProcessState.Error, OrderMetric.OrdersFailed],
    [ProcessState.CompensationInProgress, ProcessState.Compensated, OrderMetric.OrdersCompensated],
    [ProcessState.CompensationInProgress, ProcessState.CompensationFailed, OrderMetric.CompensationsFailed],
  ])('%s -> %s counts %s once', (from, to, metric) => {
    expect(flowMeasurements(modify(from, image(to)))).toEqual([
      { metric, value: 1, unit: 'Count' },
      entered(to),
    ]);
  });

  it('counts no terminal metric for a non-terminal transition, an insert or a removal', () => {
    expect(flowMeasurements(modify(ProcessState.Processing, image(ProcessState.Pending)))).toEqual([
      entered(ProcessState.Pending),
    ]);
    expect(flowMeasurements({ eventName: 'INSERT', newImage: image(ProcessState.Pending) })).toEqual([
      entered(ProcessState.Pending),
    ]);
    expect(
      flowMeasurements({ eventName: 'REMOVE', oldImage: { processState: ProcessState.Processed } }),
    ).toEqual([]);
  });

  it('reports the recovery time of an order that needed more than one attempt: submission to Processed', () => {
    expect(
      flowMeasurements(modify(ProcessState.Processing, image(ProcessState.Processed, { failureCount: 2 }))),
    ).toEqual([
      { metric: OrderMetric.OrdersProcessed, value: 1, unit: 'Count' },
      entered(ProcessState.Processed),
      { metric: OrderMetric.RecoveryTimeSeconds, value: 600, unit: 'Seconds' },
    ]);
  });

  it('reports no recovery time for a first-attempt success or an unreadable creation time', () => {
    const processed = [
      { metric: OrderMetric.OrdersProcessed, value: 1, unit: 'Count' },
      entered('Processed'),
    ];
    expect(flowMeasurements(modify(ProcessState.Processing, image(ProcessState.Processed)))).toEqual(
      processed,
    );
    expect(
      flowMeasurements(
        modify(ProcessState.Processing, image(ProcessState.Processed, { failureCount: 1, createdAt: 'x' })),
      ),
    ).toEqual(processed);
  });
});

describe('orders entering a state: every state, once per transition', () => {
  it.each(Object.values(ProcessState))('a change into %s counts that state once', (state) => {
    const from = state === ProcessState.Pending ? ProcessState.Processing : ProcessState.Pending;
    const measured = flowMeasurements(modify(from, image(state)));
    expect(measured.filter((m) => m.metric === OrderMetric.OrdersEnteredState)).toEqual([entered(state)]);
  });

  it('counts the first state when the record is created', () => {
    expect(flowMeasurements({ eventName: 'INSERT', newImage: image(ProcessState.Pending) })).toEqual([
      entered(ProcessState.Pending),
    ]);
  });

  it('counts nothing for a write within a state (a step completed, a lock, the outbox) or a removal', () => {
    expect(flowMeasurements(modify(ProcessState.Processing, image(ProcessState.Processing)))).toEqual([]);
    expect(flowMeasurements(modify(ProcessState.Processed, image(ProcessState.Processed)))).toEqual([]);
    expect(
      flowMeasurements({ eventName: 'REMOVE', oldImage: { processState: ProcessState.Pending } }),
    ).toEqual([]);
  });
});
