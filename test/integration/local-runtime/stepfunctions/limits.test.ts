/**
 * Step Functions' quotas as the local runtime enforces them (lib/local-runtime/stepfunctions/limits.ts),
 * one test per quota, each naming the AWS page that states it, over the real SFN client: the API's
 * refusals (payloads, execution names, task tokens) and States.DataLimitExceeded failing an execution
 * whose task result, state output or state input after Parameters is over 256 KiB.
 */
import {
  InvalidName,
  SendTaskSuccessCommand,
  StartExecutionCommand,
  ValidationException,
} from '@aws-sdk/client-sfn';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { createQueue, receiveOne, register, type SfnHarness, startSfnHarness, waitForEnd } from './harness';

const KIB_256 = 262_144;

/** A JSON object of exactly `bytes` UTF-8 bytes: {"pad":"xxx..."}. */
const objectOf = (bytes: number) => ({ pad: 'x'.repeat(bytes - '{"pad":""}'.length) });

describe('local Step Functions: AWS quotas', () => {
  let h: SfnHarness;
  /** What each invocation of the (injected) function returns, by function name. */
  const results = new Map<string, unknown>();
  const invocations: string[] = [];

  beforeAll(async () => {
    h = await startSfnHarness({
      invokeLambda: async (functionName) => {
        invocations.push(functionName);
        return { payload: results.get(functionName) ?? {} };
      },
    });
  });
  afterAll(async () => {
    await h.stop();
  });

  const start = (stateMachineArn: string, input: string, name?: string) =>
    h.client.send(new StartExecutionCommand({ stateMachineArn, input, ...(name ? { name } : {}) }));
  const passThrough = () =>
    register(h.sfn, { StartAt: 'Done', States: { Done: { Type: 'Pass', End: true } } });
  const messagesIn = async (QueueUrl: string) =>
    Number(
      (
        await h.sqs.send(
          new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
        )
      ).Attributes?.ApproximateNumberOfMessages,
    );

  // https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html (input:
  // "Maximum length of 262144"; https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html)
  it('starts an execution with 256 KiB of input, and refuses one byte more with ValidationException', async () => {
    const arn = passThrough();
    const within = JSON.stringify(objectOf(KIB_256));
    const started = await start(arn, within);
    expect((await waitForEnd(h.client, started.executionArn ?? '')).status).toBe('SUCCEEDED');
    const refused = start(arn, JSON.stringify(objectOf(KIB_256 + 1)));
    await expect(refused).rejects.toBeInstanceOf(ValidationException);
    await expect(refused).rejects.toMatchObject({
      message:
        "1 validation error detected: Value at 'input' failed to satisfy constraint: Member must have size less than or equal to 262144 bytes in UTF-8 encoding",
    });
  });

  // https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html (name:
  // "Minimum length of 1. Maximum length of 80", and the characters it must not contain)
  it('takes an execution name of 80 characters, refuses 81 with ValidationException and forbidden characters with InvalidName', async () => {
    const arn = passThrough();
    await start(arn, '{}', 'n'.repeat(80));
    await expect(start(arn, '{}', 'n'.repeat(81))).rejects.toBeInstanceOf(ValidationException);
    for (const name of ['has space', 'a/b', 'wild*', 'brace{', 'tab\there', 'bell\u0007', 'c1\u0085']) {
      await expect(start(arn, '{}', name)).rejects.toBeInstanceOf(InvalidName);
    }
  });

  // https://docs.aws.amazon.com/step-functions/latest/apireference/API_SendTaskSuccess.html (output:
  // "Maximum length of 262144"; taskToken: "Maximum length of 2048")
  it('refuses a SendTaskSuccess output over 256 KiB and a task token over 2048 characters with ValidationException, and takes 256 KiB', async () => {
    const queue = await createQueue(h.sqs, 'limits-callbacks');
    const arn = register(h.sfn, {
      StartAt: 'Wait',
      States: {
        Wait: {
          Type: 'Task',
          Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
          Parameters: { QueueUrl: queue, MessageBody: { 'token.$': '$$.Task.Token' } },
          TimeoutSeconds: 30,
          End: true,
        },
      },
    });
    const { executionArn } = await start(arn, '{}');
    const { token } = (await receiveOne(h.sqs, queue)) as { token: string };
    const succeed = (taskToken: string, output: unknown) =>
      h.client.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(output) }));
    await expect(succeed(token, objectOf(KIB_256 + 1))).rejects.toBeInstanceOf(ValidationException);
    await expect(succeed('t'.repeat(2049), {})).rejects.toBeInstanceOf(ValidationException);
    await succeed(token, objectOf(KIB_256));
    expect((await waitForEnd(h.client, executionArn ?? '')).status).toBe('SUCCEEDED');
  });

  // https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html
  // (States.DataLimitExceeded: "the output of a connector is larger than payload size quota"; "a
  // terminal error that can't be caught by the States.ALL error type")
  it('fails the execution with States.DataLimitExceeded when a task result is over 256 KiB, past Retry and Catch', async () => {
    const functionArn = 'arn:aws:lambda:us-east-1:000000000000:function:big-result';
    results.set(functionArn, objectOf(KIB_256 + 1));
    const arn = register(h.sfn, {
      StartAt: 'Call',
      States: {
        Call: {
          Type: 'Task',
          Resource: functionArn,
          Retry: [{ ErrorEquals: ['States.ALL'], MaxAttempts: 2, IntervalSeconds: 1 }],
          Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Caught' }],
          End: true,
        },
        Caught: { Type: 'Succeed' },
      },
    });
    const before = invocations.length;
    const { executionArn } = await start(arn, '{}');
    expect(await waitForEnd(h.client, executionArn ?? '')).toMatchObject({
      status: 'FAILED',
      error: 'States.DataLimitExceeded',
      cause: `The state/task '${functionArn}' returned a result with a size exceeding the maximum number of bytes service limit.`,
    });
    expect(invocations.length - before).toBe(1);
  });

  // https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html
  // (States.DataLimitExceeded: "the output of a state is larger than payload size quota")
  it('fails the execution with States.DataLimitExceeded when a state output is over 256 KiB, before the next state runs', async () => {
    const queue = await createQueue(h.sqs, 'limits-after-big-state');
    const half = 'x'.repeat(KIB_256 / 2);
    const arn = register(h.sfn, {
      StartAt: 'Double',
      States: {
        Double: { Type: 'Pass', Parameters: { 'a.$': '$.half', 'b.$': '$.half' }, Next: 'Send' },
        Send: {
          Type: 'Task',
          Resource: 'arn:aws:states:::sqs:sendMessage',
          Parameters: { QueueUrl: queue, MessageBody: 'must not be sent' },
          End: true,
        },
      },
    });
    const { executionArn } = await start(arn, JSON.stringify({ half }));
    expect(await waitForEnd(h.client, executionArn ?? '')).toMatchObject({
      status: 'FAILED',
      error: 'States.DataLimitExceeded',
    });
    expect(await messagesIn(queue)).toBe(0);
  });

  // https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html
  // (States.DataLimitExceeded: "after Parameters processing, the input of a state is larger than
  // the payload size quota")
  it('fails the execution with States.DataLimitExceeded when a task input after Parameters is over 256 KiB, without calling the task', async () => {
    const functionArn = 'arn:aws:lambda:us-east-1:000000000000:function:big-input';
    const half = 'x'.repeat(KIB_256 / 2);
    const arn = register(h.sfn, {
      StartAt: 'Call',
      States: {
        Call: {
          Type: 'Task',
          Resource: functionArn,
          Parameters: { 'a.$': '$.half', 'b.$': '$.half' },
          End: true,
        },
      },
    });
    const before = invocations.filter((name) => name === functionArn).length;
    const { executionArn } = await start(arn, JSON.stringify({ half }));
    expect(await waitForEnd(h.client, executionArn ?? '')).toMatchObject({
      status: 'FAILED',
      error: 'States.DataLimitExceeded',
    });
    expect(invocations.filter((name) => name === functionArn).length).toBe(before);
  });
});
