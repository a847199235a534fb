import { VirtualClock } from '../../../../lib/local-runtime/clock';
import { SfnApiError, TaskFailure } from '../../../../lib/local-runtime/stepfunctions/errors';
import {
  type TaskTimeoutError,
  TaskTokenRegistry,
} from '../../../../lib/local-runtime/stepfunctions/task-tokens';

const owner = { executionArn: 'arn:exec', stateName: 'CallAgent', timeoutSeconds: 10 };

function registry(maxClosedTokens = 100) {
  const timeouts: TaskTimeoutError[] = [];
  const tokens = new TaskTokenRegistry({ maxClosedTokens, onTimeout: (_, error) => timeouts.push(error) });
  return { tokens, timeouts };
}

function apiError(action: () => void): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(SfnApiError);
    return (error as SfnApiError).errorType;
  }
  throw new Error('expected an API error');
}

/** Whether a promise has settled by now (after pending microtasks). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await Promise.resolve();
  await Promise.resolve();
  return done;
}

describe('TaskTokenRegistry', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('mints a distinct opaque token per task and resolves it with the success output', async () => {
    const { tokens } = registry();
    const first = tokens.issue(owner);
    const second = tokens.issue(owner);
    expect(first.token).not.toBe(second.token);
    expect(first.token).toMatch(/^lsfn1\.[A-Za-z0-9_-]{64}$/);
    tokens.succeed(first.token, { confirmationId: 'c' });
    await expect(first.outcome).resolves.toEqual({ confirmationId: 'c' });
    expect(apiError(() => tokens.succeed(first.token, {}))).toBe('TaskTimedOut');
    expect(tokens.openTokenCount()).toBe(1);
  });

  it('rejects with the failure name and cause', async () => {
    const { tokens } = registry();
    const { token, outcome } = tokens.issue(owner);
    tokens.fail(token, 'Agent.PermanentFailure', 'declined');
    await expect(outcome).rejects.toEqual(
      expect.objectContaining({ name: 'Agent.PermanentFailure', message: 'declined' }),
    );
    await expect(outcome).rejects.toBeInstanceOf(TaskFailure);
  });

  it('at TimeoutSeconds closes the token and leaves the States.Timeout to the engine', async () => {
    const { tokens, timeouts } = registry();
    const { token, outcome } = tokens.issue(owner);
    jest.advanceTimersByTime(9_999);
    expect(timeouts).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(timeouts).toEqual(['States.Timeout']);
    expect(await settled(outcome)).toBe(false);
    expect(apiError(() => tokens.heartbeat(token))).toBe('TaskTimedOut');
  });

  it('fails with States.HeartbeatTimeout without a heartbeat; each heartbeat restarts the window', async () => {
    const { tokens, timeouts } = registry();
    const { token, outcome } = tokens.issue({ ...owner, heartbeatSeconds: 2 });
    jest.advanceTimersByTime(1_500);
    tokens.heartbeat(token);
    jest.advanceTimersByTime(1_500);
    tokens.heartbeat(token);
    jest.advanceTimersByTime(1_999);
    expect(await settled(outcome)).toBe(false);
    jest.advanceTimersByTime(1);
    await expect(outcome).rejects.toEqual(expect.objectContaining({ name: 'States.HeartbeatTimeout' }));
    expect(timeouts).toEqual(['States.HeartbeatTimeout']);
    expect(apiError(() => tokens.succeed(token, {}))).toBe('TaskTimedOut');
  });

  it('answers InvalidToken for malformed and never-issued tokens', () => {
    const { tokens } = registry();
    expect(apiError(() => tokens.succeed('garbage', {}))).toBe('InvalidToken');
    expect(apiError(() => tokens.heartbeat(`lsfn1.${'x'.repeat(64)}`))).toBe('InvalidToken');
  });

  it('abortExecution rejects and closes only that execution’s tokens', async () => {
    const { tokens } = registry();
    const mine = tokens.issue(owner);
    const other = tokens.issue({ ...owner, executionArn: 'arn:other' });
    tokens.abortExecution('arn:exec', new Error('stopped'));
    await expect(mine.outcome).rejects.toThrow('stopped');
    expect(apiError(() => tokens.succeed(mine.token, {}))).toBe('TaskTimedOut');
    tokens.succeed(other.token, 'still open');
    await expect(other.outcome).resolves.toBe('still open');
  });

  it('forgets the oldest closed tokens beyond its memory (they then answer InvalidToken)', () => {
    const { tokens } = registry(1);
    const first = tokens.issue(owner);
    const second = tokens.issue(owner);
    tokens.release(first.token);
    tokens.release(second.token);
    expect(apiError(() => tokens.succeed(first.token, {}))).toBe('InvalidToken');
    expect(apiError(() => tokens.succeed(second.token, {}))).toBe('TaskTimedOut');
  });
});

describe('TaskTokenRegistry on a virtual clock', () => {
  it("fails the waiting task with States.Timeout at its deadline, the engine's wall-clock timer being too late", async () => {
    const clock = new VirtualClock({ startMillis: 0 });
    const timeouts: TaskTimeoutError[] = [];
    const tokens = new TaskTokenRegistry({
      maxClosedTokens: 10,
      onTimeout: (_, error) => timeouts.push(error),
      clock,
    });
    const { token, outcome } = tokens.issue({ ...owner, timeoutSeconds: 300 });
    await expect(outcome).rejects.toMatchObject({ name: 'States.Timeout' });
    expect(clock.now()).toBe(300_000);
    expect(timeouts).toEqual(['States.Timeout']);
    expect(apiError(() => tokens.succeed(token, {}))).toBe('TaskTimedOut');
  });

  it('times out a task without heartbeats at HeartbeatSeconds, and a heartbeat moves the deadline', async () => {
    const clock = new VirtualClock({ startMillis: 0 });
    const tokens = new TaskTokenRegistry({ maxClosedTokens: 10, onTimeout: () => undefined, clock });
    const { token, outcome } = tokens.issue({ ...owner, timeoutSeconds: 600, heartbeatSeconds: 60 });
    const beat = clock.hold('agent');
    clock.setTimer(() => tokens.heartbeat(token), 45_000);
    beat.release();
    await expect(outcome).rejects.toMatchObject({ name: 'States.HeartbeatTimeout' });
    expect(clock.now()).toBe(105_000);
  });
});
