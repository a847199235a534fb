import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  InvalidArn,
  InvalidExecutionInput,
  InvalidName,
  ListExecutionsCommand,
  SendTaskSuccessCommand,
  StartExecutionCommand,
  StateMachineDoesNotExist,
  StopExecutionCommand,
  TaskTimedOut,
} from '@aws-sdk/client-sfn';
import { InvalidDefinitionError } from '../../../../lib/local-runtime/stepfunctions';
import { createQueue, receiveOne, register, type SfnHarness, startSfnHarness, waitForEnd } from './harness';

/** Waits on an SQS callback nobody answers: keeps an execution RUNNING for as long as a test needs. */
function parkedDefinition(queueUrl: string) {
  return {
    StartAt: 'Park',
    States: {
      Park: {
        Type: 'Task',
        Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
        Parameters: { QueueUrl: queueUrl, MessageBody: { 'token.$': '$$.Task.Token' } },
        TimeoutSeconds: 60,
        End: true,
      },
    },
  };
}

describe('local Step Functions API (real SFN client)', () => {
  let h: SfnHarness;
  let parkQueue: string;
  beforeAll(async () => {
    h = await startSfnHarness();
    parkQueue = await createQueue(h.sqs, 'park');
  });
  afterAll(async () => {
    await h.stop();
  });

  it('starts, describes and lists executions with their output and status filter', async () => {
    const arn = register(h.sfn, {
      StartAt: 'Shape',
      States: {
        Shape: { Type: 'Pass', Parameters: { 'greeting.$': "States.Format('hello {}', $.who)" }, End: true },
      },
    });
    const parked = register(h.sfn, parkedDefinition(parkQueue));
    const done = await h.client.send(
      new StartExecutionCommand({ stateMachineArn: arn, name: 'first', input: '{"who":"ops"}' }),
    );
    expect(done.executionArn).toBe(`${arn.replace(':stateMachine:', ':execution:')}:first`);
    expect(done.startDate).toBeInstanceOf(Date);
    const finished = await waitForEnd(h.client, done.executionArn ?? '');
    expect(finished).toMatchObject({
      status: 'SUCCEEDED',
      name: 'first',
      stateMachineArn: arn,
      input: '{"who":"ops"}',
      output: '{"greeting":"hello ops"}',
    });
    expect(finished.stopDate?.getTime()).toBeGreaterThanOrEqual(finished.startDate?.getTime() ?? Number.NaN);

    await h.client.send(
      new StartExecutionCommand({ stateMachineArn: arn, name: 'second', input: '{"who":"dev"}' }),
    );
    await waitForEnd(h.client, `${arn.replace(':stateMachine:', ':execution:')}:second`);
    const all = await h.client.send(new ListExecutionsCommand({ stateMachineArn: arn }));
    expect(all.executions?.map((e) => e.name)).toEqual(['second', 'first']);

    const running = await h.client.send(
      new StartExecutionCommand({ stateMachineArn: parked, name: 'waiting' }),
    );
    const runningOnly = await h.client.send(
      new ListExecutionsCommand({ stateMachineArn: parked, statusFilter: 'RUNNING' }),
    );
    expect(runningOnly.executions?.map((e) => [e.name, e.status])).toEqual([['waiting', 'RUNNING']]);
    const succeededOnly = await h.client.send(
      new ListExecutionsCommand({ stateMachineArn: parked, statusFilter: 'SUCCEEDED' }),
    );
    expect(succeededOnly.executions).toEqual([]);
    await h.client.send(new StopExecutionCommand({ executionArn: running.executionArn }));
  });

  it('pages ListExecutions with nextToken, newest first', async () => {
    const arn = register(h.sfn, { StartAt: 'Done', States: { Done: { Type: 'Succeed' } } });
    for (const name of ['a', 'b', 'c']) {
      await h.client.send(new StartExecutionCommand({ stateMachineArn: arn, name }));
    }
    const first = await h.client.send(new ListExecutionsCommand({ stateMachineArn: arn, maxResults: 2 }));
    expect(first.executions?.map((e) => e.name)).toEqual(['c', 'b']);
    expect(first.nextToken).toEqual(expect.any(String));
    const second = await h.client.send(
      new ListExecutionsCommand({ stateMachineArn: arn, maxResults: 2, nextToken: first.nextToken }),
    );
    expect(second.executions?.map((e) => e.name)).toEqual(['a']);
    expect(second.nextToken).toBeUndefined();
  });

  it('restarting a RUNNING execution with the same name and input is idempotent', async () => {
    const arn = register(h.sfn, parkedDefinition(parkQueue));
    const input = JSON.stringify({ orderId: 'o-1', attempt: 1 });
    const first = await h.client.send(
      new StartExecutionCommand({ stateMachineArn: arn, name: 'o-1--attempt-1', input }),
    );
    const again = await h.client.send(
      new StartExecutionCommand({ stateMachineArn: arn, name: 'o-1--attempt-1', input }),
    );
    expect(again).toMatchObject({ executionArn: first.executionArn, startDate: first.startDate });
    const listed = await h.client.send(new ListExecutionsCommand({ stateMachineArn: arn }));
    expect(listed.executions).toHaveLength(1);

    await expect(
      h.client.send(
        new StartExecutionCommand({ stateMachineArn: arn, name: 'o-1--attempt-1', input: '{"other":true}' }),
      ),
    ).rejects.toBeInstanceOf(ExecutionAlreadyExists);
  });

  it('an existing name whose execution has finished is refused even with the same input', async () => {
    const arn = register(h.sfn, { StartAt: 'Done', States: { Done: { Type: 'Succeed' } } });
    const started = await h.client.send(
      new StartExecutionCommand({ stateMachineArn: arn, name: 'once', input: '{}' }),
    );
    await waitForEnd(h.client, started.executionArn ?? '');
    await expect(
      h.client.send(new StartExecutionCommand({ stateMachineArn: arn, name: 'once', input: '{}' })),
    ).rejects.toBeInstanceOf(ExecutionAlreadyExists);
  });

  it('answers the documented API errors', async () => {
    const arn = register(h.sfn, { StartAt: 'Done', States: { Done: { Type: 'Succeed' } } });
    await expect(
      h.client.send(new StartExecutionCommand({ stateMachineArn: h.sfn.stateMachineArnFor('missing') })),
    ).rejects.toBeInstanceOf(StateMachineDoesNotExist);
    await expect(
      h.client.send(new StartExecutionCommand({ stateMachineArn: 'not-an-arn' })),
    ).rejects.toBeInstanceOf(InvalidArn);
    await expect(
      h.client.send(new StartExecutionCommand({ stateMachineArn: arn, name: 'has space' })),
    ).rejects.toBeInstanceOf(InvalidName);
    await expect(
      h.client.send(new StartExecutionCommand({ stateMachineArn: arn, input: '{not json' })),
    ).rejects.toBeInstanceOf(InvalidExecutionInput);
    await expect(
      h.client.send(
        new DescribeExecutionCommand({
          executionArn: `${arn.replace(':stateMachine:', ':execution:')}:nope`,
        }),
      ),
    ).rejects.toBeInstanceOf(ExecutionDoesNotExist);
  });

  it('StopExecution aborts a waiting callback; its token then answers TaskTimedOut', async () => {
    const ownQueue = await createQueue(h.sqs, 'stop-test');
    const arn = register(h.sfn, parkedDefinition(ownQueue));
    const started = await h.client.send(new StartExecutionCommand({ stateMachineArn: arn, name: 'to-stop' }));
    const { token } = (await receiveOne(h.sqs, ownQueue)) as { token: string };
    const stopped = await h.client.send(
      new StopExecutionCommand({ executionArn: started.executionArn, error: 'Operator.Stop', cause: 'test' }),
    );
    expect(stopped.stopDate).toBeInstanceOf(Date);
    const described = await h.client.send(
      new DescribeExecutionCommand({ executionArn: started.executionArn }),
    );
    expect(described).toMatchObject({ status: 'ABORTED', error: 'Operator.Stop', cause: 'test' });
    await expect(
      h.client.send(new SendTaskSuccessCommand({ taskToken: token, output: '{}' })),
    ).rejects.toBeInstanceOf(TaskTimedOut);
    expect(h.events.filter((e) => e.executionArn === started.executionArn).map((e) => e.type)).toEqual(
      expect.arrayContaining(['ExecutionStarted', 'TaskScheduled', 'ExecutionAborted']),
    );
  });

  it('an unknown resource fails the execution naming the state and resource, past any Catch', async () => {
    const arn = register(h.sfn, {
      StartAt: 'Mystery',
      States: {
        Mystery: {
          Type: 'Task',
          Resource: 'arn:aws:states:::aws-sdk:s3:getObject',
          Parameters: { Bucket: 'b', Key: 'k' },
          Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Swallowed' }],
          End: true,
        },
        Swallowed: { Type: 'Succeed' },
      },
    });
    const started = await h.client.send(new StartExecutionCommand({ stateMachineArn: arn }));
    const ended = await waitForEnd(h.client, started.executionArn ?? '');
    expect(ended.status).toBe('FAILED');
    expect(ended.error).toBe('States.Runtime');
    expect(ended.cause).toContain("State 'Mystery'");
    expect(ended.cause).toContain('aws-sdk:s3');
  });

  it('registration reports unsupported resources as warnings', () => {
    const name = 'warned';
    const registered = h.sfn.registerStateMachine(
      h.sfn.stateMachineArnFor(name),
      name,
      JSON.stringify({
        StartAt: 'Sync',
        States: { Sync: { Type: 'Task', Resource: 'arn:aws:states:::ecs:runTask.sync', End: true } },
      }),
    );
    expect(registered.warnings).toEqual([expect.stringContaining("state 'Sync'")]);
  });

  it('refuses JSONata and variables at registration with a clear error', () => {
    const jsonata = JSON.stringify({
      QueryLanguage: 'JSONata',
      StartAt: 'P',
      States: { P: { Type: 'Pass', Output: '{% $states.input %}', End: true } },
    });
    expect(() => h.sfn.registerStateMachine(h.sfn.stateMachineArnFor('jsonata'), 'jsonata', jsonata)).toThrow(
      InvalidDefinitionError,
    );
    expect(() => h.sfn.registerStateMachine(h.sfn.stateMachineArnFor('jsonata'), 'jsonata', jsonata)).toThrow(
      /QueryLanguage 'JSONata'/,
    );
    const assign = JSON.stringify({
      StartAt: 'P',
      States: { P: { Type: 'Pass', Assign: { x: 1 }, End: true } },
    });
    expect(() => h.sfn.registerStateMachine(h.sfn.stateMachineArnFor('assign'), 'assign', assign)).toThrow(
      /state 'P' uses 'Assign'/,
    );
  });

  it('enforces the execution-level TimeoutSeconds as TIMED_OUT', async () => {
    const arn = register(h.sfn, { ...parkedDefinition(parkQueue), TimeoutSeconds: 1 });
    const started = await h.client.send(new StartExecutionCommand({ stateMachineArn: arn }));
    const ended = await waitForEnd(h.client, started.executionArn ?? '', 5_000);
    expect(ended).toMatchObject({ status: 'TIMED_OUT', error: 'States.Timeout' });
  });
});
