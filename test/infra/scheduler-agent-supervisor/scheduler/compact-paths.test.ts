/**
 * The compact shape (contracts/workflows.ts WorkflowShape, versions 5 and 6), state by state: the
 * lean shape without LoadStateRecord (the claimed record comes in the input) and without
 * `<Step>.MarkCompleted` and `MarkProcessed` on the way to Processed: each `<Step>.CallAgent` asks
 * the agent to record its step Completed (AgentRequest.recordCompletion), the last one the order
 * Processed, so one state per step and two fixed.
 */
import {
  AgentError,
  PERMANENT_AGENT_ERRORS,
  renderTransition,
} from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import { CONDITIONAL_CHECK_FAILED } from '../../../../lib/scheduler-agent-supervisor/scheduler/data-tasks';
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

  it("has no LoadStateRecord and no <Step>.MarkCompleted; everything else is the lean shape's states, and <Step>.BeginCompensationUncertain", () => {
    const compact = [...build('compact').states.keys()];
    const lean = [...build('lean').states.keys()];
    const dropped = (name: string) => name === 'LoadStateRecord' || name.endsWith('.MarkCompleted');
    const added = STEPS.map((step) => `${step.name}.BeginCompensationUncertain`);
    expect(compact.filter(dropped)).toEqual([]);
    expect(lean.filter((name) => added.includes(name))).toEqual([]);
    expect(compact.sort()).toEqual([...lean.filter((name) => !dropped(name)), ...added].sort());
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

  it('<Step>.CallAgent: Agent.FencedOut -> FencedOut, a spent budget -> BeginCompensationUncertain (before the refusals), a refusal -> BeginCompensation, anything else -> AttemptAbandoned', () => {
    const { state } = build('compact');
    const refusals = PERMANENT_AGENT_ERRORS.filter((error) => error !== AgentError.RetryBudgetExhausted);
    expect(refusals).toContain(AgentError.Permanent);
    for (const step of STEPS) {
      expect(state(`${step.name}.CallAgent`).Catch?.map((c) => [c.ErrorEquals, c.Next])).toEqual([
        [[AgentError.FencedOut], SchedulerEnd.fencedOut],
        [[AgentError.RetryBudgetExhausted], `${step.name}.BeginCompensationUncertain`],
        [refusals, `${step.name}.BeginCompensation`],
        [['States.ALL'], SchedulerEnd.attemptAbandoned],
      ]);
      // Both keep the agent's answer where LastError reads it.
      expect(state(`${step.name}.CallAgent`).Catch?.[1]?.ResultPath).toBe('$.error');
    }
  });

  it("a spent budget: <Step>.BeginCompensationUncertain (the step TimedOut, fenced) -> that step's Undo.MarkUncertain -> its undo -> the undo of the step before it", () => {
    const { state } = build('compact');
    const follow = (from: string) => {
      const path = [from];
      for (let next = state(from).Next; next !== undefined; next = state(next).Next) {
        path.push(next);
        if (state(next).Type === 'Choice') break;
      }
      return path;
    };
    expect(follow('Ship.BeginCompensationUncertain')).toEqual([
      'Ship.BeginCompensationUncertain',
      'Ship.Undo.MarkUncertain',
      'Ship.Undo.CallAgent',
      'Ship.Undo.MarkCompensated',
      'Pack.Undo.Check',
    ]);
    // The first step's undo goes on to the end; the steps after it never ran: nothing to undo.
    expect(follow('Pack.BeginCompensationUncertain')).toEqual([
      'Pack.BeginCompensationUncertain',
      'Pack.Undo.MarkUncertain',
      'Pack.Undo.CallAgent',
      'Pack.Undo.MarkCompensated',
      'MarkCompensated',
      SchedulerEnd.compensated,
    ]);
    for (const step of STEPS) {
      const update = state(`${step.name}.BeginCompensationUncertain`);
      const p = update.Parameters as Record<string, unknown>;
      const rendered = renderTransition('beginCompensationUncertain', { step: step.name });
      expect(update.Comment).toMatch(/\(transition beginCompensationUncertain\)\.$/);
      expect([p.UpdateExpression, p.ConditionExpression]).toEqual([
        rendered.updateExpression,
        rendered.conditionExpression,
      ]);
      expect(p.ExpressionAttributeValues).toMatchObject({
        ':timedOut': { S: 'TimedOut' },
        ':lastError': { M: { Source: { S: step.name }, Error: { 'S.$': '$.error.Error' } } },
        // Its own compensation runs first.
        ':completeBy': { 'N.$': `$.record.Item.Plan.M.${step.compensation.name}.N` },
      });
      expect(update.Catch).toEqual([
        { ErrorEquals: [CONDITIONAL_CHECK_FAILED], ResultPath: '$.fencedOut', Next: SchedulerEnd.fencedOut },
      ]);
    }
    // A refusal is unchanged: the step Failed, then the whole chain from the last step's Undo.Check.
    for (const step of STEPS) expect(state(`${step.name}.BeginCompensation`).Next).toBe('Ship.Undo.Check');
  });

  it('the lean and classic shapes (pinned versions) keep a spent budget with the refusals: no BeginCompensationUncertain', () => {
    for (const shape of ['lean', undefined] as const) {
      const { states, state } = build(shape);
      expect([...states.keys()].filter((name) => name.endsWith('.BeginCompensationUncertain'))).toEqual([]);
      for (const step of STEPS) {
        const budget = state(`${step.name}.CallAgent`).Catch?.find((c) =>
          c.ErrorEquals.includes(AgentError.RetryBudgetExhausted),
        );
        expect({ shape, next: budget?.Next }).toEqual({ shape, next: `${step.name}.BeginCompensation` });
      }
    }
  });

  it('CheckLock routes as the lean shape does (MarkProcessed only for a record whose steps are all Completed but still Processing)', () => {
    const compact = build('compact').state('CheckLock');
    const lean = build('lean').state('CheckLock');
    expect(JSON.stringify(compact)).toBe(JSON.stringify(lean));
  });

  it('keeps every store update of the lean shape but the MarkCompleted ones, byte for byte, and adds BeginCompensationUncertain', () => {
    const compact = build('compact');
    const lean = build('lean');
    const updates = [...compact.states].filter(([, s]) =>
      s.Resource?.endsWith(':states:::dynamodb:updateItem'),
    );
    // Per step: BeginCompensation, BeginCompensationUncertain (the compact shape's own), and its
    // undo's four; then the two ends (MarkProcessed kept for CheckLock).
    expect(updates).toHaveLength(6 * STEPS.length + 2);
    for (const [name, update] of updates) {
      if (name.endsWith('.BeginCompensationUncertain')) continue;
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
