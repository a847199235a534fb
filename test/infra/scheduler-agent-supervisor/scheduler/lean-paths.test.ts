/**
 * The lean shape (contracts/workflows.ts WorkflowShape, versions 3 and 4), state by state: no
 * LoadOrder, no `<Step>.Check`, no `<Step>.MarkRunning`; CheckLock routes to the first step not
 * completed; the agent is asked to mark its step Running and its Agent.FencedOut ends in FencedOut.
 */
import { AgentError, PERMANENT_AGENT_ERRORS } from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import { SchedulerEnd } from '../../../../lib/scheduler-agent-supervisor/scheduler/paths';
import { buildPaths, happyPath, STEPS } from './paths-support';

const build = buildPaths;

describe('scheduler paths, lean shape', () => {
  it('success path: 2 states per step + 4 fixed (LoadStateRecord, CheckLock, MarkProcessed, Processed)', () => {
    const { state } = build('lean');
    const path = happyPath(state, 'LoadStateRecord');
    expect(path).toEqual([
      'LoadStateRecord',
      'CheckLock',
      'Pack.CallAgent',
      'Pack.MarkCompleted',
      'Ship.CallAgent',
      'Ship.MarkCompleted',
      'MarkProcessed',
      SchedulerEnd.processed,
    ]);
    expect(path).toHaveLength(2 * STEPS.length + 4);
  });

  it('has no LoadOrder, no <Step>.Check and no <Step>.MarkRunning (the classic shape has all three)', () => {
    const lean = [...build('lean').states.keys()];
    const classic = [...build('classic').states.keys()];
    const dropped = (name: string) => name === 'LoadOrder' || /^[A-Za-z]+\.(Check|MarkRunning)$/.test(name);
    expect(lean.filter(dropped)).toEqual([]);
    expect(classic.filter(dropped).sort()).toEqual(
      ['LoadOrder', 'Pack.Check', 'Pack.MarkRunning', 'Ship.Check', 'Ship.MarkRunning'].sort(),
    );
    // Everything else is the same set of states.
    expect(lean.sort()).toEqual(classic.filter((name) => !dropped(name)).sort());
  });

  it('CheckLock: the first step not completed, then MarkProcessed when all are, the compensations, else FencedOut', () => {
    const { state } = build('lean');
    const checkLock = state('CheckLock');
    const rules = checkLock.Choices ?? [];
    expect(rules.map((rule) => rule.Next)).toEqual([
      'Pack.CallAgent',
      'Ship.CallAgent',
      'MarkProcessed',
      'Ship.Undo.Check',
    ]);
    for (const [index, step] of STEPS.entries()) {
      const rule = JSON.stringify(rules[index]);
      expect(rule).toContain('"StringEquals":"Processing"');
      expect(rule).toContain(`"Not":{"And":[{"Variable":"$.record.Item.Steps.M.${step.name}.M.Status.S"`);
      expect(rule).toContain('"StringEquals":"Completed"');
    }
    expect(JSON.stringify(rules[2])).toContain('"StringEquals":"Processing"');
    expect(JSON.stringify(rules[3])).toContain('"StringEquals":"CompensationInProgress"');
    for (const rule of rules) expect(JSON.stringify(rule)).toContain('"StringEqualsPath":"$.instanceId"');
    expect(checkLock.Default).toBe(SchedulerEnd.fencedOut);
  });

  it('<Step>.CallAgent asks the agent to mark the step Running, with the order from the input', () => {
    const { state } = build('lean');
    for (const step of STEPS) {
      const body = state(`${step.name}.CallAgent`).Parameters?.MessageBody as Record<string, unknown>;
      expect(body.markRunning).toBe(true);
      expect(body['order.$']).toBe('$.order');
      expect(body.order).toBeUndefined();
      // The step's planned deadline: what the agent writes as CompleteBy.
      expect(body['deadlineEpochMillis.$']).toBe(`States.StringToJson($.record.Item.Plan.M.${step.name}.N)`);
      // The compensations take the order from the input too, and never mark anything Running.
      const undo = state(`${step.name}.Undo.CallAgent`).Parameters?.MessageBody as Record<string, unknown>;
      expect(undo.markRunning).toBeUndefined();
      expect(undo['order.$']).toBe('$.order');
    }
  });

  it('<Step>.CallAgent: Agent.FencedOut -> FencedOut, permanent errors -> BeginCompensation, anything else -> AttemptAbandoned', () => {
    const { state } = build('lean');
    for (const step of STEPS) {
      expect(state(`${step.name}.CallAgent`).Catch?.map((c) => [c.ErrorEquals, c.Next])).toEqual([
        [[AgentError.FencedOut], SchedulerEnd.fencedOut],
        [[...PERMANENT_AGENT_ERRORS], `${step.name}.BeginCompensation`],
        [['States.ALL'], SchedulerEnd.attemptAbandoned],
      ]);
    }
    expect(state(SchedulerEnd.fencedOut).Type).toBe('Succeed');
  });

  it('keeps every store update of the classic shape but MarkRunning, byte for byte (only a Next may differ), but a MarkCompleted followed by a step', () => {
    const lean = build('lean');
    const classic = build('classic');
    const updates = [...lean.states].filter(([, s]) => s.Resource?.endsWith(':states:::dynamodb:updateItem'));
    // Per step: MarkCompleted, BeginCompensation, and its undo's four; then the two ends.
    expect(updates).toHaveLength(6 * STEPS.length + 2);
    for (const [name, update] of updates) {
      expect(update.Catch?.[0]?.Next).toBe(SchedulerEnd.fencedOut);
      // Checked in the next test: it also hands CompleteBy over to the next step.
      if (name === 'Pack.MarkCompleted') continue;
      const { Next: _lean, ...leanUpdate } = update;
      const { Next: _classic, ...classicUpdate } = classic.state(name);
      expect(JSON.stringify(leanUpdate)).toBe(JSON.stringify(classicUpdate));
    }
  });

  it('a MarkCompleted followed by a step sets CompleteBy to that step planned deadline (markStepCompletedHandingOver); the last one does not', () => {
    const { state } = build('lean');
    const pack = state('Pack.MarkCompleted').Parameters as Record<string, unknown>;
    expect(pack.UpdateExpression).toContain('#completeBy = :completeBy');
    expect(JSON.stringify(pack.ExpressionAttributeValues)).toContain(
      '":completeBy":{"N.$":"$.record.Item.Plan.M.Ship.N"}',
    );
    expect(state('Pack.MarkCompleted').Comment).toContain('markStepCompletedHandingOver');
    const ship = state('Ship.MarkCompleted').Parameters as Record<string, unknown>;
    expect(ship.UpdateExpression).not.toContain('#completeBy');
  });

  it('compensation path: a permanent failure begins the compensation chain over the steps in reverse, as classic', () => {
    const { state } = build('lean');
    expect(state('Ship.BeginCompensation').Next).toBe('Ship.Undo.Check');
    expect(state('Pack.BeginCompensation').Next).toBe('Ship.Undo.Check');
    expect(state('Ship.Undo.MarkCompensated').Next).toBe('Pack.Undo.Check');
  });

  it('runs a single step as well', () => {
    const { state } = build('lean', STEPS.slice(0, 1));
    expect(happyPath(state, 'LoadStateRecord')).toEqual([
      'LoadStateRecord',
      'CheckLock',
      'Pack.CallAgent',
      'Pack.MarkCompleted',
      'MarkProcessed',
      SchedulerEnd.processed,
    ]);
  });

  it('fails when the steps are empty, as the classic shape does', () => {
    expect(() => build('lean', [])).toThrow('steps must not be empty');
  });
});
