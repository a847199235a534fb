import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { StepDefinition } from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import { SchedulerEnd, stepProblems } from '../../../../lib/scheduler-agent-supervisor/scheduler/paths';
import { partsStack } from '../../support/state-graph';
import { buildPaths, happyPath, STEPS } from './paths-support';

const build = (steps?: readonly StepDefinition[]) => buildPaths(undefined, steps);

describe('scheduler paths', () => {
  it('success path: load, check the lock, every step in order, MarkProcessed, Processed', () => {
    const { state } = build();
    expect(happyPath(state, 'LoadStateRecord')).toEqual([
      'LoadStateRecord',
      'LoadOrder',
      'CheckLock',
      'Pack.Check',
      'Pack.MarkRunning',
      'Pack.CallAgent',
      'Pack.MarkCompleted',
      'Ship.Check',
      'Ship.MarkRunning',
      'Ship.CallAgent',
      'Ship.MarkCompleted',
      'MarkProcessed',
      SchedulerEnd.processed,
    ]);
    // CheckLock's rule (lock held) leads to the first step; its default is the fenced path.
    expect(state('CheckLock').Choices?.[0]?.Next).toBe('Pack.Check');
    expect(state('Pack.Check').Choices?.[0]?.Next).toBe('Ship.Check');
    expect(state('Ship.Check').Choices?.[0]?.Next).toBe('MarkProcessed');
  });

  it('compensation path: a permanent failure of any step begins the compensation chain, over the steps in reverse', () => {
    const { state } = build();
    for (const step of STEPS) {
      expect(state(`${step.name}.BeginCompensation`).Next).toBe('Ship.Undo.Check');
    }
    // The chain when every undo has work: the intent, the call, the outcome; the last step first.
    const chain: string[] = [];
    for (let name: string | undefined = 'Ship.Undo.Check'; name !== undefined; ) {
      chain.push(name);
      const current = state(name);
      name = current.Type === 'Choice' ? (current.Choices?.[0]?.Next as string) : current.Next;
    }
    expect(chain).toEqual([
      'Ship.Undo.Check',
      'Ship.Undo.MarkCompensating',
      'Ship.Undo.CallAgent',
      'Ship.Undo.MarkCompensated',
      'Pack.Undo.Check',
      'Pack.Undo.MarkCompensating',
      'Pack.Undo.CallAgent',
      'Pack.Undo.MarkCompensated',
      'MarkCompensated',
      SchedulerEnd.compensated,
    ]);
    // Nothing to undo: each check's default goes on to the one before, then MarkCompensated.
    expect(state('Ship.Undo.Check').Default).toBe('Pack.Undo.Check');
    expect(state('Pack.Undo.Check').Default).toBe('MarkCompensated');
    expect(state(SchedulerEnd.compensated).Type).toBe('Succeed');
  });

  it('CheckLock: Processing runs the steps, CompensationInProgress the compensation chain, anything else is fenced out', () => {
    const { state } = build();
    const rules = state('CheckLock').Choices ?? [];
    expect(rules.map((rule) => rule.Next)).toEqual(['Pack.Check', 'Ship.Undo.Check']);
    expect(JSON.stringify(rules[0])).toContain('"StringEquals":"Processing"');
    expect(JSON.stringify(rules[1])).toContain('"StringEquals":"CompensationInProgress"');
    for (const rule of rules) expect(JSON.stringify(rule)).toContain('"StringEqualsPath":"$.instanceId"');
  });

  it('compensation failure path: a refused compensation of any step -> CompensationFailed (its alert in the same write), Fail', () => {
    const { state } = build();
    for (const step of STEPS) {
      expect(happyPath(state, `${step.name}.Undo.PermanentFailure`)).toEqual([
        `${step.name}.Undo.PermanentFailure`,
        `${step.name}.Undo.MarkCompensationFailed`,
        SchedulerEnd.compensationFailed,
      ]);
    }
    expect(state(SchedulerEnd.compensationFailed)).toMatchObject({
      Type: 'Fail',
      Error: 'CompensationFailed',
    });
    expect(JSON.stringify(state(`${STEPS[0]?.name}.Undo.MarkCompensationFailed`).Parameters)).toContain(
      '#alertOutbox.#alertId = :alertEntry',
    );
  });

  it('fenced path: CheckLock and every store update end in FencedOut, a Succeed that changes nothing', () => {
    const { states, state } = build();
    expect(state('CheckLock').Default).toBe(SchedulerEnd.fencedOut);
    const updates = [...states].filter(([, s]) => s.Resource?.endsWith(':states:::dynamodb:updateItem'));
    // Per step: MarkRunning, MarkCompleted, BeginCompensation, and its undo's four; then the two ends.
    expect(updates).toHaveLength(7 * STEPS.length + 2);
    for (const [, update] of updates) expect(update.Catch?.[0]?.Next).toBe(SchedulerEnd.fencedOut);
    expect(state(SchedulerEnd.fencedOut).Type).toBe('Succeed');
  });

  it('abandoned path: only agent calls reach AttemptAbandoned, a Fail that touches nothing', () => {
    const { states, state } = build();
    const sources = [...states]
      .filter(([, s]) => s.Catch?.some((c) => c.Next === SchedulerEnd.attemptAbandoned))
      .map(([name]) => name);
    expect(sources.sort()).toEqual([
      'Pack.CallAgent',
      'Pack.Undo.CallAgent',
      'Ship.CallAgent',
      'Ship.Undo.CallAgent',
    ]);
    expect(state(SchedulerEnd.attemptAbandoned)).toMatchObject({ Type: 'Fail', Error: 'AttemptAbandoned' });
  });

  it('runs a single step as well', () => {
    const { state } = build([STEPS[0] as StepDefinition]);
    expect(state('Pack.MarkCompleted').Next).toBe('MarkProcessed');
    expect(state('Pack.BeginCompensation').Next).toBe('Pack.Undo.Check');
    expect(state('Pack.Undo.MarkCompensated').Next).toBe('MarkCompensated');
  });

  describe('fails clearly', () => {
    it('fails when the steps are empty', () => {
      expect(() => build([])).toThrow('Scheduler paths Parts: steps must not be empty');
    });

    it('lists every problem of a step list and its queues', () => {
      const { stack } = partsStack();
      const queue = new sqs.Queue(stack, 'Q');
      expect(
        stepProblems(
          [
            {
              name: 'Bad.Name',
              service: 'x',
              operationPath: '/x',
              compensation: { name: 'UndoBadName', operationPath: '/x/undo' },
            },
            {
              name: 'Twice',
              service: 'x',
              operationPath: '/x',
              compensation: { name: 'UndoTwice', operationPath: '/x/undo' },
            },
            {
              name: 'Twice',
              service: 'x',
              operationPath: '/x',
              compensation: { name: 'UndoTwice', operationPath: '/x/undo' },
            },
          ],
          { Twice: queue, Gift: queue },
        ),
      ).toEqual([
        "step name 'Bad.Name' must be letters and digits (it is used in JSONPath and state names)",
        "no agent queue for step 'Bad.Name'",
        'duplicate steps: Twice',
        'compensation names must be unique and differ from step names: UndoTwice',
        'agent queues for unknown steps: Gift',
      ]);
    });

    it('refuses a compensation name that is no JSONPath segment or clashes with a step (Plan keys)', () => {
      const { stack } = partsStack();
      const queue = new sqs.Queue(stack, 'Q');
      expect(
        stepProblems(
          [
            {
              name: 'Pack',
              service: 'x',
              operationPath: '/x',
              compensation: { name: 'Ship', operationPath: '/u' },
            },
            {
              name: 'Ship',
              service: 'x',
              operationPath: '/x',
              compensation: { name: 'Un-ship', operationPath: '/u' },
            },
          ],
          { Pack: queue, Ship: queue },
        ),
      ).toEqual([
        "compensation name 'Un-ship' must be letters and digits (it is used in JSONPath)",
        'compensation names must be unique and differ from step names: Ship',
      ]);
    });
  });
});
