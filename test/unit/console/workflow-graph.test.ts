/**
 * The workflow graph's derivation and layout on a definition of every state type (the deployed
 * versions use Task, Choice, Pass, Succeed and Fail only; test/infra/console/workflow-graph.test.ts
 * checks their real synthesized definitions): edges for Next, Choice branches and Default, Catch
 * with its errors, Parallel and Map branches flattened with their way in and out; the path marked.
 */

import {
  isCompensationState,
  outcomeWords,
  parseDefinition,
  workflowGraphOf,
} from '../../../console/src/workflow-graph';
import { layoutWorkflow } from '../../../console/src/workflow-layout';
import type { OperatorWorkflowStateRun } from '../../../lambdas/scheduler-agent-supervisor/contracts/operator-workflow';
import { expectCleanLayout } from '../../support/workflow-layout-checks';

const definition = {
  StartAt: 'Begin',
  States: {
    Begin: { Type: 'Pass', Next: 'Pick' },
    Pick: {
      Type: 'Choice',
      Choices: [
        { Variable: '$.a', BooleanEquals: true, Next: 'Pause' },
        { Variable: '$.b', BooleanEquals: true, Next: 'Fan' },
      ],
      Default: 'Each',
    },
    Pause: { Type: 'Wait', Seconds: 1, Next: 'Work' },
    Work: {
      Type: 'Task',
      Resource: 'arn:aws:lambda:us-east-1:000000000000:function:w',
      Catch: [
        { ErrorEquals: ['Agent.PermanentFailure', 'Agent.RetryBudgetExhausted'], Next: 'Work.Undo.Call' },
        { ErrorEquals: ['States.ALL'], Next: 'Broken' },
      ],
      Next: 'Done',
    },
    'Work.Undo.Call': { Type: 'Pass', Next: 'Compensated' },
    Fan: {
      Type: 'Parallel',
      Branches: [
        { StartAt: 'Left', States: { Left: { Type: 'Pass', End: true } } },
        { StartAt: 'Right', States: { Right: { Type: 'Pass', End: true } } },
      ],
      Next: 'Done',
    },
    Each: {
      Type: 'Map',
      ItemProcessor: { StartAt: 'One', States: { One: { Type: 'Pass', End: true } } },
      End: true,
    },
    Done: { Type: 'Succeed' },
    Compensated: { Type: 'Succeed' },
    Broken: { Type: 'Fail', Error: 'Broken' },
  },
};

const run = (
  name: string,
  type: string,
  outcome: OperatorWorkflowStateRun['outcome'],
  extra: Partial<OperatorWorkflowStateRun> = {},
): OperatorWorkflowStateRun => ({ name, type, outcome, enteredAt: '2026-01-01T00:00:00.000Z', ...extra });

