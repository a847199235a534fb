/**
 * IAM5 acknowledgments are scoped: the `Resource::*` one sits on a policy that holds only actions
 * without resource-level permissions (ScopedRole), never on a role, so a wildcard added to any role
 * of either stack later is reported by cdk-nag instead of passing under it.
 */
import { type App, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import { addDroneDelivery } from '../../../lib/choreography/deployment';
import { droneFleetFake } from '../../../lib/fakes/drone-fleet';
import { remoteServicesDownstream } from '../../../lib/fakes/remote-services';
import { LambdaFunction } from '../../../lib/platform/lambda-function';
import { ACTIONS_WITHOUT_RESOURCE_LEVEL_PERMISSIONS, ScopedRole } from '../../../lib/platform/scoped-role';
import { addSchedulerAgentSupervisor } from '../../../lib/scheduler-agent-supervisor/deployment';
import { DEMO_CONTEXT, probeStack, testApp } from '../support/synth';

const wildcardFindings = (app: App) =>
  new AwsSolutionsChecks()
    .validateScope(app)
    .violations.filter((v) => v.ruleName === 'AwsSolutions-IAM5[Resource::*]')
    .flatMap((v) => v.violatingResources.map((r) => r.constructPath));

const wildcard = (actions: string[]) => new iam.PolicyStatement({ actions, resources: ['*'] });

function probeFunction(): { app: App; fn: LambdaFunction } {
  const app = testApp();
  const stack = probeStack(app);
  const fn = new LambdaFunction(stack, 'Fn', {
    handler: 'scheduler-agent-supervisor/handlers/get-order',
    description: 'probe',
    serviceName: 'probe',
    metricsNamespace: 'Probe',
  });
  return { app, fn };
}

describe('ScopedRole', () => {
  it("keeps active tracing's X-Ray wildcard in its own acknowledged policy: no finding", () => {
    const { app, fn } = probeFunction();
    expect(fn.role).toBeInstanceOf(ScopedRole);
    expect(fn.role.node.tryFindChild('UnscopableActions')).toBeDefined();
    expect(wildcardFindings(app)).toEqual([]);
  });

  it.each<[string, string[]]>([
    ['a table action on *', ['dynamodb:GetItem']],
    ['a service wildcard on *', ['s3:*']],
    ['an unscopable action mixed with a scopable one on *', ['xray:PutTraceSegments', 'sqs:SendMessage']],
  ])('reports %s added to the role later, on its default policy', (_what, actions) => {
    const { app, fn } = probeFunction();
    fn.role.addToPrincipalPolicy(wildcard(actions));
    expect(wildcardFindings(app)).toEqual(['Probe/Fn/Role/DefaultPolicy/Resource']);
  });

  it('routes only Allow statements on exactly * made only of actions without resource-level permissions', () => {
    const { fn } = probeFunction();
    const before = fn.role.node.tryFindChild('DefaultPolicy');
    fn.role.addToPrincipalPolicy(wildcard([...ACTIONS_WITHOUT_RESOURCE_LEVEL_PERMISSIONS]));
    expect(fn.role.node.tryFindChild('DefaultPolicy')).toBe(before);
    fn.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['xray:PutTraceSegments'], resources: ['arn:aws:xray:::x'] }),
    );
    expect(fn.role.node.tryFindChild('DefaultPolicy')).toBeDefined();
  });
});

describe.each<[string, () => App]>([
  [
    'SchedulerAgentSupervisor',
    () => {
      const app = testApp({ profile: 'default', ...DEMO_CONTEXT });
      addSchedulerAgentSupervisor(app, remoteServicesDownstream);
      return app;
    },
  ],
  [
    'DroneDelivery',
    () => {
      const app = testApp({ profile: 'default' });
      addDroneDelivery(app, droneFleetFake);
      return app;
    },
  ],
])('%s: a wildcard added to any role fails cdk-nag', (_stack, build) => {
  it('no IAM5 acknowledgment sits on a role, and each names its finding', () => {
    const app = build();
    const iam5 = app.node.findAll().flatMap((construct) =>
      construct.node.metadata
        .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((entry) => Object.keys(entry.data as Record<string, string>))
        .filter((id) => id.replace(/^annotation::/i, '').startsWith('AwsSolutions-IAM5'))
        .map((id) => ({ id: id.replace(/^annotation::/i, ''), construct })),
    );
    expect(iam5.length).toBeGreaterThan(0);
    for (const { id, construct } of iam5) {
      expect(id).toMatch(/^AwsSolutions-IAM5\[(Resource|Action)::.+\]$/);
      expect(construct).not.toBeInstanceOf(iam.Role);
      // A role's policy, or a managed policy (an operator's OperatorAccess), never the role itself.
      expect(construct instanceof iam.Policy || construct instanceof iam.ManagedPolicy).toBe(true);
    }
  });

  it('every role, the ones with acknowledged wildcards included, reports a new Resource: * on its default policy', () => {
    const app = build();
    expect(wildcardFindings(app)).toEqual([]);
    const roles = app.node.findAll().filter((c): c is iam.Role => c instanceof iam.Role);
    expect(roles.filter((role) => role instanceof ScopedRole).length).toBeGreaterThan(3);
    for (const role of roles) role.addToPrincipalPolicy(wildcard(['dynamodb:Scan']));
    expect(wildcardFindings(app).sort()).toEqual(
      roles.map((role) => `${role.node.path}/DefaultPolicy/Resource`).sort(),
    );
  });
});
