/** The order's timeline chart data (console/src/order-chart.ts): lanes, bars and marks from inspect's answer. */
import { orderChartOf } from '../../../console/src/order-chart';
import {
  type OperatorAttemptView,
  StepRunOutcome,
  StepRunsRead,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { first, second, stalledOrder, t } from './stalled-order';

const at = (second: number) => Date.parse(t(second));

describe('order timeline chart', () => {
  it('draws a STALL-ONCE order as two attempt lanes, the first with its timed-out payment, and the reset between them', () => {
    const chart = orderChartOf(stalledOrder([first, second]));
    expect(chart.lanes.map((lane) => [lane.id, lane.bars.map((bar) => bar.outcome)])).toEqual([
      ['attempt-1', ['completed', 'timed-out']],
      ['attempt-2', ['completed']],
    ]);
    expect(chart.lanes[0]?.bars[1]).toMatchObject({
      start: at(4),
      end: at(10),
      detail: `Attempt 1: ChargePayment timed out (States.Timeout); ${t(4)} to ${t(10)} (6 s)`,
    });
    expect(chart.marks).toEqual([
      {
        id: 'reset-2',
        kind: 'reset',
        at: at(30),
        detail: `Supervisor reset attempt 1 (by ${t(30)}, when attempt 2 started)`,
      },
    ]);
    // What the axis must show (the page draws timeAxisOf over the spans): from the order's creation
    // to its last change, the attempts' spans among the rest.
    const starts = chart.spans.map(([start]) => start);
    const ends = chart.spans.map(([, end]) => end);
    expect([Math.min(...starts), Math.max(...ends)]).toEqual([at(0), at(50)]);
    expect(chart.spans).toEqual(
      expect.arrayContaining([
        [at(1), at(12)],
        [at(30), at(40)],
      ]),
    );
  });

  it("puts the compensation's calls in a lane of their own, compensated or not ended", () => {
    const compensating: OperatorAttemptView = {
      ...second,
      status: 'RUNNING',
      stopDate: undefined,
      stepRuns: [
        {
          step: 'ChargePayment',
          action: 'compensate',
          outcome: StepRunOutcome.Completed,
          startedAt: t(33),
          endedAt: t(34),
        },
        { step: 'ReserveInventory', action: 'compensate', outcome: StepRunOutcome.Started, startedAt: t(35) },
      ],
    };
    const chart = orderChartOf(stalledOrder([first, compensating]));
    expect(chart.lanes.map((lane) => lane.id)).toEqual(['attempt-1', 'attempt-2', 'compensation']);
    expect(chart.lanes[1]?.bars).toEqual([]);
    expect(chart.lanes[2]?.bars.map((bar) => [bar.outcome, bar.end])).toEqual([
      ['compensated', at(34)],
      // Not ended: drawn to the end of what is known.
      ['started', at(50)],
    ]);
  });

  it("marks the operators' actions and the alerts, and an attempt an operator started is no reset", () => {
    const order = {
      ...stalledOrder([first, second]),
      alerts: [{ at: t(20), type: 'OrderFailed', eventId: 'event-1', detail: {} }],
      operatorLog: [
        {
          action: 'retry',
          by: 'alice',
          reason: 'provider back',
          at: t(25),
          seenState: 'Error',
          seenUpdatedAt: t(20),
          newState: 'Pending',
        },
      ],
      lastError: { source: 'supervisor', error: 'FailureThresholdReached', cause: '3 attempts', at: t(19) },
    };
    expect(orderChartOf(order).marks.map((mark) => [mark.kind, mark.at])).toEqual([
      ['reset', at(19)],
      ['alert', at(20)],
      ['operator', at(25)],
    ]);
  });

  it('keeps a lane for an attempt whose step runs were not read, saying so', () => {
    const chart = orderChartOf(
      stalledOrder([{ ...first, stepRuns: [], stepRunsRead: StepRunsRead.NotRead }, second]),
    );
    expect(chart.lanes.map((lane) => [lane.label, lane.bars.length])).toEqual([
      ['Attempt 1 (step runs not read)', 0],
      ['Attempt 2', 1],
    ]);
  });
});