describe('workflowGraphOf', () => {
  const parsed = parseDefinition(JSON.stringify(definition));

  it('has a node per state, nested ones flattened naming the state that holds them', () => {
    const graph = workflowGraphOf(parsed, []);
    expect(graph.nodes.map((node) => [node.id, node.type, node.within])).toEqual([
      ['Begin', 'Pass', undefined],
      ['Pick', 'Choice', undefined],
      ['Pause', 'Wait', undefined],
      ['Work', 'Task', undefined],
      ['Work.Undo.Call', 'Pass', undefined],
      ['Fan', 'Parallel', undefined],
      ['Left', 'Pass', 'Fan'],
      ['Right', 'Pass', 'Fan'],
      ['Each', 'Map', undefined],
      ['One', 'Pass', 'Each'],
      ['Done', 'Succeed', undefined],
      ['Compensated', 'Succeed', undefined],
      ['Broken', 'Fail', undefined],
    ]);
    expect(graph.notEntered).toHaveLength(13);
    expect(graph.compensationTaken).toBe(false);
  });

  it('has an edge for each Next, Choice branch, Default, Catch (labelled with its errors), branch and join', () => {
    const graph = workflowGraphOf(parsed, []);
    expect(graph.edges.map(({ from, to, kind, label }) => [from, to, kind, label])).toEqual([
      ['Begin', 'Pick', 'next', undefined],
      ['Pick', 'Pause', 'choice', 'choice 1'],
      ['Pick', 'Fan', 'choice', 'choice 2'],
      ['Pick', 'Each', 'default', 'default'],
      ['Pause', 'Work', 'next', undefined],
      ['Work', 'Done', 'next', undefined],
      ['Work', 'Work.Undo.Call', 'catch', 'Agent.PermanentFailure, Agent.RetryBudgetExhausted'],
      ['Work', 'Broken', 'catch', 'States.ALL'],
      ['Work.Undo.Call', 'Compensated', 'next', undefined],
      ['Fan', 'Done', 'next', undefined],
      ['Fan', 'Left', 'branch', undefined],
      ['Left', 'Fan', 'join', undefined],
      ['Fan', 'Right', 'branch', undefined],
      ['Right', 'Fan', 'join', undefined],
      ['Each', 'One', 'branch', undefined],
      ['One', 'Each', 'join', undefined],
    ]);
  });

  it('marks the path: entered states with how they ended, the edges taken, the failed state, the compensation', () => {
    const path = [
      run('Begin', 'Pass', 'Succeeded', { next: 'Pick' }),
      run('Pick', 'Choice', 'Succeeded', { next: 'Pause' }),
      run('Pause', 'Wait', 'Succeeded', { next: 'Work' }),
      run('Work', 'Task', 'Caught', { next: 'Work.Undo.Call', error: 'Agent.PermanentFailure', cause: 'no' }),
      run('Work.Undo.Call', 'Pass', 'Succeeded', { next: 'Compensated' }),
      run('Compensated', 'Succeed', 'Succeeded'),
    ];
    const graph = workflowGraphOf(parsed, path);
    expect(graph.edges.filter((edge) => edge.taken).map((edge) => `${edge.from}>${edge.to}`)).toEqual([
      'Begin>Pick',
      'Pick>Pause',
      'Pause>Work',
      'Work>Work.Undo.Call',
      'Work.Undo.Call>Compensated',
    ]);
    expect(graph.compensationTaken).toBe(true);
    expect(graph.failed).toEqual([]);
    expect(graph.notEntered).toEqual(['Fan', 'Left', 'Right', 'Each', 'One', 'Done', 'Broken']);
    const work = graph.nodes.find((node) => node.id === 'Work');
    expect(work?.detail).toBe(
      'Work (Task): entered, failed (Agent.PermanentFailure: no), caught, then Work.Undo.Call; catches Agent.PermanentFailure, Agent.RetryBudgetExhausted → Work.Undo.Call; States.ALL → Broken',
    );
    expect(work?.label).toBe('Work — caught');
    expect(graph.nodes.find((node) => node.id === 'Begin')?.label).toBe('Begin');
    expect(graph.nodes.find((node) => node.id === 'Fan')?.detail).toBe('Fan (Parallel): not entered');

    const failed = workflowGraphOf(parsed, [
      ...path.slice(0, 3),
      run('Work', 'Task', 'Caught', { next: 'Broken', error: 'Oops' }),
      run('Broken', 'Fail', 'Failed', { error: 'Broken' }),
    ]);
    expect(failed.failed).toEqual(['Broken']);
    expect(failed.nodes.find((node) => node.id === 'Broken')?.label).toBe('Broken — failed');
    expect(failed.nodes.find((node) => node.id === 'Broken')?.detail).toBe(
      'Broken (Fail): entered, failed: Broken',
    );
  });

  it('says a state entered more than once, and how its last entry ended', () => {
    const graph = workflowGraphOf(parsed, [
      run('Begin', 'Pass', 'Succeeded', { next: 'Pick' }),
      run('Begin', 'Pass', 'Running'),
    ]);
    expect(graph.nodes[0]?.detail).toBe('Begin (Pass): entered 2 times, last running');
  });

  it('knows the compensation states by the names the scheduler gives them', () => {
    for (const name of [
      'ChargePayment.Undo.CallAgent',
      'ChargePayment.BeginCompensation',
      'ChargePayment.BeginCompensationUncertain',
      'MarkCompensated',
      'Compensated',
      'CompensationFailed',
    ])
      expect(isCompensationState(name)).toBe(true);
    for (const name of ['ChargePayment.CallAgent', 'CheckLock', 'AttemptAbandoned', 'Processed'])
      expect(isCompensationState(name)).toBe(false);
  });

  it('refuses a definition that is not one, in words', () => {
    expect(() => parseDefinition('nope')).toThrow('The workflow definition is not JSON');
    expect(() => parseDefinition('{}')).toThrow('The workflow definition has no StartAt or States');
  });

  it('says each outcome in words', () => {
    expect(outcomeWords(run('A', 'Task', 'Succeeded', { next: 'B' }))).toBe('succeeded, then B');
    expect(outcomeWords(run('A', 'Succeed', 'Succeeded'))).toBe('succeeded');
    expect(outcomeWords(run('A', 'Task', 'Failed'))).toBe('failed');
    expect(outcomeWords(run('A', 'Task', 'Running'))).toBe('running');
  });
});

