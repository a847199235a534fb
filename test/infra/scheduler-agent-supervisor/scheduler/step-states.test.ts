import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { AgentError, AgentRequestSchema } from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import {
  agentCall,
  type CallbackTimings,
  stepStates,
  undoStates,
} from '../../../../lib/scheduler-agent-supervisor/scheduler/step-states';
import { StoreUpdates } from '../../../../lib/scheduler-agent-supervisor/scheduler/store-updates';
import { partsStack, renderStates, stateOf } from '../../support/state-graph';

const STEP = {
  name: 'Pack',
  service: 'packing',
  operationPath: '/packing/parcels',
  compensation: { name: 'UndoPack', operationPath: '/packing/parcels/undo' },
};
const TIMINGS: CallbackTimings = {
  stepTimeoutSeconds: 40,
  stepHeartbeatSeconds: 15,
  agentMaxCallAttempts: 3,
};

function build(timings: CallbackTimings = TIMINGS) {
  const { stack, stateTable } = partsStack();
  const queue = new sqs.Queue(stack, 'PackQueue');
  const fencedOut = new sfn.Succeed(stack, 'FencedOut');
  const built = stepStates(stack, {
    step: STEP,
    seq: 2,
    firstCompensation: 'LastUndo',
    queue,
    timings,
    updates: new StoreUpdates(stack, { stateTable, fencedOut }),
    next: new sfn.Succeed(stack, 'NextStep'),
    onPermanentFailure: new sfn.Succeed(stack, 'CompensationChainStandIn'),
    onAbandoned: new sfn.Fail(stack, 'AbandonedStandIn'),
  });
  const states = renderStates(stack, built.check);
  return { stack, queue, states, state: (name: string) => stateOf(states, name) };
}

