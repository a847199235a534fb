import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { AgentError, AgentRequestSchema } from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import {
  agentCall,
  type CallbackTimings,
  stepStates,
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
    queue,
    timings,
    updates: new StoreUpdates(stack, { stateTable, fencedOut }),
    next: new sfn.Succeed(stack, 'NextStep'),
    onPermanentFailure: new sfn.Succeed(stack, 'MarkErrorStandIn'),
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
        // `undoes` is sent by compensation calls only.
        .filter((field) => field !== 'undoes')
        .sort(),
    );
    expect(message).toMatchObject({
      step: 'Pack',
      'idempotencyKey.$': "States.Format('{}:Pack', $.orderId)",
      'deadlineEpochMillis.$': 'States.StringToJson($.record.Item.Plan.M.Pack.N)',
      taskTimeoutSeconds: 40,
      heartbeatSeconds: 15,
      maxCallAttempts: 3,
    });
  });

  it('a permanent failure is remembered as the failed step then handed on; anything else abandons the attempt', () => {
    const { state } = build();
    expect(state('Pack.CallAgent').Catch).toEqual([
      { ErrorEquals: [AgentError.Permanent], ResultPath: '$.error', Next: 'Pack.PermanentFailure' },
      { ErrorEquals: ['States.ALL'], ResultPath: '$.abandoned', Next: 'AbandonedStandIn' },
    ]);
    expect(state('Pack.PermanentFailure')).toMatchObject({
      Type: 'Pass',
      Result: 'Pack',
      ResultPath: '$.failedStep',
      Next: 'MarkErrorStandIn',
    });
  });

  it('both store updates end in the fenced-out state when the lock is lost', () => {
    const { state } = build();
    for (const name of ['Pack.MarkRunning', 'Pack.MarkCompleted']) {
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