/** Four tasks in a row, each catching a lost lock to one shared state. */
const sharedCatches = {
  StartAt: 'A',
  States: {
    ...Object.fromEntries(
      ['A', 'B', 'C', 'D'].map((name, index, names) => [
        name,
        {
          Type: 'Task',
          Resource: 'arn:aws:lambda:us-east-1:000000000000:function:w',
          Catch: [{ ErrorEquals: ['Lock.Lost'], Next: 'Lost' }],
          ...(index + 1 < names.length ? { Next: names[index + 1] } : { Next: 'Done' }),
        },
      ]),
    ),
    Done: { Type: 'Succeed' },
    Lost: { Type: 'Succeed' },
  },
};

describe('layoutWorkflow', () => {
  it('places every state without overlap and starts and ends every transition on its states', () => {
    const graph = workflowGraphOf(parseDefinition(JSON.stringify(definition)), []);
    expectCleanLayout(graph, layoutWorkflow(graph));
  });

  it('lays out a definition the same whatever path the attempt took', () => {
    const parsed = parseDefinition(JSON.stringify(definition));
    const none = layoutWorkflow(workflowGraphOf(parsed, []));
    for (const path of [
      [
        run('Begin', 'Pass', 'Succeeded', { next: 'Pick' }),
        run('Pick', 'Choice', 'Succeeded', { next: 'Pause' }),
        run('Pause', 'Wait', 'Succeeded', { next: 'Work' }),
        run('Work', 'Task', 'Caught', { next: 'Broken', error: 'Oops' }),
        run('Broken', 'Fail', 'Failed', { error: 'Broken' }),
      ],
      [
        run('Begin', 'Pass', 'Succeeded', { next: 'Pick' }),
        run('Pick', 'Choice', 'Succeeded', { next: 'Each' }),
        run('Each', 'Map', 'Succeeded'),
      ],
    ]) {
      const graph = workflowGraphOf(parsed, path);
      const layout = layoutWorkflow(graph);
      expectCleanLayout(graph, layout);
      expect(layout.nodes).toEqual(none.nodes);
      expect(layout.edges).toEqual(none.edges);
      expect({ width: layout.width, height: layout.height }).toEqual({
        width: none.width,
        height: none.height,
      });
    }
  });

  it('ranks each state as near the start as it can be: a short path ends under its last state', () => {
    const chain = ['C1', 'C2', 'C3', 'C4', 'C5'];
    const parsed = parseDefinition(
      JSON.stringify({
        StartAt: 'Pick',
        States: {
          Pick: {
            Type: 'Choice',
            Choices: [{ Variable: '$.a', BooleanEquals: true, Next: 'C1' }],
            Default: 'B',
          },
          B: { Type: 'Pass', Next: 'Done' },
          Done: { Type: 'Succeed' },
          ...Object.fromEntries(
            chain.map((name, index) => [name, { Type: 'Pass', Next: chain[index + 1] ?? 'Undone' }]),
          ),
          Undone: { Type: 'Succeed' },
        },
      }),
    );
    const layout = layoutWorkflow(workflowGraphOf(parsed, []));
    const y = (name: string) => layout.nodes.get(name)?.y ?? Number.NaN;
    // Pick, B, Done: the first three ranks, Done level with C2 (not at the bottom with Undone).
    expect(y('Done')).toBe(y('C2'));
    expect(y('B')).toBe(y('C1'));
    expect(y('Done')).toBeLessThan(y('Undone'));
  });

  it('draws every Catch to a state four Catches lead to as a stub, taken or not', () => {
    const parsed = parseDefinition(JSON.stringify(sharedCatches));
    const stubs = ['A', 'B', 'C', 'D'].map((name) => `${name}\u0000Lost`);
    const untaken = workflowGraphOf(parsed, []);
    expect([...layoutWorkflow(untaken).stubs].sort()).toEqual(stubs);
    const taken = workflowGraphOf(parsed, [
      run('A', 'Task', 'Succeeded', { next: 'B' }),
      run('B', 'Task', 'Caught', { next: 'Lost', error: 'Lock.Lost' }),
      run('Lost', 'Succeed', 'Succeeded'),
    ]);
    expect(taken.edges.find((edge) => edge.id === 'B\u0000Lost')?.taken).toBe(true);
    const layout = layoutWorkflow(taken);
    expect([...layout.stubs].sort()).toEqual(stubs);
    expect(layout.nodes).toEqual(layoutWorkflow(untaken).nodes);
    expectCleanLayout(taken, layout);
  });
});
