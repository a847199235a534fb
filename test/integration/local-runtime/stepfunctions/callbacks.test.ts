import {
  InvalidOutput,
  InvalidToken,
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  StartExecutionCommand,
  TaskTimedOut,
} from '@aws-sdk/client-sfn';
import { createQueue, receiveOne, register, type SfnHarness, startSfnHarness, waitForEnd } from './harness';

interface CallbackOptions {
  readonly timeoutSeconds?: number;
  readonly heartbeatSeconds?: number;
  readonly retry?: readonly object[];
  readonly catch?: readonly {
    readonly ErrorEquals: string[];
    readonly Next: string;
    readonly ResultPath?: string;
  }[];
}

/** A scheduler-like callback step: the message carries the token, the step name and entry time. */
function callbackDefinition(queueUrl: string, options: CallbackOptions = {}) {
  const targets = (options.catch ?? []).map((catcher) => catcher.Next);
  return {
    StartAt: 'CallAgent',
    States: {
      CallAgent: {
        Type: 'Task',
        Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
        Parameters: {
          QueueUrl: queueUrl,
          MessageBody: {
            'taskToken.$': '$$.Task.Token',
            'orderId.$': '$.orderId',
            'step.$': '$$.State.Name',
            'taskEnteredAt.$': '$$.State.EnteredTime',
            'idempotencyKey.$': "States.Format('{}:ChargePayment', $.orderId)",
          },
        },
        ResultPath: '$.agentResult',
        TimeoutSeconds: options.timeoutSeconds ?? 30,
        ...(options.heartbeatSeconds === undefined ? {} : { HeartbeatSeconds: options.heartbeatSeconds }),
        ...(options.retry ? { Retry: options.retry } : {}),
        ...(options.catch ? { Catch: options.catch } : {}),
        End: true,
      },
      // Only the handlers a Catch points at: the validator refuses unreachable states.
      ...Object.fromEntries(Object.entries(CATCH_TARGETS).filter(([name]) => targets.includes(name))),
    },
  };
}

const CATCH_TARGETS = {
  PermanentFailure: { Type: 'Pass', Result: 'handled-permanent', ResultPath: '$.handled', End: true },
  TimedOut: { Type: 'Pass', Result: 'handled-timeout', ResultPath: '$.handled', End: true },
  WrongCatch: { Type: 'Fail', Error: 'Test.WrongCatch', Cause: 'a catcher matched the wrong error' },
};

interface AgentMessage {
  readonly taskToken: string;
  readonly orderId: string;
  readonly step: string;
  readonly taskEnteredAt: string;
  readonly idempotencyKey: string;
}

