/**
 * Step Functions on a virtual clock, over the real SFN client: Wait states (Seconds, Timestamp,
 * SecondsPath, TimestampPath), Retry intervals and task timeouts are the engine's own timers, and
 * they end when the clock reaches them, not after as much of the machine's time; the dates the API
 * gives are the clock's.
 */
import { GetExecutionHistoryCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { VirtualClock } from '../../../../lib/local-runtime/clock';
import { register, type SfnHarness, startSfnHarness, waitForEnd } from './harness';

const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:flaky';
const HOUR = 3_600_000;

describe('local Step Functions on a virtual clock (real SFN client)', () => {
  let h: SfnHarness;
  const clock = new VirtualClock({ startMillis: Date.parse('2030-01-01T00:00:00Z') });
  let calls: number[] = [];
  beforeAll(async () => {
    h = await startSfnHarness({
      clock,
      invokeLambda: async (_functionName, payload) => {
        if ((payload as { hang?: boolean }).hang) return new Promise<never>(() => undefined);
        calls.push(clock.now());
        // Fails twice, then answers: the Retry's intervals pass on the clock in between.
        return calls.length <= 2
          ? { payload: { errorType: 'Flaky', errorMessage: 'not yet' }, functionError: 'Unhandled' }
          : { payload: { done: true } };
      },
    });
  });
  afterAll(async () => {
    await h.stop();
    clock.stop();
  });

  async function run(definition: object, input: object = {}) {
    const { executionArn = '' } = await h.client.send(
      new StartExecutionCommand({
        stateMachineArn: register(h.sfn, definition, 'virtual'),
        input: JSON.stringify(input),
      }),
    );
    const ended = await waitForEnd(h.client, executionArn);
    const { events = [] } = await h.client.send(new GetExecutionHistoryCommand({ executionArn }));
    return { ended, events };
  }

  it('ends a Wait of a day, of SecondsPath and of TimestampPath when the clock reaches them', async () => {
    const startedAt = clock.now();
    const { ended, events } = await run(
      {
        StartAt: 'Day',
        States: {
          Day: { Type: 'Wait', Seconds: 86_400, Next: 'ByPath' },
          ByPath: { Type: 'Wait', SecondsPath: '$.seconds', Next: 'Until' },
          Until: { Type: 'Wait', TimestampPath: '$.until', End: true },
        },
      },
      { seconds: 7_200, until: new Date(startedAt + 30 * HOUR).toISOString() },
    );
    expect(ended.status).toBe('SUCCEEDED');
    const took = (ended.stopDate?.getTime() ?? 0) - (ended.startDate?.getTime() ?? 0);
    // 24 h, then 2 h, then until 30 h after the start: the clock's time, to the second.
    expect(took).toBeGreaterThanOrEqual(30 * HOUR - 1_000);
    expect(took).toBeLessThan(30 * HOUR + 1_000);
    const exited = (name: string) =>
      events
        .find((event) => event.type === 'WaitStateExited' && event.stateExitedEventDetails?.name === name)
        ?.timestamp?.getTime() ?? 0;
    expect(exited('Day') - startedAt).toBeGreaterThanOrEqual(24 * HOUR);
    expect(exited('ByPath') - exited('Day')).toBeGreaterThanOrEqual(2 * HOUR);
    expect(exited('ByPath') - exited('Day')).toBeLessThan(2 * HOUR + 1_000);
  });

  it('waits a Retry interval (10 minutes, doubled) on the clock between attempts', async () => {
    calls = [];
    const { ended } = await run({
      StartAt: 'Call',
      States: {
        Call: {
          Type: 'Task',
          Resource: FUNCTION_ARN,
          Retry: [{ ErrorEquals: ['States.ALL'], IntervalSeconds: 600, BackoffRate: 2, MaxAttempts: 3 }],
          End: true,
        },
      },
    });
    expect({ status: ended.status, cause: ended.cause }).toEqual({ status: 'SUCCEEDED', cause: undefined });
    expect(calls).toHaveLength(3);
    const [first = 0, second = 0, third = 0] = calls;
    expect(second - first).toBeGreaterThanOrEqual(600_000);
    expect(second - first).toBeLessThan(601_000);
    expect(third - second).toBeGreaterThanOrEqual(1_200_000);
    expect(third - second).toBeLessThan(1_201_000);
  });

  it('times a task out on the clock with the genuine States.Timeout, which States.TaskFailed does not catch', async () => {
    const { ended, events } = await run(
      {
        StartAt: 'Call',
        States: {
          Call: {
            Type: 'Task',
            Resource: FUNCTION_ARN,
            TimeoutSeconds: 300,
            Catch: [
              { ErrorEquals: ['States.TaskFailed'], Next: 'Failed' },
              { ErrorEquals: ['States.Timeout'], ResultPath: '$.error', Next: 'TimedOut' },
            ],
            End: true,
          },
          Failed: { Type: 'Fail', Error: 'WrongCatcher' },
          TimedOut: { Type: 'Pass', End: true },
        },
      },
      { hang: true },
    );
    expect({ status: ended.status, output: JSON.parse(ended.output ?? '{}') }).toEqual({
      status: 'SUCCEEDED',
      output: { hang: true, error: expect.objectContaining({ Error: 'States.Timeout' }) },
    });
    const took = (ended.stopDate?.getTime() ?? 0) - (ended.startDate?.getTime() ?? 0);
    expect(took).toBeGreaterThanOrEqual(300_000);
    expect(took).toBeLessThan(301_000);
    expect(events.map((event) => event.type)).toContain('LambdaFunctionTimedOut');
  });
});
