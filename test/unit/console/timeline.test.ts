/** The order view's timeline (console/src/timeline.ts): every attempt's step runs, in time order. */
import { timelineOf } from '../../../console/src/timeline';
import {
  type OperatorAttemptView,
  StepRunOutcome,
  StepRunsRead,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { first, second, stalledOrder, t } from './stalled-order';

describe('order timeline', () => {
  it("shows each attempt's step runs, the timed-out one included, rather than the record's latest run only", () => {
    const steps = timelineOf(stalledOrder([first, second]))
      .filter((entry) => entry.kind === 'step' || entry.kind === 'attempt')
      .map((entry) => entry.text);
    expect(steps).toEqual([
      'Attempt 1 started',
      'Attempt 1: ReserveInventory started',
      'Attempt 1: ReserveInventory completed',
      'Attempt 1: ChargePayment started',
      'Attempt 1: ChargePayment timed out (States.Timeout)',
      'Attempt 1 ended: SUCCEEDED',
      'Attempt 2 started',
      'Attempt 2: ChargePayment started',
      'Attempt 2: ChargePayment completed',
      'Attempt 2 ended: SUCCEEDED',
    ]);
  });

  it('shows a compensation run as a compensation, and a run that never ended as started only', () => {
    const attempt: OperatorAttemptView = {
      ...first,
      status: 'RUNNING',
      stopDate: undefined,
      stepRuns: [
        {
          step: 'ReserveInventory',
          action: 'compensate',
          outcome: StepRunOutcome.Completed,
          startedAt: t(5),
          endedAt: t(6),
        },
        { step: 'ChargePayment', action: 'compensate', outcome: StepRunOutcome.Started, startedAt: t(7) },
      ],
    };
    const entries = timelineOf(stalledOrder([attempt])).filter((entry) => entry.kind === 'compensation');
    expect(entries.map((entry) => entry.text)).toEqual([
      'Attempt 1: undo ReserveInventory started',
      'Attempt 1: ReserveInventory: compensated',
      'Attempt 1: undo ChargePayment started',
    ]);
  });

  it('says which attempts it has no runs of (older than inspect reads) and which were cut short', () => {
    const texts = timelineOf(
      stalledOrder([
        { ...first, stepRuns: [], stepRunsRead: StepRunsRead.NotRead },
        { ...second, stepRunsRead: StepRunsRead.Truncated },
      ]),
    ).map((entry) => entry.text);
    expect(texts).toContain('Attempt 1: step runs not read (inspect reads the most recent attempts only)');
    expect(texts).toContain('Attempt 2: history longer than inspect reads, later step runs not shown');
    expect(texts).not.toContain('Attempt 1: ChargePayment timed out (States.Timeout)');
  });

  it("falls back to the record's steps when no attempt's history was read", () => {
    const notRead = (attempt: OperatorAttemptView) => ({
      ...attempt,
      stepRuns: [],
      stepRunsRead: StepRunsRead.NotRead,
    });
    const steps = timelineOf(stalledOrder([notRead(first), notRead(second)]))
      .filter((entry) => entry.kind === 'step')
      .map((entry) => entry.text);
    expect(steps).toEqual([
      'ReserveInventory started',
      'ReserveInventory completed',
      'ChargePayment started',
      'ChargePayment completed',
    ]);
  });
});
