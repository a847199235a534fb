/**
 * A request-response task on a virtual clock is timed out by the runtime (the engine's own timer is
 * Node's and set out of reach), with the genuine States.Timeout; on the wall clock, and for callback
 * tasks, the call is left as it is.
 */
import { VirtualClock, WallClock } from '../../../../lib/local-runtime/clock';
import { prepareDefinition } from '../../../../lib/local-runtime/stepfunctions/definition';
import { taskWithinTimeout } from '../../../../lib/local-runtime/stepfunctions/execution';

const DEFINITION = JSON.stringify({
  StartAt: 'Call',
  States: {
    Call: { Type: 'Task', Resource: 'arn:aws:states:::lambda:invoke', TimeoutSeconds: 300, End: true },
  },
});

describe('task timeouts on a virtual clock', () => {
  it('leaves the engine a timer it never reaches, and times the task out on the clock instead', async () => {
    const virtual = prepareDefinition('m', DEFINITION, true);
    const wall = prepareDefinition('m', DEFINITION);
    const engineTimeout = (prepared: typeof wall) =>
      (prepared.engineDefinition.States as Record<string, { TimeoutSeconds: number }>).Call?.TimeoutSeconds;
    expect(engineTimeout(wall)).toBe(300);
    expect(engineTimeout(virtual)).toBeGreaterThan(2_000_000);
    const spec = virtual.tasks.get('Call');
    const clock = new VirtualClock({ startMillis: 0 });
    const never = new Promise<never>(() => undefined);
    await expect(taskWithinTimeout(never, spec, clock)).rejects.toMatchObject({
      name: 'States.Timeout',
      timedOut: true,
    });
    expect(clock.now()).toBe(300_000);
  });

  it('answers what the call answers before the deadline, and leaves wall-clock and callback tasks alone', async () => {
    const spec = prepareDefinition('m', DEFINITION, true).tasks.get('Call');
    const clock = new VirtualClock({ startMillis: 0 });
    await expect(taskWithinTimeout(Promise.resolve('done'), spec, clock)).resolves.toBe('done');
    const call = Promise.resolve('as is');
    expect(taskWithinTimeout(call, spec, new WallClock())).toBe(call);
    expect(taskWithinTimeout(call, undefined, clock)).toBe(call);
  });
});