describe('step states: one step of the scheduler', () => {
  it('Check skips the step when an earlier attempt completed it, else marks it Running', () => {
    const { state } = build();
    expect(state('Pack.Check')).toMatchObject({
      Type: 'Choice',
      Default: 'Pack.MarkRunning',
      Choices: [
        {
          And: [
            { Variable: '$.record.Item.Steps.M.Pack.M.Status.S', IsPresent: true },
            { Variable: '$.record.Item.Steps.M.Pack.M.Status.S', StringEquals: 'Completed' },
          ],
          Next: 'NextStep',
        },
      ],
    });
  });

  it('runs MarkRunning -> CallAgent -> MarkCompleted -> the next step', () => {
    const { state } = build();
    expect(state('Pack.MarkRunning').Next).toBe('Pack.CallAgent');
    expect(state('Pack.CallAgent').Next).toBe('Pack.MarkCompleted');
    expect(state('Pack.MarkCompleted').Next).toBe('NextStep');
    expect((state('Pack.MarkRunning').Parameters as { UpdateExpression: string }).UpdateExpression).toContain(
      '#steps.#step.#status = :running',
    );
    expect(
      (state('Pack.MarkCompleted').Parameters as { ExpressionAttributeNames: Record<string, string> })
        .ExpressionAttributeNames['#step'],
    ).toBe('Pack');
  });

  it('CallAgent waits for the task token on the step queue with the step TimeoutSeconds and HeartbeatSeconds', () => {
    const { stack, queue, state } = build();
    const queueRef = stack.resolve(queue.queueUrl) as { Ref: string };
    expect(state('Pack.CallAgent')).toMatchObject({
      Type: 'Task',
      Resource: expect.stringMatching(/:states:::sqs:sendMessage\.waitForTaskToken$/),
      TimeoutSeconds: 40,
      HeartbeatSeconds: 15,
      ResultPath: '$.results.Pack',
      Parameters: { QueueUrl: `{{Ref:${queueRef.Ref}}}` },
    });
    expect(state('Pack.CallAgent').Retry).toBeUndefined();
  });

  it('CallAgent sends the AgentRequest contract with the timings and a stable idempotency key', () => {
    const body = (state: ReturnType<typeof build>['state']) =>
      (state('Pack.CallAgent').Parameters as { MessageBody: Record<string, unknown> }).MessageBody;
    const message = body(build().state);
    expect(
      Object.keys(message)
        .map((key) => key.replace(/\.\$$/, ''))
        .sort(),
    ).toEqual(
      Object.keys(AgentRequestSchema.shape)
        // `undoes` is sent by compensation calls only, `markRunning` by lean and compact versions
        // only, `recordCompletion` by compact ones only.
        .filter((field) => field !== 'undoes' && field !== 'markRunning' && field !== 'recordCompletion')
        .sort(),
    );
    expect(message).toMatchObject({
      step: 'Pack',
      action: 'perform',
      operation: 'Pack',
      'idempotencyKey.$': "States.Format('{}:Pack', $.orderId)",
      'deadlineEpochMillis.$': 'States.StringToJson($.record.Item.Plan.M.Pack.N)',
      taskTimeoutSeconds: 40,
      heartbeatSeconds: 15,
      maxCallAttempts: 3,
    });
  });

  it('a permanent failure begins the compensation (step Failed, first compensation deadline); anything else abandons the attempt', () => {
    const { state } = build();
    expect(state('Pack.CallAgent').Catch).toEqual([
      {
        ErrorEquals: [AgentError.Permanent, AgentError.RetryBudgetExhausted],
        ResultPath: '$.error',
        Next: 'Pack.BeginCompensation',
      },
      { ErrorEquals: ['States.ALL'], ResultPath: '$.abandoned', Next: 'AbandonedStandIn' },
    ]);
    const begin = state('Pack.BeginCompensation');
    expect(begin.Next).toBe('CompensationChainStandIn');
    expect(begin.Comment).toContain('(transition beginCompensation)');
    expect(begin.Parameters).toMatchObject({
      ExpressionAttributeNames: { '#step': 'Pack' },
      ExpressionAttributeValues: {
        ':completeBy': { 'N.$': '$.record.Item.Plan.M.LastUndo.N' },
        ':lastError': { M: { Source: { S: 'Pack' } } },
      },
    });
  });

  it('MarkCompleted records the compensation log entry with the step position', () => {
    const { state } = build();
    expect(state('Pack.MarkCompleted').Parameters).toMatchObject({
      ExpressionAttributeValues: {
        ':compensationEntry': { M: { Seq: { N: '2' }, Compensation: { S: 'UndoPack' } } },
      },
    });
  });

  it('every store update ends in the fenced-out state when the lock is lost', () => {
    const { state } = build();
    for (const name of ['Pack.MarkRunning', 'Pack.MarkCompleted', 'Pack.BeginCompensation']) {
      expect(state(name).Catch?.map((c) => c.Next)).toEqual(['FencedOut']);
    }
  });

  describe('fails clearly', () => {
    const call = (timings: CallbackTimings) => () => {
      const { stack } = partsStack();
      agentCall(stack, { step: STEP, queue: new sqs.Queue(stack, 'Q'), timings });
    };

    it('fails when the heartbeat is not below the step timeout', () => {
      expect(call({ ...TIMINGS, stepHeartbeatSeconds: 40 })).toThrow(
        'Agent call Parts/Pack: stepHeartbeatSeconds (40) must be below stepTimeoutSeconds (40), or the heartbeat never fires',
      );
    });

    it('fails when a window or the call budget is not a positive integer', () => {
      expect(call({ ...TIMINGS, stepTimeoutSeconds: 0.5, agentMaxCallAttempts: 0 })).toThrow(
        'Agent call Parts/Pack: stepTimeoutSeconds must be a positive integer, got 0.5; agentMaxCallAttempts must be a positive integer, got 0',
      );
    });
  });
});

function buildUndo() {
  const { stack, stateTable } = partsStack();
  const queue = new sqs.Queue(stack, 'PackQueue');
  const fencedOut = new sfn.Succeed(stack, 'FencedOut');
  const built = undoStates(stack, {
    step: STEP,
    seq: 2,
    queue,
    timings: TIMINGS,
    updates: new StoreUpdates(stack, { stateTable, fencedOut }),
    next: new sfn.Succeed(stack, 'PreviousUndo'),
    onPermanentFailure: new sfn.Succeed(stack, 'AlertStandIn'),
    onAbandoned: new sfn.Fail(stack, 'AbandonedStandIn'),
  });
  const states = renderStates(stack, built.check);
  return { stack, queue, states, state: (name: string) => stateOf(states, name) };
}

