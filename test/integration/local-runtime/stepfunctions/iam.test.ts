/**
 * What the Step Functions API asks IAM (lib/local-runtime/stepfunctions/iam-requests.ts), over real
 * HTTP with the real SFN client: each operation's action on its resource, SendTaskSuccess on the
 * state machine of the token's execution, nothing for a token the runtime does not know (its answer
 * is InvalidToken), and a refusal reaches the client as AccessDeniedException, changing nothing.
 * The runtime's provisioner plugs the account's IAM into the same hook (its verdicts are proven in
 * test/unit/local-runtime/iam and, end to end, in test/faults/broken-grants.test.ts).
 */
import {
  DescribeExecutionCommand,
  ListExecutionsCommand,
  SendTaskSuccessCommand,
  SFNClient,
  type SFNServiceException,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import {
  type LocalStepFunctions,
  type StepFunctionsCheck,
  startLocalStepFunctions,
} from '../../../../lib/local-runtime/stepfunctions';
import { SfnApiError } from '../../../../lib/local-runtime/stepfunctions/errors';
import { TEST_CREDENTIALS, TEST_REGION } from '../../../support/emulators';

describe('Step Functions API authorization', () => {
  let sfn: LocalStepFunctions;
  let client: SFNClient;
  const asked: StepFunctionsCheck[][] = [];
  /** The actions the test's caller is refused. */
  const refused = new Set<string>();
  const tokens: string[] = [];
  let machineArn: string;

  beforeAll(async () => {
    sfn = await startLocalStepFunctions({
      region: TEST_REGION,
      invokeLambda: async (_name, payload) => {
        tokens.push(String((payload as { token: string }).token));
        return { payload: {} };
      },
      authorize: (checks) => {
        asked.push([...checks]);
        const denied = checks.find((check) => refused.has(check.action));
        if (denied) {
          throw new SfnApiError(
            'AccessDeniedException',
            `User: tester is not authorized to perform: ${denied.action} on resource: ${denied.resource}`,
          );
        }
      },
    });
    machineArn = sfn.stateMachineArnFor('callback');
    sfn.registerStateMachine(
      machineArn,
      'callback',
      JSON.stringify({
        StartAt: 'Wait',
        States: {
          Wait: {
            Type: 'Task',
            Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
            Parameters: { FunctionName: 'agent', Payload: { 'token.$': '$$.Task.Token' } },
            TimeoutSeconds: 60,
            End: true,
          },
        },
      }),
    );
    client = new SFNClient({
      endpoint: sfn.endpoint,
      region: TEST_REGION,
      credentials: TEST_CREDENTIALS,
      maxAttempts: 1,
    });
  });
  afterAll(async () => {
    client?.destroy();
    await sfn?.stop();
  });
  beforeEach(() => {
    asked.length = 0;
    refused.clear();
  });

  async function started(): Promise<{ executionArn: string; token: string }> {
    const before = tokens.length;
    const { executionArn = '' } = await client.send(
      new StartExecutionCommand({ stateMachineArn: machineArn }),
    );
    for (let waited = 0; tokens.length === before && waited < 100; waited += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { executionArn, token: tokens.at(-1) ?? '' };
  }

  it('asks for each operation’s action on its resource', async () => {
    const { executionArn } = await started();
    await client.send(new DescribeExecutionCommand({ executionArn }));
    await client.send(new ListExecutionsCommand({ stateMachineArn: machineArn }));
    expect(asked).toEqual([
      [{ action: 'states:StartExecution', resource: machineArn }],
      [{ action: 'states:DescribeExecution', resource: executionArn }],
      [{ action: 'states:ListExecutions', resource: machineArn }],
    ]);
  });

  it('asks SendTaskSuccess on the state machine of the token’s execution, and nothing for an unknown token', async () => {
    const { token } = await started();
    asked.length = 0;
    await client.send(new SendTaskSuccessCommand({ taskToken: token, output: '{}' }));
    expect(asked).toEqual([[{ action: 'states:SendTaskSuccess', resource: machineArn }]]);
    // Answered already: its execution is still remembered (a late answer is TaskTimedOut, not AccessDenied).
    asked.length = 0;
    await expect(client.send(new SendTaskSuccessCommand({ taskToken: token, output: '{}' }))).rejects.toThrow(
      expect.objectContaining({ name: 'TaskTimedOut' }),
    );
    expect(asked).toEqual([[{ action: 'states:SendTaskSuccess', resource: machineArn }]]);
    asked.length = 0;
    await expect(
      client.send(new SendTaskSuccessCommand({ taskToken: 'not-a-token', output: '{}' })),
    ).rejects.toThrow(expect.objectContaining({ name: 'InvalidToken' }));
    expect(asked).toEqual([[]]);
  });

  it('answers a refusal AccessDeniedException and changes nothing: the task still waits', async () => {
    const { executionArn, token } = await started();
    refused.add('states:SendTaskSuccess');
    const refusal = await client
      .send(new SendTaskSuccessCommand({ taskToken: token, output: '{}' }))
      .catch((error: unknown) => error as SFNServiceException);
    expect(refusal).toMatchObject({
      name: 'AccessDeniedException',
      message: `User: tester is not authorized to perform: states:SendTaskSuccess on resource: ${machineArn}`,
      $metadata: { httpStatusCode: 400 },
    });
    refused.clear();
    expect((await client.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('RUNNING');
    await client.send(new SendTaskSuccessCommand({ taskToken: token, output: '{}' }));
  });
});
