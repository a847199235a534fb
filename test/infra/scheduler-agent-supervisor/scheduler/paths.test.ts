import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { StepDefinition } from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import type { AslState } from '../../../../lib/platform/guardrails';
import { loadConfig } from '../../../../lib/scheduler-agent-supervisor/config';
import {
  SchedulerEnd,
  schedulerPaths,
  stepProblems,
} from '../../../../lib/scheduler-agent-supervisor/scheduler/paths';
import { partsStack, renderStates, stateOf } from '../../support/state-graph';

const STEPS: StepDefinition[] = [
  {
    name: 'Pack',
    service: 'packing',
    operationPath: '/pack',
    compensation: { name: 'UndoPack', operationPath: '/pack/undo' },
  },
  {
    name: 'Ship',
    service: 'shipping',
    operationPath: '/ship',
    compensation: { name: 'UndoShip', operationPath: '/ship/undo' },
  },
];
const { timings } = loadConfig('local');

function build(steps: readonly StepDefinition[] = STEPS) {
  const { stack, stateTable } = partsStack();
  const agentQueues = Object.fromEntries(steps.map((s) => [s.name, new sqs.Queue(stack, `${s.name}Queue`)]));
  const start = schedulerPaths(stack, {
    steps,
    agentQueues,
    stateTable,
    ordersTable: new dynamodb.Table(stack, 'Orders', {
      partitionKey: { name: 'OrderID', type: dynamodb.AttributeType.STRING },
    }),
    alertBus: new events.EventBus(stack, 'Bus'),
    timings,
  });
  const states = renderStates(stack, start);
  return { states, state: (name: string) => stateOf(states, name) };
}

/**
 * Follows the path of a first attempt from `from`: Next, CheckLock's rule (the lock is held) and a
 * step Check's default (not completed yet), until a state without a successor.
 */
function happyPath(state: (name: string) => AslState, from: string): string[] {
  const path = [from];
  for (let name = from; ; ) {
    const current = state(name);
    const next =
      current.Type !== 'Choice'
        ? current.Next
        : name === 'CheckLock'
          ? (current.Choices?.[0]?.Next as string | undefined)
          : current.Default;
    if (next === undefined) return path;
    path.push(next);
    name = next;
  }
}

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

  it('failure path: a permanent agent failure of any step goes MarkError -> alert -> OrderFailed', () => {
    const { state } = build();
    for (const step of STEPS) {
      expect(state(`${step.name}.PermanentFailure`).Next).toBe('MarkError');
    }
    expect(happyPath(state, 'MarkError')).toEqual([
      'MarkError',
      'RaiseOrderFailedAlert',
      SchedulerEnd.orderFailed,
    ]);
    expect(state(SchedulerEnd.orderFailed)).toMatchObject({ Type: 'Fail', Error: 'OrderFailed' });
  });

  it('fenced path: CheckLock and every store update end in FencedOut, a Succeed that changes nothing', () => {
    const { states, state } = build();
    expect(state('CheckLock').Default).toBe(SchedulerEnd.fencedOut);
    const updates = [...states].filter(([, s]) => s.Resource?.endsWith(':states:::dynamodb:updateItem'));
    expect(updates).toHaveLength(2 * STEPS.length + 2);
    for (const [, update] of updates) expect(update.Catch?.[0]?.Next).toBe(SchedulerEnd.fencedOut);
    expect(state(SchedulerEnd.fencedOut).Type).toBe('Succeed');
  });

  it('abandoned path: only agent calls reach AttemptAbandoned, a Fail that touches nothing', () => {
    const { states, state } = build();
    const sources = [...states]
      .filter(([, s]) => s.Catch?.some((c) => c.Next === SchedulerEnd.attemptAbandoned))
      .map(([name]) => name);
    expect(sources.sort()).toEqual(['Pack.CallAgent', 'Ship.CallAgent']);
    expect(state(SchedulerEnd.attemptAbandoned)).toMatchObject({ Type: 'Fail', Error: 'AttemptAbandoned' });
  });

  it('runs a single step as well', () => {
    const { state } = build([STEPS[0] as StepDefinition]);
    expect(state('Pack.MarkCompleted').Next).toBe('MarkProcessed');
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
        'agent queues for unknown steps: Gift',
      ]);
    });
  });
});
