/**
 * CDK context `timings=<profile>`: another profile's workflow timings and what follows from them
 * (retry budget, STALL-ONCE hold), as the tests on the virtual clock synthesize the local profile
 * with the deployed timings (test/support/test-clock.ts).
 */
import { EnvKey } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { SAS_PROFILES, timingsWithOverride } from '../../../lib/scheduler-agent-supervisor/config';
import { functionIdByService, resourcesOf, synthesizeStack } from '../support/synth';

describe('timings override (CDK context "timings")', () => {
  it("synthesizes the local profile with the default profile's timings (the supervisor's, the callback tasks' timeout and heartbeat)", () => {
    const { template } = synthesizeStack('local', { context: { timings: 'default' } });
    const supervisor = resourcesOf(template)[functionIdByService(template, 'supervisor')];
    const environment = supervisor?.Properties?.Environment as
      | { Variables: Record<string, string> }
      | undefined;
    const variables = environment?.Variables ?? {};
    expect(JSON.parse(variables[EnvKey.WorkflowTimings] ?? '{}')).toEqual(SAS_PROFILES.default.timings);
    // The agents' callback tasks wait the deployed step timeout and heartbeat.
    const machines = Object.values(resourcesOf(template)).filter(
      (resource) => resource.Type === 'AWS::StepFunctions::StateMachine',
    );
    expect(machines.length).toBeGreaterThan(0);
    for (const machine of machines) {
      const definition = JSON.stringify(machine.Properties?.DefinitionString);
      expect(definition).toContain(`\\"TimeoutSeconds\\":${SAS_PROFILES.default.timings.stepTimeoutSeconds}`);
      expect(definition).toContain(
        `\\"HeartbeatSeconds\\":${SAS_PROFILES.default.timings.stepHeartbeatSeconds}`,
      );
      expect(definition).not.toContain(
        `\\"HeartbeatSeconds\\":${SAS_PROFILES.local.timings.stepHeartbeatSeconds},`,
      );
    }
  });

  it('keeps the profile as it is without the key, and takes what follows from the timings with them', () => {
    expect(timingsWithOverride(SAS_PROFILES.local, undefined)).toBe(SAS_PROFILES.local);
    expect(timingsWithOverride(SAS_PROFILES.local, 'default')).toEqual({
      timings: SAS_PROFILES.default.timings,
      retryBudget: SAS_PROFILES.default.retryBudget,
      remoteStallMillis: SAS_PROFILES.default.remoteStallMillis,
    });
  });

  it('refuses a name that is not a profile, naming the key and the profiles', () => {
    expect(() => timingsWithOverride(SAS_PROFILES.local, 'deployed')).toThrow(
      'CDK context "timings" must name a profile (default, local), got "deployed"',
    );
  });
});