describe('callback tasks (.waitForTaskToken over real local SQS)', () => {
  let h: SfnHarness;
  let queueCount = 0;
  const freshQueue = () => createQueue(h.sqs, `agent-${++queueCount}`);

  beforeAll(async () => {
    h = await startSfnHarness();
  });
  afterAll(async () => {
    await h.stop();
  });

  it('delivers the token to the queue and resumes with the SendTaskSuccess output', async () => {
    const queueUrl = await freshQueue();
    const arn = register(h.sfn, callbackDefinition(queueUrl));
    const before = Date.now();
    const started = await h.client.send(
      new StartExecutionCommand({ stateMachineArn: arn, input: '{"orderId":"o-42"}' }),
    );
    const message = (await receiveOne(h.sqs, queueUrl)) as unknown as AgentMessage;
    expect(message).toMatchObject({
      orderId: 'o-42',
      step: 'CallAgent',
      idempotencyKey: 'o-42:ChargePayment',
    });
    expect(message.taskToken).toMatch(/^lsfn1\./);
    expect(Date.parse(message.taskEnteredAt)).toBeGreaterThanOrEqual(before - 5);

    await h.client.send(
      new SendTaskSuccessCommand({
        taskToken: message.taskToken,
        output: JSON.stringify({ confirmationId: 'c-1' }),
      }),
    );
    const ended = await waitForEnd(h.client, started.executionArn ?? '');
    expect(ended.status).toBe('SUCCEEDED');
    expect(JSON.parse(ended.output ?? '')).toEqual({
      orderId: 'o-42',
      agentResult: { confirmationId: 'c-1' },
    });
    expect(h.events.filter((e) => e.executionArn === started.executionArn).map((e) => e.type)).toEqual([
      'ExecutionStarted',
      'StateEntered',
      'TaskScheduled',
      'TaskSucceeded',
      'ExecutionSucceeded',
    ]);
    // A duplicate answer (e.g. a redelivered agent message) is refused as on AWS.
    await expect(
      h.client.send(new SendTaskSuccessCommand({ taskToken: message.taskToken, output: '{}' })),
    ).rejects.toBeInstanceOf(TaskTimedOut);
  });

  it('catches SendTaskFailure by its error name, with the cause', async () => {
    const queueUrl = await freshQueue();
    const arn = register(
      h.sfn,
      callbackDefinition(queueUrl, {
        catch: [
          { ErrorEquals: ['Agent.PermanentFailure'], ResultPath: '$.error', Next: 'PermanentFailure' },
          { ErrorEquals: ['States.ALL'], Next: 'WrongCatch' },
        ],
      }),
    );
    const started = await h.client.send(
      new StartExecutionCommand({ stateMachineArn: arn, input: '{"orderId":"o-7"}' }),
    );
    const message = (await receiveOne(h.sqs, queueUrl)) as unknown as AgentMessage;
    await h.client.send(
      new SendTaskFailureCommand({
        taskToken: message.taskToken,
        error: 'Agent.PermanentFailure',
        cause: 'card declined',
      }),
    );
    const ended = await waitForEnd(h.client, started.executionArn ?? '');
    expect(ended.status).toBe('SUCCEEDED');
    expect(JSON.parse(ended.output ?? '')).toEqual({
      orderId: 'o-7',
      error: { Error: 'Agent.PermanentFailure', Cause: 'card declined' },
      handled: 'handled-permanent',
    });
  });

  it('an uncaught SendTaskFailure fails the execution with that error and cause', async () => {
    const queueUrl = await freshQueue();
    const arn = register(h.sfn, callbackDefinition(queueUrl));
    const started = await h.client.send(
      new StartExecutionCommand({ stateMachineArn: arn, input: '{"orderId":"o-8"}' }),
    );
    const message = (await receiveOne(h.sqs, queueUrl)) as unknown as AgentMessage;
    await h.client.send(
      new SendTaskFailureCommand({
        taskToken: message.taskToken,
        error: 'Agent.TransientFailure',
        cause: 'gave up',
      }),
    );
    const ended = await waitForEnd(h.client, started.executionArn ?? '');
    expect(ended).toMatchObject({ status: 'FAILED', error: 'Agent.TransientFailure', cause: 'gave up' });
  });

  it('a retried callback task gets a fresh token; the old one answers TaskTimedOut', async () => {
    const queueUrl = await freshQueue();
    const arn = register(
      h.sfn,
      callbackDefinition(queueUrl, {
        retry: [
          { ErrorEquals: ['Agent.TransientFailure'], IntervalSeconds: 1, MaxAttempts: 1, BackoffRate: 1 },
        ],
      }),
    );
    const started = await h.client.send(
      new StartExecutionCommand({ stateMachineArn: arn, input: '{"orderId":"o-9"}' }),
    );
    const first = (await receiveOne(h.sqs, queueUrl)) as unknown as AgentMessage;
    await h.client.send(
      new SendTaskFailureCommand({ taskToken: first.taskToken, error: 'Agent.TransientFailure' }),
    );
    const second = (await receiveOne(h.sqs, queueUrl)) as unknown as AgentMessage;
    expect(second.taskToken).not.toBe(first.taskToken);
    expect(second.idempotencyKey).toBe(first.idempotencyKey);
    await expect(
      h.client.send(new SendTaskSuccessCommand({ taskToken: first.taskToken, output: '{}' })),
    ).rejects.toBeInstanceOf(TaskTimedOut);
    await h.client.send(
      new SendTaskSuccessCommand({ taskToken: second.taskToken, output: '{"confirmationId":"c-2"}' }),
    );
    const ended = await waitForEnd(h.client, started.executionArn ?? '');
    expect(ended.status).toBe('SUCCEEDED');
    const scheduled = h.events.filter(
      (e) => e.executionArn === started.executionArn && e.type === 'TaskScheduled',
    );
    expect(scheduled).toHaveLength(2);
  });

  it('TimeoutSeconds raises States.Timeout (not matched by States.TaskFailed); a late answer gets TaskTimedOut', async () => {
    const queueUrl = await freshQueue();
    const arn = register(
      h.sfn,
      callbackDefinition(queueUrl, {
        timeoutSeconds: 1,
        catch: [
          { ErrorEquals: ['States.TaskFailed'], Next: 'WrongCatch' },
          { ErrorEquals: ['States.Timeout'], ResultPath: '$.error', Next: 'TimedOut' },
        ],
      }),
    );
    const started = await h.client.send(
      new StartExecutionCommand({ stateMachineArn: arn, input: '{"orderId":"o-10"}' }),
    );
    const message = (await receiveOne(h.sqs, queueUrl)) as unknown as AgentMessage;
    const ended = await waitForEnd(h.client, started.executionArn ?? '', 5_000);
    expect(ended.status).toBe('SUCCEEDED');
    expect(JSON.parse(ended.output ?? '')).toMatchObject({
      error: { Error: 'States.Timeout' },
      handled: 'handled-timeout',
    });
    await expect(
      h.client.send(new SendTaskSuccessCommand({ taskToken: message.taskToken, output: '{}' })),
    ).rejects.toBeInstanceOf(TaskTimedOut);
    expect(h.events).toContainEqual(
      expect.objectContaining({
        type: 'TaskTimedOut',
        executionArn: started.executionArn,
        error: 'States.Timeout',
      }),
    );
  });

  it('HeartbeatSeconds without a heartbeat raises States.HeartbeatTimeout', async () => {
    const queueUrl = await freshQueue();
    const arn = register(h.sfn, callbackDefinition(queueUrl, { timeoutSeconds: 20, heartbeatSeconds: 1 }));
    const started = await h.client.send(
      new StartExecutionCommand({ stateMachineArn: arn, input: '{"orderId":"o-11"}' }),
    );
    const message = (await receiveOne(h.sqs, queueUrl)) as unknown as AgentMessage;
    const ended = await waitForEnd(h.client, started.executionArn ?? '', 5_000);
    expect(ended).toMatchObject({ status: 'FAILED', error: 'States.HeartbeatTimeout' });
    await expect(
      h.client.send(new SendTaskHeartbeatCommand({ taskToken: message.taskToken })),
    ).rejects.toBeInstanceOf(TaskTimedOut);
  });

  it('heartbeats keep a callback alive past HeartbeatSeconds', async () => {
    const queueUrl = await freshQueue();
    const arn = register(h.sfn, callbackDefinition(queueUrl, { timeoutSeconds: 20, heartbeatSeconds: 1 }));
    const started = await h.client.send(
      new StartExecutionCommand({ stateMachineArn: arn, input: '{"orderId":"o-12"}' }),
    );
    const message = (await receiveOne(h.sqs, queueUrl)) as unknown as AgentMessage;
    const aliveUntil = Date.now() + 2_500;
    while (Date.now() < aliveUntil) {
      await h.client.send(new SendTaskHeartbeatCommand({ taskToken: message.taskToken }));
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    await h.client.send(
      new SendTaskSuccessCommand({ taskToken: message.taskToken, output: '{"confirmationId":"c-3"}' }),
    );
    const ended = await waitForEnd(h.client, started.executionArn ?? '');
    expect(ended.status).toBe('SUCCEEDED');
  });

  it('refuses malformed and unknown tokens with InvalidToken, and non-JSON output with InvalidOutput', async () => {
    await expect(
      h.client.send(new SendTaskSuccessCommand({ taskToken: 'garbage', output: '{}' })),
    ).rejects.toBeInstanceOf(InvalidToken);
    const unknown = `lsfn1.${'A'.repeat(64)}`;
    await expect(
      h.client.send(new SendTaskFailureCommand({ taskToken: unknown, error: 'x' })),
    ).rejects.toBeInstanceOf(InvalidToken);
    await expect(h.client.send(new SendTaskHeartbeatCommand({ taskToken: unknown }))).rejects.toBeInstanceOf(
      InvalidToken,
    );

    const queueUrl = await freshQueue();
    const arn = register(h.sfn, callbackDefinition(queueUrl));
    const started = await h.client.send(
      new StartExecutionCommand({ stateMachineArn: arn, input: '{"orderId":"o-13"}' }),
    );
    const message = (await receiveOne(h.sqs, queueUrl)) as unknown as AgentMessage;
    await expect(
      h.client.send(new SendTaskSuccessCommand({ taskToken: message.taskToken, output: 'not json' })),
    ).rejects.toBeInstanceOf(InvalidOutput);
    // The refused answer left the task waiting: a valid one still completes it.
    await h.client.send(new SendTaskSuccessCommand({ taskToken: message.taskToken, output: '{"ok":true}' }));
    expect((await waitForEnd(h.client, started.executionArn ?? '')).status).toBe('SUCCEEDED');
  });
});