describe('undo states: the compensation of one step', () => {
  it('Undo.Check: a log entry not Compensated, or a result of this execution, is undone; a TimedOut step just in case', () => {
    const { state } = buildUndo();
    const log = '$.record.Item.CompensationLog.M.Pack.M.Status.S';
    const step = '$.record.Item.Steps.M.Pack.M.Status.S';
    expect(state('Pack.Undo.Check')).toEqual({
      Type: 'Choice',
      Comment: expect.any(String),
      Default: 'PreviousUndo',
      Choices: [
        {
          And: [{ Variable: log, IsPresent: true }, { Not: { Variable: log, StringEquals: 'Compensated' } }],
          Next: 'Pack.Undo.MarkCompensating',
        },
        { Variable: log, IsPresent: true, Next: 'PreviousUndo' },
        { Variable: '$.results.Pack', IsPresent: true, Next: 'Pack.Undo.MarkCompensating' },
        {
          And: [
            { Variable: step, IsPresent: true },
            { Variable: step, StringEquals: 'TimedOut' },
          ],
          Next: 'Pack.Undo.MarkUncertain',
        },
      ],
    });
  });

  it("runs the intent, the call, then MarkCompensated, then the previous step's undo", () => {
    const { state } = buildUndo();
    expect(state('Pack.Undo.MarkCompensating').Next).toBe('Pack.Undo.CallAgent');
    expect(state('Pack.Undo.MarkUncertain').Next).toBe('Pack.Undo.CallAgent');
    expect(state('Pack.Undo.CallAgent').Next).toBe('Pack.Undo.MarkCompensated');
    expect(state('Pack.Undo.MarkCompensated').Next).toBe('PreviousUndo');
  });

  it('Undo.CallAgent asks the same agent queue to compensate, keyed on the compensation, naming the effect it undoes', () => {
    const { stack, queue, state } = buildUndo();
    const queueRef = stack.resolve(queue.queueUrl) as { Ref: string };
    const call = state('Pack.Undo.CallAgent');
    expect(call).toMatchObject({
      Resource: expect.stringMatching(/:states:::sqs:sendMessage\.waitForTaskToken$/),
      TimeoutSeconds: 40,
      HeartbeatSeconds: 15,
      ResultPath: '$.compensations.Pack',
      Parameters: { QueueUrl: `{{Ref:${queueRef.Ref}}}` },
    });
    const message = (call.Parameters as { MessageBody: Record<string, unknown> }).MessageBody;
    expect(
      Object.keys(message)
        .map((key) => key.replace(/\.\$$/, ''))
        .sort(),
    ).toEqual(
      Object.keys(AgentRequestSchema.shape)
        // A compensation never marks a step Running nor records one Completed (perform calls only).
        .filter((field) => field !== 'markRunning' && field !== 'recordCompletion')
        .sort(),
    );
    expect(message).toMatchObject({
      step: 'Pack',
      action: 'compensate',
      operation: 'UndoPack',
      'undoes.$': "States.Format('{}:Pack', $.orderId)",
      'idempotencyKey.$': "States.Format('{}:UndoPack', $.orderId)",
      'deadlineEpochMillis.$': 'States.StringToJson($.record.Item.Plan.M.UndoPack.N)',
    });
  });

  it('a refused compensation is remembered, marked CompensationFailed, then alerted; anything else abandons', () => {
    const { state } = buildUndo();
    expect(state('Pack.Undo.CallAgent').Catch).toEqual([
      {
        ErrorEquals: [AgentError.Permanent, AgentError.RetryBudgetExhausted],
        ResultPath: '$.error',
        Next: 'Pack.Undo.PermanentFailure',
      },
      { ErrorEquals: ['States.ALL'], ResultPath: '$.abandoned', Next: 'AbandonedStandIn' },
    ]);
    expect(state('Pack.Undo.PermanentFailure')).toMatchObject({
      Type: 'Pass',
      Result: 'Pack',
      ResultPath: '$.failedStep',
      Next: 'Pack.Undo.MarkCompensationFailed',
    });
    expect(state('Pack.Undo.MarkCompensationFailed').Next).toBe('AlertStandIn');
  });

  it('every store update of the undo ends in the fenced-out state when the lock is lost', () => {
    const { state } = buildUndo();
    for (const name of [
      'Pack.Undo.MarkCompensating',
      'Pack.Undo.MarkUncertain',
      'Pack.Undo.MarkCompensated',
      'Pack.Undo.MarkCompensationFailed',
    ]) {
      expect(state(name).Catch?.map((c) => c.Next)).toEqual(['FencedOut']);
    }
  });
});
