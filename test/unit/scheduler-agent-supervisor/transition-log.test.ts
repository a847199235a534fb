/** The order transition log of `npm start` (a local runtime observer of the wing). */
import { describeTransitions } from '../../../lib/scheduler-agent-supervisor/local/transition-log';

describe('order transition log', () => {
  const record = (
    state: string,
    attempt: number,
    steps: Record<string, string>,
    extra: Record<string, unknown> = {},
  ) => ({
    OrderID: 'A-1',
    ProcessState: state,
    Attempt: attempt,
    FailureCount: 0,
    Steps: Object.fromEntries(Object.entries(steps).map(([name, status]) => [name, { Status: status }])),
    ...extra,
  });

  it('describes a new order, a claim, step progress and an error', () => {
    const pending = record('Pending', 0, { ReserveInventory: 'NotStarted' });
    expect(describeTransitions(undefined, pending)).toEqual(['order A-1 Pending (attempt 0)']);
    const claimed = record(
      'Processing',
      1,
      { ReserveInventory: 'NotStarted' },
      { LockedBy: 'A-1--attempt-1' },
    );
    expect(describeTransitions(pending, claimed)).toEqual([
      'order A-1 Processing (attempt 1, locked by A-1--attempt-1)',
    ]);
    const running = record('Processing', 1, { ReserveInventory: 'Running' }, { LockedBy: 'A-1--attempt-1' });
    expect(describeTransitions(claimed, running)).toEqual([
      'order A-1 step ReserveInventory Running (attempt 1)',
    ]);
    expect(describeTransitions(running, running)).toEqual([]);
    const failed = record(
      'Error',
      1,
      { ReserveInventory: 'Running' },
      { FailureCount: 3, LastError: { Error: 'Agent.PermanentFailure', Cause: 'declined' } },
    );
    const done = record('Processed', 1, { ReserveInventory: 'Completed' });
    expect(describeTransitions(running, done)).toEqual([
      'order A-1 step ReserveInventory Completed (attempt 1)',
      'order A-1 Processed (attempt 1)',
    ]);
    expect(describeTransitions(running, failed)).toEqual([
      'order A-1 Error (attempt 1, failures 3): Agent.PermanentFailure - declined',
    ]);
  });
});
