/**
 * The console's workflow graph on the real definitions: each deployed workflow version's state
 * machine as the default profile synthesizes it (v1 classic, v3 lean, v5 compact), with the paths
 * an order takes through it (processed; a step abandoned; compensated), and its layout (no state
 * over another, every transition from its state to the next).
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { parseDefinition, workflowGraphOf } from '../../../console/src/workflow-graph';
import { layoutWorkflow } from '../../../console/src/workflow-layout';
import {
  DEFAULT_LIVE_WORKFLOW_VERSIONS,
  type OperatorWorkflowStateRun,
  WorkflowStateOutcome,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { expectCleanLayout } from '../../support/workflow-layout-checks';
import { DEMO_CONTEXT, stateMachineDefinition, synthesizeStack } from '../support/synth';

/** The states of `names` entered one after the other, the last ending with `last`. */
function pathThrough(
  names: readonly string[],
  last: Partial<OperatorWorkflowStateRun> = {},
): OperatorWorkflowStateRun[] {
  return names.map((name, index) => ({
    name,
    type: 'Task',
    enteredAt: '2026-01-01T00:00:00.000Z',
    outcome: WorkflowStateOutcome.Succeeded,
    ...(index + 1 < names.length ? { next: names[index + 1] } : last),
  }));
}

const COMPENSATION = [
  'CheckLock',
  'ScheduleShipping.Undo.Check',
  'ScheduleShipping.Undo.MarkCompensating',
  'ScheduleShipping.Undo.CallAgent',
  'ScheduleShipping.Undo.MarkCompensated',
  'ChargePayment.Undo.Check',
  'ChargePayment.Undo.MarkCompensating',
  'ChargePayment.Undo.CallAgent',
  'ChargePayment.Undo.MarkCompensated',
  'ReserveInventory.Undo.Check',
  'ReserveInventory.Undo.MarkCompensating',
  'ReserveInventory.Undo.CallAgent',
  'ReserveInventory.Undo.MarkCompensated',
  'MarkCompensated',
  'Compensated',
];

