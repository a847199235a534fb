/**
 * GetExecutionHistory and the other operations operators and tools call, over the real SFN client:
 * AWS's event types, ids, details and paging.
 */
import {
  DescribeStateMachineCommand,
  DescribeStateMachineForExecutionCommand,
  ExecutionDoesNotExist,
  GetExecutionHistoryCommand,
  type HistoryEvent,
  InvalidToken,
  ListExecutionsCommand,
  ListStateMachinesCommand,
  SendTaskSuccessCommand,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { createQueue, receiveOne, register, type SfnHarness, startSfnHarness, waitForEnd } from './harness';

const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:greeter';

describe('local Step Functions history and operator APIs (real SFN client)', () => {
  let h: SfnHarness;
  let queueUrl: string;
  beforeAll(async () => {
    h = await startSfnHarness({
      invokeLambda: async (_functionName, payload) => {
        const who = (payload as { who?: string }).who;
        return who === 'nobody'
          ? { payload: { errorType: 'NoOne', errorMessage: 'nobody to greet' }, functionError: 'Unhandled' }
          : { payload: { greeting: `hello ${who}` } };
      },
    });
    queueUrl = await createQueue(h.sqs, 'history-callbacks');
  });
  afterAll(async () => {
    await h.stop();
  });

  async function run(definition: object, input = '{}') {
    const stateMachineArn = register(h.sfn, definition, 'history');
    const { executionArn = '' } = await h.client.send(new StartExecutionCommand({ stateMachineArn, input }));
    return { stateMachineArn, executionArn };
  }

  async function history(executionArn: string, options: { includeExecutionData?: boolean } = {}) {
    const events: HistoryEvent[] = [];
    let nextToken: string | undefined;
    do {
      const page = await h.client.send(
        new GetExecutionHistoryCommand({ executionArn, nextToken, maxResults: 3, ...options }),
      );
      events.push(...(page.events ?? []));
      nextToken = page.nextToken;
    } while (nextToken);
    return events;
  }

  const types = (events: HistoryEvent[]) => events.map((event) => event.type);

  it('records Pass, Choice, Wait and Succeed states with ids, previous ids, inputs and outputs', async () => {
    const { executionArn } = await run(
      {
        StartAt: 'Shape',
        States: {
          Shape: { Type: 'Pass', Parameters: { 'n.$': '$.n' }, Next: 'Decide' },
          Decide: {
            Type: 'Choice',
            Choices: [{ Variable: '$.n', NumericEquals: 1, Next: 'Pause' }],
            Default: 'Done',
          },
          Pause: { Type: 'Wait', Seconds: 0, Next: 'Done' },
          Done: { Type: 'Succeed' },
        },
      },
      '{"n":1,"extra":true}',
    );
    await waitForEnd(h.client, executionArn);
    const events = await history(executionArn);
    expect(types(events)).toEqual([
      'ExecutionStarted',
      'PassStateEntered',
      'PassStateExited',
      'ChoiceStateEntered',
      'ChoiceStateExited',
      'WaitStateEntered',
      'WaitStateExited',
      'SucceedStateEntered',
      'SucceedStateExited',
      'ExecutionSucceeded',
    ]);
    expect(events.map((event) => [event.id, event.previousEventId])).toEqual(
      events.map((_event, index) => [index + 1, index]),
    );
    for (const event of events) expect(event.timestamp).toBeInstanceOf(Date);
    expect(events[0]?.executionStartedEventDetails).toEqual({
      input: '{"n":1,"extra":true}',
      inputDetails: { truncated: false },
      roleArn: expect.stringMatching(/^arn:aws:iam::000000000000:role\//),
    });
    expect(events[1]?.stateEnteredEventDetails).toEqual({
      name: 'Shape',
      input: '{"n":1,"extra":true}',
      inputDetails: { truncated: false },
    });
    expect(events[2]?.stateExitedEventDetails).toEqual({
      name: 'Shape',
      output: '{"n":1}',
      outputDetails: { truncated: false },
    });
    expect(events.at(-1)?.executionSucceededEventDetails).toEqual({
      output: '{"n":1}',
      outputDetails: { truncated: false },
    });
  });

  it('records a callback task: scheduled with its parameters and token, submitted, succeeded', async () => {
    const { executionArn } = await run({
      StartAt: 'Ask',
      States: {
        Ask: {
          Type: 'Task',
          Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
          Parameters: { QueueUrl: queueUrl, MessageBody: { 'token.$': '$$.Task.Token' } },
          TimeoutSeconds: 30,
          HeartbeatSeconds: 10,
          End: true,
        },
      },
    });
    const { token } = (await receiveOne(h.sqs, queueUrl)) as { token: string };
    await h.client.send(new SendTaskSuccessCommand({ taskToken: token, output: '{"answer":42}' }));
    await waitForEnd(h.client, executionArn);
    const events = await history(executionArn);
    expect(types(events)).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSubmitted',
      'TaskSucceeded',
      'TaskStateExited',
      'ExecutionSucceeded',
    ]);
    const [, , scheduled, started, submitted, succeeded] = events;
    expect(scheduled?.taskScheduledEventDetails).toEqual({
      resourceType: 'sqs',
      resource: 'sendMessage.waitForTaskToken',
      region: 'us-east-1',
      parameters: JSON.stringify({ QueueUrl: queueUrl, MessageBody: { token } }),
      timeoutInSeconds: 30,
      heartbeatInSeconds: 10,
    });
    expect(started?.taskStartedEventDetails).toEqual({
      resourceType: 'sqs',
      resource: 'sendMessage.waitForTaskToken',
    });
    expect(JSON.parse(submitted?.taskSubmittedEventDetails?.output ?? '{}')).toMatchObject({
      MessageId: expect.any(String),
    });
    expect(succeeded?.taskSucceededEventDetails).toEqual({
      resourceType: 'sqs',
      resource: 'sendMessage.waitForTaskToken',
      output: '{"answer":42}',
      outputDetails: { truncated: false },
    });
  });

  it('records a task that times out and the execution failing with it', async () => {
    const { executionArn } = await run({
      StartAt: 'Ask',
      States: {
        Ask: {
          Type: 'Task',
          Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
          Parameters: { QueueUrl: queueUrl, MessageBody: { 'token.$': '$$.Task.Token' } },
          TimeoutSeconds: 1,
          End: true,
        },
      },
    });
    await receiveOne(h.sqs, queueUrl);
    await waitForEnd(h.client, executionArn);
    const events = await history(executionArn);
    expect(types(events)).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSubmitted',
      'TaskTimedOut',
      'ExecutionFailed',
    ]);
    expect(events[5]?.taskTimedOutEventDetails).toMatchObject({
      resourceType: 'sqs',
      resource: 'sendMessage.waitForTaskToken',
      error: 'States.Timeout',
    });
    expect(events[6]?.executionFailedEventDetails).toMatchObject({ error: 'States.Timeout' });
  });

  it('records a failed lambda:invoke task, a caught failure, and a plain function ARN as LambdaFunction events', async () => {
    const { executionArn } = await run(
      {
        StartAt: 'Invoke',
        States: {
          Invoke: {
            Type: 'Task',
            Resource: 'arn:aws:states:::lambda:invoke',
            Parameters: { FunctionName: FUNCTION_ARN, 'Payload.$': '$' },
            Catch: [{ ErrorEquals: ['NoOne'], ResultPath: '$.error', Next: 'Greet' }],
            Next: 'Greet',
          },
          Greet: { Type: 'Task', Resource: FUNCTION_ARN, Parameters: { who: 'ops' }, End: true },
        },
      },
      '{"who":"nobody"}',
    );
    await waitForEnd(h.client, executionArn);
    const events = await history(executionArn);
    expect(types(events)).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskFailed',
      'TaskStateExited',
      'TaskStateEntered',
      'LambdaFunctionScheduled',
      'LambdaFunctionStarted',
      'LambdaFunctionSucceeded',
      'TaskStateExited',
      'ExecutionSucceeded',
    ]);
    expect(events[4]?.taskFailedEventDetails).toEqual({
      resourceType: 'lambda',
      resource: 'invoke',
      error: 'NoOne',
      cause: '{"errorType":"NoOne","errorMessage":"nobody to greet"}',
    });
    expect(events[7]?.lambdaFunctionScheduledEventDetails).toEqual({
      resource: FUNCTION_ARN,
      input: '{"who":"ops"}',
      inputDetails: { truncated: false },
    });
    expect(events[9]?.lambdaFunctionSucceededEventDetails).toEqual({
      output: '{"greeting":"hello ops"}',
      outputDetails: { truncated: false },
    });
  });

  it('records every attempt of a retried task in order', async () => {
    const { executionArn } = await run(
      {
        StartAt: 'Invoke',
        States: {
          Invoke: {
            Type: 'Task',
            Resource: 'arn:aws:states:::lambda:invoke',
            Parameters: { FunctionName: FUNCTION_ARN, 'Payload.$': '$' },
            Retry: [{ ErrorEquals: ['NoOne'], MaxAttempts: 1, IntervalSeconds: 1 }],
            End: true,
          },
        },
      },
      '{"who":"nobody"}',
    );
    await waitForEnd(h.client, executionArn);
    expect(types(await history(executionArn))).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskFailed',
      'TaskScheduled',
      'TaskStarted',
      'TaskFailed',
      'ExecutionFailed',
    ]);
  });

  it('records Fail states, stopped executions and execution timeouts as AWS ends them', async () => {
    const failed = await run({
      StartAt: 'Give up',
      States: { 'Give up': { Type: 'Fail', Error: 'Custom.Error', Cause: 'on purpose' } },
    });
    await waitForEnd(h.client, failed.executionArn);
    const failedEvents = await history(failed.executionArn);
    expect(types(failedEvents)).toEqual(['ExecutionStarted', 'FailStateEntered', 'ExecutionFailed']);
    expect(failedEvents[2]?.executionFailedEventDetails).toEqual({
      error: 'Custom.Error',
      cause: 'on purpose',
    });

    const waiting = { StartAt: 'Sleep', States: { Sleep: { Type: 'Wait', Seconds: 30, End: true } } };
    const stopped = await run(waiting);
    await h.client.send(
      new StopExecutionCommand({ executionArn: stopped.executionArn, error: 'Ops.Stop', cause: 'by hand' }),
    );
    const stoppedEvents = await history(stopped.executionArn);
    expect(types(stoppedEvents)).toEqual(['ExecutionStarted', 'WaitStateEntered', 'ExecutionAborted']);
    expect(stoppedEvents[2]?.executionAbortedEventDetails).toEqual({ error: 'Ops.Stop', cause: 'by hand' });

    const timedOut = await run({ ...waiting, TimeoutSeconds: 1 });
    expect((await waitForEnd(h.client, timedOut.executionArn)).status).toBe('TIMED_OUT');
    const timedOutEvents = await history(timedOut.executionArn);
    expect(types(timedOutEvents)).toEqual(['ExecutionStarted', 'WaitStateEntered', 'ExecutionTimedOut']);
    expect(timedOutEvents[2]?.executionTimedOutEventDetails).toMatchObject({ error: 'States.Timeout' });
  });

  it('pages forwards and backwards, leaves out execution data on request, and refuses foreign tokens', async () => {
    const { executionArn } = await run({
      StartAt: 'A',
      States: { A: { Type: 'Pass', Next: 'B' }, B: { Type: 'Pass', End: true } },
    });
    await waitForEnd(h.client, executionArn);
    const all = await history(executionArn);
    expect(all).toHaveLength(6);
    const first = await h.client.send(
      new GetExecutionHistoryCommand({ executionArn, maxResults: 4, reverseOrder: true }),
    );
    expect(first.events?.map((event) => event.id)).toEqual([6, 5, 4, 3]);
    const second = await h.client.send(
      new GetExecutionHistoryCommand({
        executionArn,
        maxResults: 4,
        reverseOrder: true,
        nextToken: first.nextToken,
      }),
    );
    expect(second.events?.map((event) => event.id)).toEqual([2, 1]);
    expect(second.nextToken).toBeUndefined();
    const withoutData = await history(executionArn, { includeExecutionData: false });
    expect(withoutData.map((event) => event.type)).toEqual(types(all));
    expect(withoutData[0]?.executionStartedEventDetails).toEqual({
      inputDetails: { truncated: false },
      roleArn: expect.any(String),
    });
    expect(withoutData[2]?.stateExitedEventDetails).toEqual({
      name: 'A',
      outputDetails: { truncated: false },
    });
    // A token is for one execution and one order.
    await expect(
      h.client.send(new GetExecutionHistoryCommand({ executionArn, nextToken: first.nextToken })),
    ).rejects.toBeInstanceOf(InvalidToken);
    await expect(
      h.client.send(new GetExecutionHistoryCommand({ executionArn, nextToken: 'garbage' })),
    ).rejects.toBeInstanceOf(InvalidToken);
    await expect(
      h.client.send(new GetExecutionHistoryCommand({ executionArn: `${executionArn}-missing` })),
    ).rejects.toBeInstanceOf(ExecutionDoesNotExist);
  });

  it('describes the state machine an execution ran, even after the machine was replaced', async () => {
    const original = { StartAt: 'A', States: { A: { Type: 'Pass', End: true } } };
    const { stateMachineArn, executionArn } = await run(original);
    await waitForEnd(h.client, executionArn);
    const name = stateMachineArn.split(':').at(-1) ?? '';
    h.sfn.registerStateMachine(stateMachineArn, name, JSON.stringify({ ...original, Comment: 'v2' }));
    const forExecution = await h.client.send(new DescribeStateMachineForExecutionCommand({ executionArn }));
    expect(forExecution).toMatchObject({
      stateMachineArn,
      name,
      definition: JSON.stringify(original),
      roleArn: expect.any(String),
      updateDate: expect.any(Date),
    });
    const described = await h.client.send(new DescribeStateMachineCommand({ stateMachineArn }));
    expect(described).toMatchObject({
      stateMachineArn,
      name,
      status: 'ACTIVE',
      type: 'STANDARD',
      definition: JSON.stringify({ ...original, Comment: 'v2' }),
      creationDate: expect.any(Date),
      loggingConfiguration: { level: 'OFF', includeExecutionData: false },
      tracingConfiguration: { enabled: false },
    });
  });

  it('pages ListStateMachines and filters ListExecutions by status', async () => {
    const names: string[] = [];
    let nextToken: string | undefined;
    do {
      const page = await h.client.send(new ListStateMachinesCommand({ maxResults: 2, nextToken }));
      expect((page.stateMachines ?? []).length).toBeLessThanOrEqual(2);
      names.push(...(page.stateMachines ?? []).map((machine) => machine.name ?? ''));
      nextToken = page.nextToken;
    } while (nextToken);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeGreaterThan(2);

    const sleeper = register(h.sfn, {
      StartAt: 'S',
      States: { S: { Type: 'Wait', Seconds: 30, End: true } },
    });
    const { executionArn } = await h.client.send(new StartExecutionCommand({ stateMachineArn: sleeper }));
    await h.client.send(new StopExecutionCommand({ executionArn }));
    await h.client.send(new StartExecutionCommand({ stateMachineArn: sleeper }));
    const aborted = await h.client.send(
      new ListExecutionsCommand({ stateMachineArn: sleeper, statusFilter: 'ABORTED' }),
    );
    expect(aborted.executions?.map((execution) => execution.executionArn)).toEqual([executionArn]);
    const running = await h.client.send(
      new ListExecutionsCommand({ stateMachineArn: sleeper, statusFilter: 'RUNNING' }),
    );
    expect(running.executions).toHaveLength(1);
    expect(running.executions?.[0]).toMatchObject({ status: 'RUNNING', startDate: expect.any(Date) });
    expect(running.executions?.[0]?.stopDate).toBeUndefined();
    await h.client.send(new StopExecutionCommand({ executionArn: running.executions?.[0]?.executionArn }));
  });
});
