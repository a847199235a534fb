/**
 * Workflow versions in the synthesized app: one state machine per live version, each generated
 * from its own steps, and a rollout (`-c workflowVersion=2`) that leaves the live v1 definition
 * byte-identical, so an in-place update never changes what a running or retried v1 order runs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EnvKey, StateAttr } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { workflowWithOverrides } from '../../../lib/scheduler-agent-supervisor/config';
import { environmentOf, resourcesOf, type SynthesizedStack, synthesizeStack } from '../support/synth';

const stateMachines = (synth: SynthesizedStack) =>
  Object.fromEntries(
    Object.entries(resourcesOf(synth.template))
      .filter(([, resource]) => resource.Type === 'AWS::StepFunctions::StateMachine')
      .map(([logicalId, resource]) => [logicalId, resource.Properties?.DefinitionString]),
  );
const logicalIdOf = (synth: SynthesizedStack, version: number) => {
  const ids = Object.keys(stateMachines(synth)).filter((id) => id.startsWith(`OrderWorkflowV${version}`));
  expect(ids).toHaveLength(1);
  return ids[0] ?? '';
};
const agentSteps = (synth: SynthesizedStack) => synth.stack.agents.map((worker) => worker.step.name);

describe('workflow versions: configuration (CDK context overrides)', () => {
  const profile = { current: 1, live: [1] } as const;

  it.each([
    ['nothing', {}, { current: 1, live: [1] }],
    ['workflowVersion=2 (a rollout keeps 1..2 live)', { version: '2' }, { current: 2, live: [1, 2] }],
    ['workflowVersion=2, retire before 2', { version: '2', retireBefore: '2' }, { current: 2, live: [2] }],
  ])('%s', (_case, overrides, expected) => {
    expect(workflowWithOverrides(profile, overrides)).toEqual(expected);
  });

  it.each([
    [{ version: '7' }, 'unknown workflow version(s) 7; known: 1, 2, 3, 4, 5, 6'],
    [{ version: 'two' }, 'CDK context "workflowVersion" must be a positive integer, got "two"'],
    [{ retireBefore: '2' }, 'no live workflow version'],
    [
      { version: '1', retireBefore: '0' },
      'CDK context "retireWorkflowVersionsBefore" must be a positive integer',
    ],
  ])('refuses %p with a clear error', (overrides, message) => {
    expect(() => workflowWithOverrides(profile, overrides)).toThrow(message);
  });
});

describe('workflow versions: the synthesized app', () => {
  /** The default deployment: v5 current, v1 and v3 live (named for the steps it runs, v1's). */
  let v1: SynthesizedStack;
  /** `-c workflowVersion=2`: v2 current, v1..v3 and v5 live. */
  let v2: SynthesizedStack;
  beforeAll(() => {
    v1 = synthesizeStack('local');
    v2 = synthesizeStack('local', { context: { workflowVersion: '2' } });
  });

  it('deploys one state machine per live version, named after it', () => {
    // By default v5 (v1's steps, compact shape) is current; v1 and v3, the earlier defaults, stay
    // live for orders in flight.
    expect(Object.keys(stateMachines(v1)).sort()).toEqual(
      [logicalIdOf(v1, 1), logicalIdOf(v1, 3), logicalIdOf(v1, 5)].sort(),
    );
    expect(v1.stack.workflow.version).toBe(5);
    expect(Object.keys(stateMachines(v2)).sort()).toEqual(
      [logicalIdOf(v2, 1), logicalIdOf(v2, 2), logicalIdOf(v2, 3), logicalIdOf(v2, 5)].sort(),
    );
    expect(v2.stack.workflow.version).toBe(2);
  });

  it('never changes the v1 definition when v2 is rolled out (byte-identical, same logical id)', () => {
    const id = logicalIdOf(v1, 1);
    expect(logicalIdOf(v2, 1)).toBe(id);
    expect(JSON.stringify(stateMachines(v2)[id])).toBe(JSON.stringify(stateMachines(v1)[id]));
    expect(JSON.stringify(stateMachines(v2)[logicalIdOf(v2, 2)])).toContain('AwardLoyaltyPoints');
    expect(JSON.stringify(stateMachines(v1)[id])).not.toContain('AwardLoyaltyPoints');
  });

  it('builds every live version with the alert outbox writes and a scoped role of its own', () => {
    const resources = resourcesOf(v2.template);
    const roles = [1, 2].map((version) => {
      const machine = resources[logicalIdOf(v2, version)];
      const definition = JSON.stringify(machine?.Properties?.DefinitionString);
      // Its terminal transitions write the alert with the state change; no task publishes one.
      expect(definition).toContain(StateAttr.AlertOutbox);
      expect(definition).not.toContain('events:putEvents');
      const roleArn = machine?.Properties?.RoleArn as { 'Fn::GetAtt': [string, string] } | undefined;
      const role = roleArn?.['Fn::GetAtt'][0] ?? '';
      expect(role.startsWith(`OrderWorkflowV${version}StateMachineRole`)).toBe(true);
      // ScopedRole: the actions without resource-level permissions sit in their own policy.
      const unscopable = Object.entries(resources).filter(
        ([id, resource]) =>
          resource.Type === 'AWS::IAM::Policy' &&
          id.startsWith(`OrderWorkflowV${version}StateMachineRoleUnscopableActions`),
      );
      expect(unscopable).toHaveLength(1);
      return role;
    });
    expect(new Set(roles).size).toBe(2);
  });

  it('has an agent for every step kind a live version runs, and no other', () => {
    expect(agentSteps(v1)).toEqual(['ReserveInventory', 'ChargePayment', 'ScheduleShipping']);
    expect(agentSteps(v2)).toEqual([
      'ReserveInventory',
      'ChargePayment',
      'ScheduleShipping',
      'AwardLoyaltyPoints',
    ]);
  });

  it('gives new orders the current version and the starter every live version state machine', () => {
    expect(environmentOf(v1.template, 'submit-order')[EnvKey.CurrentWorkflowVersion]).toBe('5');
    expect(environmentOf(v2.template, 'submit-order')[EnvKey.CurrentWorkflowVersion]).toBe('2');
    const starterMap = JSON.stringify(
      environmentOf(v2.template, 'start-order')[EnvKey.WorkflowStateMachines],
    );
    expect(starterMap).toContain('\\"1\\":\\"');
    expect(starterMap).toContain('\\"2\\":\\"');
    expect(starterMap).toContain(logicalIdOf(v2, 1));
    expect(starterMap).toContain(logicalIdOf(v2, 2));
  });

  it('never changes the v1 to v4 definitions: each is pinned to its synthesized ASL', () => {
    // Synthesized at 459a452 (before the lean versions) with -c workflowVersion=2. A deployed
    // version's definition is never edited (orders in flight keep their version for life): if this
    // fails, the change belongs in a new version. One edit since, of the profile and not of any
    // version: the local profile's heartbeat went from 3 s to 5 s (each agent task's
    // HeartbeatSeconds and the heartbeatSeconds its message carries, in both files; nothing else).
    // v3 and v4 (lean) pinned at 47c473d, before the compact versions v5 and v6.
    const everyVersion = synthesizeStack('local', { context: { workflowVersion: '6' } });
    for (const version of [1, 2, 3, 4]) {
      const pinned = JSON.parse(
        readFileSync(join(__dirname, 'fixtures', `workflow-v${version}-definition.json`), 'utf8'),
      ) as { logicalId: string; definition: unknown };
      for (const synth of [v1, v2, everyVersion]) {
        if (!Object.keys(stateMachines(synth)).some((id) => id.startsWith(`OrderWorkflowV${version}`)))
          continue;
        expect(logicalIdOf(synth, version)).toBe(pinned.logicalId);
        expect(JSON.stringify(stateMachines(synth)[pinned.logicalId])).toBe(
          JSON.stringify(pinned.definition),
        );
      }
    }
    expect(Object.keys(stateMachines(everyVersion))).toHaveLength(6);
  });

  it('retires versions: retireWorkflowVersionsBefore=5 deploys v5 alone, and its agents only', () => {
    const retired = synthesizeStack('local', { context: { retireWorkflowVersionsBefore: '5' } });
    expect(Object.keys(stateMachines(retired))).toEqual([logicalIdOf(retired, 5)]);
    expect(agentSteps(retired)).toEqual(agentSteps(v1));
  });
});