describe('workflow graph of the synthesized definitions (default profile: v1, v3, v5)', () => {
  let template: Template;
  beforeAll(() => {
    template = synthesizeStack('default', { context: DEMO_CONTEXT }).template;
  });
  const definitionOf = (version: number) =>
    parseDefinition(JSON.stringify(stateMachineDefinition(template, version)));

  it('deploys the versions drawn here', () => {
    expect([...DEFAULT_LIVE_WORKFLOW_VERSIONS]).toEqual([1, 3, 5]);
  });

  it.each([1, 3, 5])(
    'v%i: a node per state, an edge per transition, every Catch labelled with its errors',
    (version) => {
      const definition = definitionOf(version);
      const graph = workflowGraphOf(definition, []);
      expect(graph.nodes.map((node) => node.id).sort()).toEqual(Object.keys(definition.States).sort());
      expect(graph.nodes.find((node) => node.id === graph.startAt)).toBeDefined();
      for (const [name, state] of Object.entries(definition.States)) {
        const out = graph.edges.filter((edge) => edge.from === name);
        if (state.Next !== undefined) expect(out.map((edge) => edge.to)).toContain(state.Next);
        if (state.Default !== undefined) expect(out.map((edge) => edge.to)).toContain(state.Default);
        for (const handler of state.Catch ?? []) {
          expect(out.find((edge) => edge.to === handler.Next)?.label).toContain(
            (handler.ErrorEquals ?? []).join(', '),
          );
        }
        if (state.Type === 'Succeed' || state.Type === 'Fail') expect(out).toEqual([]);
      }
      // The compensation states are the undo chain and its ends, recognised by name.
      const compensation = graph.nodes.filter((node) => node.compensation).map((node) => node.id);
      expect(compensation).toEqual(expect.arrayContaining(COMPENSATION.slice(1)));
      expect(compensation).not.toContain('AttemptAbandoned');
      expect(compensation).not.toContain('Processed');
    },
  );

  it.each([1, 3, 5])(
    'v%i: laid out without overlap, every transition from its state to the next',
    (version) => {
      const graph = workflowGraphOf(definitionOf(version), []);
      expectCleanLayout(graph, layoutWorkflow(graph));
    },
  );

  it.each([1, 3, 5])(
    'v%i: laid out the same whatever the order: processed, compensated or not started',
    (version) => {
      const definition = definitionOf(version);
      const layoutOf = (path: OperatorWorkflowStateRun[]) => {
        const graph = workflowGraphOf(definition, path);
        const layout = layoutWorkflow(graph);
        expectCleanLayout(graph, layout);
        return layout;
      };
      const none = layoutOf([]);
      const processed = Object.keys(definition.States).filter(
        (name) => !name.includes('Undo') && !name.includes('Compensat'),
      );
      const compensated = [...(version === 5 ? [] : ['LoadStateRecord']), ...COMPENSATION];
      for (const path of [
        pathThrough(processed.filter((name) => definition.States[name]?.Type !== 'Fail')),
        pathThrough(compensated, { outcome: WorkflowStateOutcome.Failed, error: 'Oops' }),
      ]) {
        const layout = layoutOf(path);
        expect(layout.nodes).toEqual(none.nodes);
        expect(layout.edges).toEqual(none.edges);
        expect(layout.stubs).toEqual(none.stubs);
      }
    },
  );

  it('v5: a processed order entered its steps up to Processed, with no failed state and no compensation', () => {
    const names = [
      'CheckLock',
      'ReserveInventory.CallAgent',
      'ChargePayment.CallAgent',
      'ScheduleShipping.CallAgent',
      'Processed',
    ];
    const graph = workflowGraphOf(definitionOf(5), pathThrough(names));
    expect(
      graph.nodes
        .filter((node) => node.runs.length > 0)
        .map((node) => node.id)
        .sort(),
    ).toEqual([...names].sort());
    expect(graph.edges.filter((edge) => edge.taken)).toHaveLength(names.length - 1);
    expect(graph.failed).toEqual([]);
    expect(graph.compensationTaken).toBe(false);
    expect(graph.notEntered).toHaveLength(Object.keys(definitionOf(5).States).length - names.length);
  });

  it('v1: an abandoned attempt is caught to AttemptAbandoned, which is the failed state', () => {
    const path = pathThrough([
      'LoadStateRecord',
      'LoadOrder',
      'CheckLock',
      'ReserveInventory.Check',
      'ReserveInventory.MarkRunning',
    ]);
    path.push(
      {
        name: 'ReserveInventory.CallAgent',
        type: 'Task',
        enteredAt: '2026-01-01T00:00:01.000Z',
        outcome: WorkflowStateOutcome.Caught,
        error: 'States.Timeout',
        next: 'AttemptAbandoned',
      },
      {
        name: 'AttemptAbandoned',
        type: 'Fail',
        enteredAt: '2026-01-01T00:00:02.000Z',
        outcome: WorkflowStateOutcome.Failed,
        error: 'AttemptAbandoned',
      },
    );
    (path[4] as { next?: string }).next = 'ReserveInventory.CallAgent';
    const graph = workflowGraphOf(definitionOf(1), path);
    expect(graph.failed).toEqual(['AttemptAbandoned']);
    const caught = graph.edges.find(
      (edge) => edge.from === 'ReserveInventory.CallAgent' && edge.to === 'AttemptAbandoned',
    );
    expect(caught).toMatchObject({ kind: 'catch', label: 'States.ALL', taken: true });
  });

  it.each([3, 5])('v%i: a cancelled order takes the compensation path from CheckLock', (version) => {
    const graph = workflowGraphOf(definitionOf(version), pathThrough(COMPENSATION));
    expect(graph.compensationTaken).toBe(true);
    expect(graph.edges.filter((edge) => edge.taken)).toHaveLength(COMPENSATION.length - 1);
    expect(graph.failed).toEqual([]);
  });
});
