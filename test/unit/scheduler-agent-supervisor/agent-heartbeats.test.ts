import {
  isLateReplyError,
  TimerHeartbeats,
} from '../../../lambdas/scheduler-agent-supervisor/adapters/task-callbacks';
import type { CallbackDelivery } from '../../../lambdas/scheduler-agent-supervisor/domain/ports';

describe('TimerHeartbeats', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function beats(answers: (() => Promise<CallbackDelivery>)[]) {
    const sent: string[] = [];
    const callbacks = {
      heartbeat: (token: string) => {
        sent.push(token);
        const next = answers.shift() ?? (async () => 'delivered' as const);
        return next();
      },
    };
    return { sent, callbacks };
  }

  it('beats at once, then every interval until stopped, and not after', async () => {
    const { sent, callbacks } = beats([]);
    const stop = new TimerHeartbeats(callbacks).start('t-1', 1_000);
    await jest.advanceTimersByTimeAsync(0);
    expect(sent).toEqual(['t-1']);
    await jest.advanceTimersByTimeAsync(999);
    expect(sent).toEqual(['t-1']);
    await jest.advanceTimersByTimeAsync(2_001);
    expect(sent).toEqual(['t-1', 't-1', 't-1', 't-1']);
    stop();
    await jest.advanceTimersByTimeAsync(5_000);
    expect(sent).toHaveLength(4);
  });

  it('stops beating once the task is gone and says so', async () => {
    const late: string[] = [];
    const { sent, callbacks } = beats([async () => 'late']);
    new TimerHeartbeats(callbacks, { onLate: (token) => late.push(token) }).start('t-2', 1_000);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(sent).toEqual(['t-2']);
    expect(late).toEqual(['t-2']);
  });

  it('keeps beating after an error that is not a late reply', async () => {
    const errors: unknown[] = [];
    const { sent, callbacks } = beats([
      async () => {
        throw new Error('throttled');
      },
    ]);
    const stop = new TimerHeartbeats(callbacks, { onError: (error) => errors.push(error) }).start(
      't-3',
      1_000,
    );
    await jest.advanceTimersByTimeAsync(2_000);
    stop();
    expect(sent).toEqual(['t-3', 't-3', 't-3']);
    expect(errors).toEqual([new Error('throttled')]);
  });
});

describe('isLateReplyError', () => {
  it.each(['TaskTimedOut', 'InvalidToken', 'TaskDoesNotExist'])('%s means the task is gone', (name) => {
    const error = new Error('gone');
    error.name = name;
    expect(isLateReplyError(error)).toBe(true);
  });

  it('does not swallow other errors', () => {
    const error = new Error('slow down');
    error.name = 'ThrottlingException';
    expect(isLateReplyError(error)).toBe(false);
    expect(isLateReplyError('TaskTimedOut')).toBe(false);
  });
});
