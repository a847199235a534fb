/**
 * SfnExecutionWorkflows over the real SFN client against the local runtime's Step Functions: the
 * definition that ran the execution (DescribeStateMachineForExecution, even after the state machine
 * was given another), and the path from GetExecutionHistory with each state's end: succeeded,
 * caught (with the error and the state the Catch went to), failed (a Fail state, with the
 * execution's error), running; paging bounded. The function's IAM grants are checked by the infra
 * test and exercised through the deployed route by the console's browser test.
 */
import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { SfnExecutionWorkflows } from '../../../../lambdas/scheduler-agent-supervisor/adapters/execution-workflow';
import { WorkflowStateOutcome } from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import {
  register,
  type SfnHarness,
  startSfnHarness,
  waitForEnd,
} from '../../local-runtime/stepfunctions/harness';

const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:agent';

/** Pass -> Choice -> Task (its error caught to a Fail state) or Succeed. */
const definition = {
  StartAt: 'Load',
  States: {
    Load: { Type: 'Pass', Next: 'Route' },
    Route: {
      Type: 'Choice',
      Choices: [{ Variable: '$.wait', BooleanEquals: true, Next: 'Hold' }],
      Default: 'CallAgent',
    },
    Hold: {
      Type: 'Task',
      Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
      Parameters: { QueueUrl: 'http://localhost/none', 'MessageBody.$': '$$.Task.Token' },
      End: true,
    },
    CallAgent: {
      Type: 'Task',
      Resource: FUNCTION_ARN,
      Catch: [{ ErrorEquals: ['Agent.PermanentFailure'], Next: 'Abandoned' }],
      Next: 'Done',
    },
    Done: { Type: 'Succeed' },
    Abandoned: { Type: 'Fail', Error: 'AttemptAbandoned', Cause: 'the agent gave up' },
  },
};

describe('SfnExecutionWorkflows (local Step Functions, real SFN client)', () => {
  let h: SfnHarness;
  let stateMachineArn: string;
  let workflows: SfnExecutionWorkflows;
  const bounds = { pageSize: 500, maxPages: 2 };

  beforeAll(async () => {
    h = await startSfnHarness({
      invokeLambda: async (_functionName, payload) =>
        (payload as { fail?: boolean }).fail
          ? {
              payload: { errorType: 'Agent.PermanentFailure', errorMessage: 'refused for good' },
              functionError: 'Unhandled',
            }
          : { payload: { ok: true } },
    });
    stateMachineArn = register(h.sfn, definition, 'workflow');
    workflows = new SfnExecutionWorkflows(h.client, new Map([[7, stateMachineArn]]));
  });
  afterAll(async () => {
    await h?.stop();
  });

  async function run(name: string, input: object) {
    const { executionArn = '' } = await h.client.send(
      new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(input) }),
    );
    return executionArn;
  }

  it('reads a succeeded execution: its definition and each state entered, in order, succeeded to the next', async () => {
    await waitForEnd(h.client, await run('ok--attempt-1', { wait: false }));

    const execution = await workflows.workflow('ok--attempt-1', 7, bounds);

    expect(execution).toMatchObject({ name: 'ok--attempt-1', status: 'SUCCEEDED', pathComplete: true });
    expect(JSON.parse(execution?.definition ?? '')).toEqual(definition);
    expect(execution?.path.map(({ name, type, outcome, next }) => ({ name, type, outcome, next }))).toEqual([
      { name: 'Load', type: 'Pass', outcome: WorkflowStateOutcome.Succeeded, next: 'Route' },
      { name: 'Route', type: 'Choice', outcome: WorkflowStateOutcome.Succeeded, next: 'CallAgent' },
      { name: 'CallAgent', type: 'Task', outcome: WorkflowStateOutcome.Succeeded, next: 'Done' },
      { name: 'Done', type: 'Succeed', outcome: WorkflowStateOutcome.Succeeded, next: undefined },
    ]);
    for (const state of execution?.path ?? []) expect(state.error).toBeUndefined();
  });

  it('marks a caught task with its error and where the Catch went, and the Fail state failed with its error and cause', async () => {
    await waitForEnd(h.client, await run('caught--attempt-2', { wait: false, fail: true }));

    const execution = await workflows.workflow('caught--attempt-2', 7, bounds);

    expect(execution?.status).toBe('FAILED');
    expect(execution?.path.slice(2)).toEqual([
      expect.objectContaining({
        name: 'CallAgent',
        outcome: WorkflowStateOutcome.Caught,
        error: 'Agent.PermanentFailure',
        cause: expect.stringContaining('refused for good'),
        next: 'Abandoned',
      }),
      expect.objectContaining({
        name: 'Abandoned',
        type: 'Fail',
        outcome: WorkflowStateOutcome.Failed,
        error: 'AttemptAbandoned',
        cause: 'the agent gave up',
      }),
    ]);
  });

  it('says a state the execution waits in is running', async () => {
    await run('waiting--attempt-1', { wait: true });

    const execution = await workflows.workflow('waiting--attempt-1', 7, bounds);

    expect(execution?.status).toBe('RUNNING');
    expect(execution?.path.at(-1)).toMatchObject({ name: 'Hold', outcome: WorkflowStateOutcome.Running });
  });

  it('keeps the definition the execution ran after the state machine is given another', async () => {
    await waitForEnd(h.client, await run('before--attempt-1', { wait: false }));
    const changed = { ...definition, Comment: 'a later revision' };
    h.sfn.registerStateMachine(
      stateMachineArn,
      stateMachineArn.split(':').pop() ?? '',
      JSON.stringify(changed),
    );

    const execution = await workflows.workflow('before--attempt-1', 7, bounds);

    expect(JSON.parse(execution?.definition ?? '')).toEqual(definition);
    h.sfn.registerStateMachine(
      stateMachineArn,
      stateMachineArn.split(':').pop() ?? '',
      JSON.stringify(definition),
    );
  });

  it('says when the history was cut short, and answers undefined for an unknown execution or version', async () => {
    const cut = await workflows.workflow('ok--attempt-1', 7, { pageSize: 3, maxPages: 2 });
    expect(cut?.pathComplete).toBe(false);
    expect(cut?.path.map((state) => state.name)).toEqual(['Load', 'Route', 'CallAgent']);

    expect(await workflows.workflow('never--attempt-1', 7, bounds)).toBeUndefined();
    expect(await workflows.workflow('ok--attempt-1', 99, bounds)).toBeUndefined();
  });
});
