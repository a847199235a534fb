/**
 * A STALL-ONCE order as inspect answers it, for the console's pure modules' tests (the timeline and
 * the chart read the same order): attempt 1's payment call timed out, attempt 2 completed it.
 */
import {
  type OperatorAttemptView,
  type OperatorOrderDetailBody,
  ProcessState,
  StepRunOutcome,
  StepRunsRead,
  StepStatus,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';

export const t = (second: number) => `2026-12-02T04:00:${String(second).padStart(2, '0')}.000Z`;

/** A STALL-ONCE order as inspect answers it: attempt 1's payment timed out, attempt 2 completed it. */
export function stalledOrder(attempts: readonly OperatorAttemptView[]): OperatorOrderDetailBody {
  return {
    orderId: 'order-1',
    processState: ProcessState.Processed,
    attempt: attempts.length,
    failureCount: 1,
    compensationFailureCount: 0,
    workflowVersion: 1,
    createdAt: t(0),
    updatedAt: t(50),
    // The record keeps only the latest run of each step.
    steps: [
      { name: 'ReserveInventory', status: StepStatus.Completed, startedAt: t(2), completedAt: t(3) },
      { name: 'ChargePayment', status: StepStatus.Completed, startedAt: t(31), completedAt: t(32) },
    ],
    compensationLog: [],
    attempts,
    alerts: [],
    operatorLog: [],
  };
}

export const first: OperatorAttemptView = {
  attempt: 1,
  executionName: 'order-1--attempt-1',
  status: 'SUCCEEDED',
  startDate: t(1),
  stopDate: t(12),
  stepRunsRead: StepRunsRead.All,
  stepRuns: [
    {
      step: 'ReserveInventory',
      action: 'perform',
      outcome: StepRunOutcome.Completed,
      startedAt: t(2),
      endedAt: t(3),
    },
    {
      step: 'ChargePayment',
      action: 'perform',
      outcome: StepRunOutcome.TimedOut,
      startedAt: t(4),
      endedAt: t(10),
      error: 'States.Timeout',
    },
  ],
};
export const second: OperatorAttemptView = {
  attempt: 2,
  executionName: 'order-1--attempt-2',
  status: 'SUCCEEDED',
  startDate: t(30),
  stopDate: t(40),
  stepRunsRead: StepRunsRead.All,
  stepRuns: [
    {
      step: 'ChargePayment',
      action: 'perform',
      outcome: StepRunOutcome.Completed,
      startedAt: t(31),
      endedAt: t(32),
    },
  ],
};
