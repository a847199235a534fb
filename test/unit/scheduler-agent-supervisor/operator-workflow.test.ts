/**
 * GET /operator/orders/{orderId}/workflow's decisions (domain/operator-workflow.ts): which execution
 * is read (the latest attempt's, on the record's version, bounded as inspect's), and what is
 * answered without one; and the path's derivation from a history (adapters/execution-workflow.ts
 * workflowPathOf) where the local runtime's does not reach: a retried task, a timeout, a long cause.
 */
import type { HistoryEvent } from '@aws-sdk/client-sfn';
import { workflowPathOf } from '../../../lambdas/scheduler-agent-supervisor/adapters/execution-workflow';
import {
  OPERATOR_HISTORY_MAX_PAGES,
  OPERATOR_HISTORY_PAGE_SIZE,
  type OperatorWorkflowExecution,
  WORKFLOW_CAUSE_MAX_CHARS,
  WorkflowUnavailable,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { orderWorkflow } from '../../../lambdas/scheduler-agent-supervisor/domain/operator-workflow';
import type {
  ExecutionWorkflows,
  OperatorRecordView,
} from '../../../lambdas/scheduler-agent-supervisor/domain/ports';

const record = (attempt: number) =>
  ({
    orderId: 'o-1',
    processState: 'Processing',
    attempt,
    workflowVersion: 3,
  }) as unknown as OperatorRecordView;
const execution: OperatorWorkflowExecution = {
  name: 'o-1--attempt-2',
  status: 'RUNNING',
  definition: '{}',
  path: [],
  pathComplete: true,
};

describe('orderWorkflow', () => {
  function deps(view: OperatorRecordView | undefined, found: OperatorWorkflowExecution | undefined) {
    const calls: unknown[][] = [];
    const workflows: ExecutionWorkflows = {
      workflow: async (...args) => {
        calls.push(args);
        return found;
      },
    };
    return { calls, deps: { records: { view: async () => view }, workflows } };
  }

  it("reads the latest attempt's execution on the record's version, bounded as inspect's", async () => {
    const { calls, deps: d } = deps(record(2), execution);
    expect(await orderWorkflow('o-1', d)).toEqual({
      orderId: 'o-1',
      processState: 'Processing',
      workflowVersion: 3,
      attempt: 2,
      execution,
    });
    expect(calls).toEqual([
      ['o-1--attempt-2', 3, { pageSize: OPERATOR_HISTORY_PAGE_SIZE, maxPages: OPERATOR_HISTORY_MAX_PAGES }],
    ]);
  });

  it('answers undefined for an unknown order, NotStarted before any attempt (reading nothing), NotFound for a gone execution', async () => {
    expect(await orderWorkflow('o-1', deps(undefined, execution).deps)).toBeUndefined();
    const notStarted = deps(record(0), execution);
    expect(await orderWorkflow('o-1', notStarted.deps)).toMatchObject({
      attempt: 0,
      unavailable: WorkflowUnavailable.NotStarted,
    });
    expect(notStarted.calls).toEqual([]);
    expect(await orderWorkflow('o-1', deps(record(1), undefined).deps)).toMatchObject({
      unavailable: WorkflowUnavailable.NotFound,
    });
  });
});

/** Events as GetExecutionHistory answers them without execution data, each naming the one before. */
function history(...events: Omit<HistoryEvent, 'id' | 'timestamp' | 'previousEventId'>[]): HistoryEvent[] {
  return events.map((event, index) => ({
    id: index + 1,
    previousEventId: index,
    timestamp: new Date(Date.UTC(2026, 11, 2, 4, 0, index)),
    ...event,
  }));
}

const task = { resourceType: 'sqs', resource: 'sendMessage.waitForTaskToken' };

describe('workflowPathOf', () => {
  it('a task retried after a failure that then succeeds has no error; a timed-out one caught to a Fail state is caught, the Fail state failed with the execution error', () => {
    const events = history(
      { type: 'ExecutionStarted' },
      { type: 'TaskStateEntered', stateEnteredEventDetails: { name: 'Call' } },
      { type: 'TaskScheduled' },
      {
        type: 'TaskFailed',
        taskFailedEventDetails: { ...task, error: 'Agent.TransientFailure', cause: 'busy' },
      },
      { type: 'TaskScheduled' },
      { type: 'TaskSucceeded' },
      { type: 'TaskStateExited', stateExitedEventDetails: { name: 'Call' } },
      { type: 'TaskStateEntered', stateEnteredEventDetails: { name: 'Wait' } },
      { type: 'TaskScheduled' },
      {
        type: 'TaskTimedOut',
        taskTimedOutEventDetails: { ...task, error: 'States.Timeout', cause: 'x'.repeat(900) },
      },
      { type: 'TaskStateExited', stateExitedEventDetails: { name: 'Wait' } },
      { type: 'FailStateEntered', stateEnteredEventDetails: { name: 'AttemptAbandoned' } },
      {
        type: 'ExecutionFailed',
        executionFailedEventDetails: { error: 'AttemptAbandoned', cause: 'gave up' },
      },
    );
    const [call, wait, fail] = workflowPathOf(events, false);
    expect(call).toMatchObject({ name: 'Call', outcome: 'Succeeded', next: 'Wait' });
    expect(call?.error).toBeUndefined();
    expect(wait).toMatchObject({
      name: 'Wait',
      outcome: 'Caught',
      error: 'States.Timeout',
      next: 'AttemptAbandoned',
    });
    expect(wait?.cause).toHaveLength(WORKFLOW_CAUSE_MAX_CHARS);
    expect(fail).toMatchObject({
      name: 'AttemptAbandoned',
      type: 'Fail',
      outcome: 'Failed',
      error: 'AttemptAbandoned',
      cause: 'gave up',
    });
  });

  it('an uncaught task failure fails the state with its own error; a state not exited is running while the execution runs', () => {
    const failed = history(
      { type: 'TaskStateEntered', stateEnteredEventDetails: { name: 'Call' } },
      { type: 'TaskFailed', taskFailedEventDetails: { ...task, error: 'Boom' } },
      { type: 'ExecutionFailed', executionFailedEventDetails: { error: 'Boom', cause: 'the execution' } },
    );
    expect(workflowPathOf(failed, false)).toEqual([
      expect.objectContaining({ name: 'Call', outcome: 'Failed', error: 'Boom' }),
    ]);
    const running = history({ type: 'TaskStateEntered', stateEnteredEventDetails: { name: 'Call' } });
    expect(workflowPathOf(running, true)).toEqual([
      expect.objectContaining({ name: 'Call', outcome: 'Running' }),
    ]);
  });
});
