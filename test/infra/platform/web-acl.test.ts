/**
 * The API stages' WAF web ACL: a rate-based rule per client IP, on in the `default` profile, off
 * in `local` (WAF is not emulated; the runtime lists WAFv2 resources as inert), in both wings.
 */
import { Validations } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { PLATFORM_PROFILES } from '../../../lib/platform/config';
import { API_STAGE_NAME, createKeyedRestApi } from '../../../lib/platform/keyed-rest-api';
import { synthesizeDroneDelivery } from '../choreography/synth';
import { probeStack, synthesizeStack } from '../support/synth';

type Resources = Record<
  string,
  // biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties as the template holds them
  { Type: string; Properties: Record<string, any>; DependsOn?: string[] }
>;

const resourcesOf = (template: Template) => template.toJSON().Resources as Resources;
const ofType = (template: Template, type: string) =>
  Object.entries(resourcesOf(template)).filter(([, resource]) => resource.Type === type);

function apig3Acknowledged(root: IConstruct): boolean {
  return root.node
    .findAll()
    .some((construct) =>
      construct.node.metadata.some(
        (entry) =>
          entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY &&
          Object.keys(entry.data as Record<string, string>).some((id) => id.endsWith('AwsSolutions-APIG3')),
      ),
    );
}

const STACKS: [string, (profile: string) => { app: IConstruct; template: Template }][] = [
  ['SchedulerAgentSupervisor', (profile) => synthesizeStack(profile, { context: { demo: 'true' } })],
  ['DroneDelivery', (profile) => synthesizeDroneDelivery({ profile })],
];

describe.each(STACKS)('%s', (_stack, synth) => {
  it('default profile: one web ACL, a per-IP rate-based block rule, associated with the API stage', () => {
    const { app, template } = synth('default');
    const acls = ofType(template, 'AWS::WAFv2::WebACL');
    expect(acls).toHaveLength(1);
    const [aclId, acl] = acls[0] as [string, Resources[string]];
    expect(acl.Properties).toMatchObject({ Scope: 'REGIONAL', DefaultAction: { Allow: {} } });
    expect(acl.Properties.Rules).toEqual([
      expect.objectContaining({
        Name: 'RateLimitPerIp',
        Action: { Block: {} },
        Statement: {
          RateBasedStatement: {
            Limit: PLATFORM_PROFILES.default.apiRateLimitPerIp,
            AggregateKeyType: 'IP',
            EvaluationWindowSec: 300,
          },
        },
      }),
    ]);

    const associations = ofType(template, 'AWS::WAFv2::WebACLAssociation');
    expect(associations).toHaveLength(1);
    const [, association] = associations[0] as [string, Resources[string]];
    expect(association.Properties.WebACLArn).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    const stages = ofType(template, 'AWS::ApiGateway::Stage');
    expect(stages).toHaveLength(1);
    const [stageId, stage] = stages[0] as [string, Resources[string]];
    const arn = JSON.stringify(association.Properties.ResourceArn);
    expect(arn).toContain(JSON.stringify(stage.Properties.RestApiId).slice(1, -1));
    expect(arn).toContain(`"/stages/",{"Ref":"${stageId}"}`);
    expect(stage.Properties.StageName).toBe(API_STAGE_NAME);
    expect(apig3Acknowledged(app)).toBe(false);
  });

  it('local profile: no web ACL (WAF is not emulated), and the APIG3 finding is acknowledged with why', () => {
    const { app, template } = synth('local');
    expect(ofType(template, 'AWS::WAFv2::WebACL')).toEqual([]);
    expect(ofType(template, 'AWS::WAFv2::WebACLAssociation')).toEqual([]);
    expect(apig3Acknowledged(app)).toBe(true);
  });
});

describe('createKeyedRestApi rateLimitPerIp', () => {
  it.each([0, 9, 10.5, 2_000_000_001])('refuses %p, naming WAF bounds', (rateLimitPerIp) => {
    const stack = probeStack();
    expect(() =>
      createKeyedRestApi(stack, {
        description: 'probe',
        clients: 'probe',
        throttle: { rateLimit: 1, burstLimit: 1 },
        bodyValidation: 'probe',
        rateLimitPerIp,
      }),
    ).toThrow(/rateLimitPerIp must be an integer from 10 to 2000000000/);
  });
});
