/**
 * The upgrade check on an API key that changes usage plans (lib/release/usage-plan-key-moves.ts),
 * through @aws-cdk/cloudformation-diff's real resource specification: a key moved to another plan
 * of its stage (a new UsagePlanKey, or the same one naming another plan) is a refusal, since
 * CloudFormation adds the new association while the old exists and API Gateway allows a key one
 * plan per stage; a plan's new limits, a new key in a new plan, or a plan of another stage pass.
 * The released orders template's two clients share one plan, so moving one out is found there too.
 */
import {
  type CfnResource,
  type CfnTemplate,
  checkUpgrade,
  readReleasedTemplate,
  type UpgradeFinding,
} from '../../../lib/release';

const planKey = (key: string, plan: string): CfnResource => ({
  Type: 'AWS::ApiGateway::UsagePlanKey',
  Properties: { KeyId: { Ref: key }, KeyType: 'API_KEY', UsagePlanId: { Ref: plan } },
});
const plan = (rateLimit: number, stage = 'Stage'): CfnResource => ({
  Type: 'AWS::ApiGateway::UsagePlan',
  Properties: {
    ApiStages: [{ ApiId: { Ref: 'Api' }, Stage: { Ref: stage } }],
    Throttle: { RateLimit: rateLimit, BurstLimit: rateLimit * 2 },
  },
});

/** Two keys in one plan, as the released templates have the orders' clients. */
function template(resources: Record<string, CfnResource | undefined> = {}): CfnTemplate {
  const all: Record<string, CfnResource | undefined> = {
    Api: { Type: 'AWS::ApiGateway::RestApi', Properties: { Name: 'orders' } },
    Stage: { Type: 'AWS::ApiGateway::Stage', Properties: { RestApiId: { Ref: 'Api' }, StageName: 'v1' } },
    Beta: { Type: 'AWS::ApiGateway::Stage', Properties: { RestApiId: { Ref: 'Api' }, StageName: 'beta' } },
    KeyA: { Type: 'AWS::ApiGateway::ApiKey', Properties: { Enabled: true } },
    KeyB: { Type: 'AWS::ApiGateway::ApiKey', Properties: { Enabled: true } },
    UsagePlan: plan(50),
    UsagePlanKeyA: planKey('KeyA', 'UsagePlan'),
    UsagePlanKeyB: planKey('KeyB', 'UsagePlan'),
    ...resources,
  };
  return {
    Resources: Object.fromEntries(
      Object.entries(all).filter((entry): entry is [string, CfnResource] => entry[1] !== undefined),
    ),
  };
}

const moves = (released: CfnTemplate, current: CfnTemplate): UpgradeFinding[] =>
  checkUpgrade(released, current).failures.filter((finding) => finding.rule === 'usage-plan-key-moved');

describe('upgrade check: usage plan keys', () => {
  it("passes a plan's new limits for every key in it (updated in place)", () => {
    const report = checkUpgrade(template(), template({ UsagePlan: plan(25) }));
    expect(report.failures).toEqual([]);
    expect(report.changes).toContain('UsagePlan (AWS::ApiGateway::UsagePlan) updated: Throttle');
  });

  it('refuses a key moved to a new plan of its stage, naming the key, both plans, the stage and the remedy', () => {
    const current = template({
      UsagePlanB: plan(15),
      UsagePlanKeyB: undefined,
      UsagePlanBKeyB: planKey('KeyB', 'UsagePlanB'),
    });
    const [finding, ...others] = moves(template(), current);
    expect(others).toEqual([]);
    expect(finding).toMatchObject({ logicalId: 'UsagePlanBKeyB', type: 'AWS::ApiGateway::UsagePlanKey' });
    expect(finding?.reason).toContain(
      'adds the API key KeyB to usage plan UsagePlanB, but the key is still in usage plan UsagePlan on stage Api/v1 (the released association UsagePlanKeyB, which exists until the update',
    );
    expect(finding?.reason).toContain('CreateUsagePlanKey: ConflictException');
    expect(finding?.reason).toContain('give the client whose limits change a new API key');
  });

  it('refuses an association kept under its logical id that names another plan (a replacement)', () => {
    const current = template({ UsagePlanB: plan(15), UsagePlanKeyB: planKey('KeyB', 'UsagePlanB') });
    expect(moves(template(), current).map((finding) => finding.logicalId)).toEqual(['UsagePlanKeyB']);
  });

  it('refuses a key put in a second plan of its stage while it stays in the first', () => {
    const current = template({ UsagePlanB: plan(15), UsagePlanBKeyB: planKey('KeyB', 'UsagePlanB') });
    expect(moves(template(), current).map((finding) => finding.logicalId)).toEqual(['UsagePlanBKeyB']);
  });

  it('passes a new key in a new plan, and a key added to a plan of another stage', () => {
    const newKey = template({
      KeyC: { Type: 'AWS::ApiGateway::ApiKey', Properties: { Enabled: true } },
      UsagePlanC: plan(15),
      UsagePlanCKeyC: planKey('KeyC', 'UsagePlanC'),
    });
    expect(checkUpgrade(template(), newKey).failures).toEqual([]);
    const otherStage = template({ BetaPlan: plan(15, 'Beta'), BetaPlanKeyB: planKey('KeyB', 'BetaPlan') });
    expect(checkUpgrade(template(), otherStage).failures).toEqual([]);
  });

  it('cannot be acknowledged: CloudFormation refuses the update whatever is acknowledged', () => {
    expect(() =>
      checkUpgrade(template(), template(), {
        acknowledgments: [
          // @ts-expect-error a refusal is no loss a release may acknowledge
          { logicalId: 'UsagePlanBKeyB', rule: 'usage-plan-key-moved', reason: 'meant' },
        ],
      }),
    ).toThrow('CloudFormation refuses that update whatever is acknowledged');
  });

  it("finds a released orders client moved out of the clients' shared plan", () => {
    const released = readReleasedTemplate('demo', 'SchedulerAgentSupervisor');
    if (released === undefined) throw new Error('no released SchedulerAgentSupervisor template');
    const resources = { ...released.Resources };
    const [shared] = Object.keys(resources).filter(
      (id) => resources[id]?.Type === 'AWS::ApiGateway::UsagePlan',
    );
    const [callCenter] = Object.keys(resources).filter(
      (id) => resources[id]?.Type === 'AWS::ApiGateway::UsagePlanKey' && id.includes('callcenter'),
    );
    if (shared === undefined || callCenter === undefined) throw new Error('no shared plan of the clients');
    const key = (resources[callCenter]?.Properties?.KeyId as { Ref?: string } | undefined)?.Ref ?? '';
    delete resources[callCenter];
    resources.SubmissionApiUsagePlancallcenter = resources[shared] as CfnResource;
    resources.SubmissionApiUsagePlancallcenterKey = planKey(key, 'SubmissionApiUsagePlancallcenter');
    const [finding] = moves(released, { ...released, Resources: resources });
    expect(finding?.logicalId).toBe('SubmissionApiUsagePlancallcenterKey');
    expect(finding?.reason).toContain(`the key is still in usage plan ${shared} on stage`);
  });
});
