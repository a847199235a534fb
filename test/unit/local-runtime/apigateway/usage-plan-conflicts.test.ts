/**
 * A key in two usage plans of one API stage, which API Gateway refuses (ConflictException), judged
 * on the templates: in one assembly (a start), and in a redeploy whose new association is created
 * while the old one still exists (CloudFormation deletes the old last).
 */

import { usagePlanKeyConflicts } from '../../../../lib/local-runtime/apigateway/usage-plan-conflicts';
import type { CloudAssembly } from '../../../../lib/local-runtime/assembly/cloud-assembly';
import type { CfnResource } from '../../../../lib/local-runtime/assembly/template-types';

const STACK = 'Orders';

const plan = (stage = 'Stage'): CfnResource => ({
  Type: 'AWS::ApiGateway::UsagePlan',
  Properties: { ApiStages: [{ ApiId: { Ref: 'Api' }, Stage: { Ref: stage } }] },
});
const planKey = (key: string, usagePlan: string): CfnResource => ({
  Type: 'AWS::ApiGateway::UsagePlanKey',
  Properties: { KeyId: { Ref: key }, KeyType: 'API_KEY', UsagePlanId: { Ref: usagePlan } },
});

function assembly(resources: Record<string, CfnResource>): CloudAssembly {
  const template = {
    Resources: {
      Api: { Type: 'AWS::ApiGateway::RestApi' },
      Stage: { Type: 'AWS::ApiGateway::Stage', Properties: { StageName: 'v1', RestApiId: { Ref: 'Api' } } },
      Beta: { Type: 'AWS::ApiGateway::Stage', Properties: { StageName: 'beta', RestApiId: { Ref: 'Api' } } },
      KeyA: { Type: 'AWS::ApiGateway::ApiKey' },
      KeyB: { Type: 'AWS::ApiGateway::ApiKey' },
      ...resources,
    },
  };
  return {
    directory: '/nowhere',
    stacks: [{ stackName: STACK, artifactId: STACK, template, templatePath: '', fileAssets: new Map() }],
  };
}

/** Both keys in one plan, as the released templates have them. */
const shared = assembly({
  Plan: plan(),
  PlanKeyA: planKey('KeyA', 'Plan'),
  PlanKeyB: planKey('KeyB', 'Plan'),
});

describe('usage plan key conflicts', () => {
  it('finds none when every key is in one plan per stage, or in plans of different stages', () => {
    expect(usagePlanKeyConflicts(shared)).toEqual([]);
    const apart = assembly({
      Plan: plan(),
      BetaPlan: plan('Beta'),
      PlanKeyA: planKey('KeyA', 'Plan'),
      BetaPlanKeyA: planKey('KeyA', 'BetaPlan'),
    });
    expect(usagePlanKeyConflicts(apart)).toEqual([]);
  });

  it('refuses a key in two plans of one stage, naming the association, the key, both plans and the stage', () => {
    const twice = assembly({
      Plan: plan(),
      Other: plan(),
      PlanKeyA: planKey('KeyA', 'Plan'),
      OtherKeyA: planKey('KeyA', 'Other'),
    });
    expect(usagePlanKeyConflicts(twice)).toEqual([
      'Orders/OtherKeyA (AWS::ApiGateway::UsagePlanKey): ConflictException: API key Orders/KeyA is already in usage plan Orders/Plan on stage Orders/Api/v1; API Gateway allows a key one usage plan per API stage, so it cannot be added to usage plan Orders/Other',
    ]);
  });

  it('refuses a redeploy that moves a key to another plan of the stage: the old association exists until the end', () => {
    const moved = assembly({
      Plan: plan(),
      PlanB: plan(),
      PlanKeyA: planKey('KeyA', 'Plan'),
      PlanBKeyB: planKey('KeyB', 'PlanB'),
    });
    // Alone, the new templates are fine: only the move conflicts.
    expect(usagePlanKeyConflicts(moved)).toEqual([]);
    const conflicts = usagePlanKeyConflicts(moved, shared);
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toContain(
      'Orders/PlanBKeyB (AWS::ApiGateway::UsagePlanKey): ConflictException: API key Orders/KeyB is already in usage plan Orders/Plan on stage Orders/Api/v1 (Orders/PlanKeyB, which this deployment removes: CloudFormation creates the new association before it deletes the old one)',
    );
  });

  it('lets a redeploy keep its associations, change a plan in place, or give a new key a plan', () => {
    expect(usagePlanKeyConflicts(shared, shared)).toEqual([]);
    const newKey = assembly({
      Plan: plan(),
      PlanB: plan(),
      KeyC: { Type: 'AWS::ApiGateway::ApiKey' },
      PlanKeyA: planKey('KeyA', 'Plan'),
      PlanKeyB: planKey('KeyB', 'Plan'),
      PlanBKeyC: planKey('KeyC', 'PlanB'),
    });
    expect(usagePlanKeyConflicts(newKey, shared)).toEqual([]);
  });
});
