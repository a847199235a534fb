/**
 * What a cost figure leaves out of a stack's work, read from its template (lib/bench/core/
 * usage-scope.ts appScopeOf): the fakes (downstream services with their ledger, the drone fleet)
 * and the scheduled functions, on a hand-made one-stack assembly.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAKES_METRICS_NAMESPACE, FakesEnvKey } from '../../../lambdas/fakes/contracts';
import { PowertoolsEnvKey } from '../../../lambdas/shared/env';
import { appScopeOf } from '../../../lib/bench/core/usage-scope';

const fn = (variables: Record<string, unknown>, architecture = 'arm64') => ({
  Type: 'AWS::Lambda::Function',
  Metadata: { 'aws:asset:path': 'asset.1' },
  Properties: { Architectures: [architecture], Environment: { Variables: variables } },
});

describe('appScopeOf', () => {
  let assemblyDir: string;
  beforeAll(() => {
    assemblyDir = mkdtempSync(join(tmpdir(), 'bench-scope-'));
    const resources = {
      Service: fn({ [PowertoolsEnvKey.MetricsNamespace]: 'Deliveries' }),
      Fleet: fn({ [PowertoolsEnvKey.MetricsNamespace]: FAKES_METRICS_NAMESPACE }),
      Payments: fn({ [FakesEnvKey.LedgerTableName]: { Ref: 'Ledger' } }, 'x86_64'),
      Sweeper: fn({}),
      Schedule: {
        Type: 'AWS::Events::Rule',
        Properties: {
          ScheduleExpression: 'rate(1 minute)',
          Targets: [{ Arn: { 'Fn::GetAtt': ['Sweeper', 'Arn'] } }],
        },
      },
    };
    writeFileSync(join(assemblyDir, 'Deliveries.template.json'), JSON.stringify({ Resources: resources }));
  });
  afterAll(() => rmSync(assemblyDir, { recursive: true, force: true }));

  it('leaves out the fakes (by their ledger or their metrics namespace) and the scheduled functions', () => {
    const scope = appScopeOf(assemblyDir, 'Deliveries');
    expect([...scope.standIns].sort()).toEqual(['Fleet', 'Ledger', 'Payments']);
    expect([...scope.scheduledRateSeconds]).toEqual([['Sweeper', 60]]);
    expect(scope.notArm64).toEqual(['Payments']);
  });

  it('names a stack the assembly does not hold', () => {
    expect(() => appScopeOf(assemblyDir, 'Orders')).toThrow(`${assemblyDir} has no stack Orders`);
  });
});
