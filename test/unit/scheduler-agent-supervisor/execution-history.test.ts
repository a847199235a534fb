import type { HistoryEvent } from '@aws-sdk/client-sfn';
import { stepRunsOf } from '../../../lambdas/scheduler-agent-supervisor/adapters/execution-history';
import {
  agentCallOfStateName,
  agentCallStateName,
  STEP_NAMES,
  StepRunOutcome,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';

/** Events as GetExecutionHistory answers them (includeExecutionData false): ids from 1, each naming the one before. */
function history(...events: Omit<HistoryEvent, 'id' | 'timestamp'>[]): HistoryEvent[] {
  return events.map((event, index) => ({
    id: index + 1,
    previousEventId: index,
    timestamp: new Date(Date.UTC(2026, 11, 2, 4, 0, index)),
    ...event,
  }));
}
const at = (second: number) => new Date(Date.UTC(2026, 11, 2, 4, 0, second)).toISOString();
const resource = { resourceType: 'sqs', resource: 'sendMessage.waitForTaskToken' };
const entered = (name: string): Omit<HistoryEvent, 'id' | 'timestamp'> => ({
  type: 'TaskStateEntered',
  stateEnteredEventDetails: { name },
});
const exited = (name: string): Omit<HistoryEvent, 'id' | 'timestamp'> => ({
  type: 'TaskStateExited',
  stateExitedEventDetails: { name },
});
const called = [
  {
    type: 'TaskScheduled',
    taskScheduledEventDetails: { ...resource, region: 'us-east-1', parameters: '{}' },
  },
  { type: 'TaskStarted', taskStartedEventDetails: resource },
  { type: 'TaskSubmitted', taskSubmittedEventDetails: resource },
] as const satisfies Omit<HistoryEvent, 'id' | 'timestamp'>[];

describe('agent-call state names', () => {
  it('name the perform and compensate calls of every step, and read back as the same step and action', () => {
    for (const step of STEP_NAMES) {
      expect(agentCallOfStateName(agentCallStateName(step, 'perform'))).toEqual({ step, action: 'perform' });
      expect(agentCallOfStateName(agentCallStateName(step, 'compensate'))).toEqual({
        step,
        action: 'compensate',
      });
    }
    expect(agentCallStateName('ChargePayment', 'compensate')).toBe('ChargePayment.Undo.CallAgent');
  });

  it('are not any other state, nor a call of an unknown step', () => {
    for (const name of [
      'ChargePayment.MarkRunning',
      'ChargePayment.Undo.MarkCompensated',
      'BakeCake.CallAgent',
      'ChargePayment.CallAgentX',
      'XChargePayment.CallAgent',
    ]) {
      expect(agentCallOfStateName(name)).toBeUndefined();
    }
  });
});

describe('stepRunsOf (GetExecutionHistory events -> the agent calls of one attempt)', () => {
  it('maps a completed call, a timed-out one and the compensation that followed, skipping every other state', () => {
    const events = history(
      { type: 'ExecutionStarted', executionStartedEventDetails: { roleArn: 'arn:aws:iam::1:role/r' } },
      entered('ReserveInventory.MarkRunning'), // 2: a DynamoDB task, not an agent call
      {
        type: 'TaskScheduled',
        taskScheduledEventDetails: { ...resource, region: 'us-east-1', parameters: '{}' },
      },
      { type: 'TaskSucceeded', taskSucceededEventDetails: resource },
      exited('ReserveInventory.MarkRunning'),
      entered('ReserveInventory.CallAgent'), // 6
      ...called,
      { type: 'TaskSucceeded', taskSucceededEventDetails: resource }, // 10
      exited('ReserveInventory.CallAgent'),
      entered('ChargePayment.CallAgent'), // 12
      ...called,
      {
        type: 'TaskTimedOut',
        taskTimedOutEventDetails: { ...resource, error: 'States.Timeout', cause: 'no answer' },
      }, // 16
      exited('ChargePayment.CallAgent'),
      entered('ReserveInventory.Undo.CallAgent'), // 18
      ...called,
      { type: 'TaskSucceeded', taskSucceededEventDetails: resource }, // 22
      exited('ReserveInventory.Undo.CallAgent'),
      { type: 'ExecutionSucceeded', executionSucceededEventDetails: {} },
    );
    expect(stepRunsOf(events)).toEqual([
      {
        step: 'ReserveInventory',
        action: 'perform',
        outcome: StepRunOutcome.Completed,
        startedAt: at(5),
        endedAt: at(9),
      },
      {
        step: 'ChargePayment',
        action: 'perform',
        outcome: StepRunOutcome.TimedOut,
        startedAt: at(11),
        endedAt: at(15),
        error: 'States.Timeout',
      },
      {
        step: 'ReserveInventory',
        action: 'compensate',
        outcome: StepRunOutcome.Completed,
        startedAt: at(17),
        endedAt: at(21),
      },
    ]);
  });

  it('keeps a call the execution stopped during as Started, and a failed one with its error', () => {
    const events = history(
      entered('ChargePayment.CallAgent'),
      ...called,
      {
        type: 'TaskFailed',
        taskFailedEventDetails: { ...resource, error: 'Agent.PermanentFailure', cause: 'refused' },
      },
      exited('ChargePayment.CallAgent'),
      entered('ReserveInventory.Undo.CallAgent'),
      ...called,
      { type: 'ExecutionAborted', executionAbortedEventDetails: {} },
    );
    expect(stepRunsOf(events)).toEqual([
      {
        step: 'ChargePayment',
        action: 'perform',
        outcome: StepRunOutcome.Failed,
        startedAt: at(0),
        endedAt: at(4),
        error: 'Agent.PermanentFailure',
      },
      { step: 'ReserveInventory', action: 'compensate', outcome: StepRunOutcome.Started, startedAt: at(6) },
    ]);
  });

  it("joins each task event to its own state's run by previousEventId, not by position (branches side by side)", () => {
    const time = (second: number) => new Date(Date.UTC(2026, 11, 2, 4, 0, second));
    const events: HistoryEvent[] = [
      { id: 1, previousEventId: 0, timestamp: time(0), ...entered('ReserveInventory.CallAgent') },
      { id: 2, previousEventId: 0, timestamp: time(0), ...entered('ChargePayment.CallAgent') },
      { id: 3, previousEventId: 1, timestamp: time(1), type: 'TaskScheduled' },
      { id: 4, previousEventId: 2, timestamp: time(1), type: 'TaskScheduled' },
      {
        id: 5,
        previousEventId: 4,
        timestamp: time(2),
        type: 'TaskFailed',
        taskFailedEventDetails: { ...resource, error: 'Agent.TransientFailure' },
      },
      { id: 6, previousEventId: 3, timestamp: time(3), type: 'TaskSucceeded' },
      // A task event whose chain starts at no agent call (a DynamoDB task) is no run's.
      { id: 7, previousEventId: 99, timestamp: time(4), type: 'TaskSucceeded' },
    ];
    expect(stepRunsOf(events).map((run) => [run.step, run.outcome, run.endedAt, run.error])).toEqual([
      ['ReserveInventory', StepRunOutcome.Completed, time(3).toISOString(), undefined],
      ['ChargePayment', StepRunOutcome.Failed, time(2).toISOString(), 'Agent.TransientFailure'],
    ]);
  });

  it('ends a retried call with its last task event', () => {
    const events = history(
      entered('ScheduleShipping.CallAgent'),
      { type: 'TaskScheduled' },
      { type: 'TaskFailed', taskFailedEventDetails: { ...resource, error: 'SQS.Throttled' } },
      { type: 'TaskScheduled' },
      { type: 'TaskSucceeded' },
    );
    expect(stepRunsOf(events)).toEqual([
      {
        step: 'ScheduleShipping',
        action: 'perform',
        outcome: StepRunOutcome.Completed,
        startedAt: at(0),
        endedAt: at(4),
      },
    ]);
  });

  it('has no runs for a history without agent calls', () => {
    expect(stepRunsOf(history(entered('Load'), exited('Load')))).toEqual([]);
    expect(stepRunsOf([])).toEqual([]);
  });
});
