/**
 * The compact shape (contracts/workflows.ts WorkflowShape, versions 5 and 6), state by state: the
 * lean shape without LoadStateRecord (the claimed record comes in the input) and without
 * `<Step>.MarkCompleted` and `MarkProcessed` on the way to Processed: each `<Step>.CallAgent` asks
 * the agent to record its step Completed (AgentRequest.recordCompletion), the last one the order
 * Processed, so one state per step and two fixed.
 */
import { AgentError, PERMANENT_AGENT_ERRORS } from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import { SchedulerEnd } from '../../../../lib/scheduler-agent-supervisor/scheduler/paths';
import { buildPaths, happyPath, STEPS } from './paths-support';

const build = buildPaths;

describe('scheduler paths, compact shape', () => {
  it('success path: 1 state per step + 2 fixed (CheckLock, Processed), starting at CheckLock', () => {
    const { states, state } = build('compact');
    expect([...states.keys()][0]).toBe('CheckLock');
    const path = happyPath(state, 'CheckLock');
    expect(path).toEqual(['CheckLock', 'Pack.CallAgent', 'Ship.CallAgent', SchedulerEnd.processed]);
    expect(path).toHaveLength(STEPS.length + 2);
  });

  it("has no LoadStateRecord and no <Step>.MarkCompleted; everything else is the lean shape's states", () => {
    const compact = [...build('compact').states.keys()];
    const lean = [...build('lean').states.keys()];
    const dropped = (name: string) => name === 'LoadStateRecord' || name.endsWith('.MarkCompleted');
    expect(compact.filter(dropped)).toEqual([]);
    expect(compact.sort()).toEqual(lean.filter((name) => !dropped(name)).sort());
  });

  it('<Step>.CallAgent asks the agent to mark the step Running and to record it Completed, handing over to the next step', () => {
    const { state } = build('compact');
    const pack = state('Pack.CallAgent').Parameters?.MessageBody as Record<string, unknown>;
    expect(pack.markRunning).toBe(true);
    expect(pack['order.$']).toBe('$.order');
    expect(pack.recordCompletion).toEqual({
      seq: 1,
      'nextDeadlineEpochMillis.$': 'States.StringToJson($.record.Item.Plan.M.Ship.N)',
    });
    // The last step's completion finishes the order.
    const ship = state('Ship.CallAgent').Parameters?.MessageBody as Record<string, unknown>;
    expect(ship.recordCompletion).toEqual({ seq: 2, finishesOrder: true });
    expect(state('Ship.CallAgent').Next).toBe(SchedulerEnd.processed);
    // A compensation records nothing: the execution writes MarkCompensated itself.
    for (const step of STEPS) {
      const undo = state(`${step.name}.Undo.CallAgent`).Parameters?.MessageBody as Record<string, unknown>;
      expect(undo.recordCompletion).toBeUndefined();
      expect(undo.markRunning).toBeUndefined();
      expect(state(`${step.name}.Undo.CallAgent`).Next).toBe(`${step.name}.Undo.MarkCompensated`);
    }
  });

  it('<Step>.CallAgent: Agent.FencedOut -> FencedOut, permanent errors -> BeginCompensation, anything else -> AttemptAbandoned', () => {
    const { state } = build('compact');
    for (const step of STEPS) {
      expect(state(`${step.name}.CallAgent`).Catch?.map((c) => [c.ErrorEquals, c.Next])).toEqual([
        [[AgentError.FencedOut], SchedulerEnd.fencedOut],
        [[...PERMANENT_AGENT_ERRORS], `${step.name}.BeginCompensation`],
        [['States.ALL'], SchedulerEnd.attemptAbandoned],
      ]);
    }
  });

  it('CheckLock routes as the lean shape does (MarkProcessed only for a record whose steps are all Completed but still Processing)', () => {
    const compact = build('compact').state('CheckLock');
    const lean = build('lean').state('CheckLock');
    expect(JSON.stringify(compact)).toBe(JSON.stringify(lean));
  });

  it('keeps every store update of the lean shape but the MarkCompleted ones, byte for byte', () => {
    const compact = build('compact');
    const lean = build('lean');
    const updates = [...compact.states].filter(([, s]) =>
      s.Resource?.endsWith(':states:::dynamodb:updateItem'),
    );
    // Per step: BeginCompensation, and its undo's four; then the two ends (MarkProcessed kept for CheckLock).
    expect(updates).toHaveLength(5 * STEPS.length + 2);
    for (const [name, update] of updates) {
      expect(JSON.stringify(update)).toBe(JSON.stringify(lean.state(name)));
    }
  });

  it('runs a single step as well: its agent finishes the order', () => {
    const { state } = build('compact', STEPS.slice(0, 1));
    expect(happyPath(state, 'CheckLock')).toEqual(['CheckLock', 'Pack.CallAgent', SchedulerEnd.processed]);
    const pack = state('Pack.CallAgent').Parameters?.MessageBody as Record<string, unknown>;
    expect(pack.recordCompletion).toEqual({ seq: 1, finishesOrder: true });
  });
});
