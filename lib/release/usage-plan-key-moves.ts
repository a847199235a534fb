/**
 * What CloudFormation refuses of an API key changing usage plans. API Gateway allows a key one
 * usage plan per API stage: CreateUsagePlanKey answers ConflictException for a key already in
 * another plan of that stage (https://docs.aws.amazon.com/apigateway/latest/api/API_CreateUsagePlanKey.html
 * names the exception; "the combination of API key to usage plan to API stage has to be unique",
 * awslabs/aws-api-gateway-developer-portal#18). A key moves when its AWS::ApiGateway::UsagePlanKey
 * is replaced (KeyId and UsagePlanId require replacement, and a new logical id is a new resource)
 * to name another plan, or the same plan replaced; CloudFormation creates the new association
 * before it deletes the old one, so the key is in both plans when the new one is added, the
 * update fails and rolls back. A new key (its AWS::ApiGateway::ApiKey added or replaced) has no
 * old association and may join any plan. The local runtime refuses the same redeploy
 * (lib/local-runtime/apigateway/usage-plan-conflicts.ts).
 */
import { ResourceImpact, type TemplateDiff } from '@aws-cdk/cloudformation-diff';
import type { CfnTemplate } from './template';
import type { UpgradeFinding } from './upgrade-finding';

const USAGE_PLAN = 'AWS::ApiGateway::UsagePlan';
const USAGE_PLAN_KEY = 'AWS::ApiGateway::UsagePlanKey';
const STAGE = 'AWS::ApiGateway::Stage';

const REMEDY =
  "Keep each released key in its plan: give the keys of one plan the same new limits (the plan's throttle is updated in place), or give the client whose limits change a new API key (a new AWS::ApiGateway::ApiKey) in the new plan and retire the old key in a later release, once the client uses the new one; a move that must keep the key takes two deployments, the first removing the key from its plan (API Gateway refuses the key, 403, until the second adds it to the new one)";

/** One UsagePlanKey of a template: its key and plan (a Ref's logical id, else the value as JSON). */
interface Association {
  readonly logicalId: string;
  readonly key: string;
  readonly plan: string;
  /** The plan's API stages, `<api>/<stage name>`: empty when the plan is not in the template. */
  readonly stages: readonly string[];
}

function identity(value: unknown): string {
  const ref = (value as { Ref?: unknown } | null)?.Ref;
  return typeof ref === 'string' ? ref : JSON.stringify(value);
}

function associations(template: CfnTemplate): Association[] {
  const resources = template.Resources ?? {};
  const stageOf = (apiId: unknown, stage: unknown): string => {
    const target = resources[identity(stage)];
    const name = target?.Type === STAGE ? target.Properties?.StageName : undefined;
    return `${identity(apiId)}/${typeof name === 'string' ? name : identity(stage)}`;
  };
  return Object.entries(resources)
    .filter(([, resource]) => resource.Type === USAGE_PLAN_KEY)
    .map(([logicalId, resource]) => {
      const plan = identity(resource.Properties?.UsagePlanId);
      const planResource = resources[plan];
      const apiStages = planResource?.Type === USAGE_PLAN ? planResource.Properties?.ApiStages : undefined;
      const stages = (Array.isArray(apiStages) ? apiStages : []).map((entry) => {
        const { ApiId, Stage } = (entry ?? {}) as { ApiId?: unknown; Stage?: unknown };
        return stageOf(ApiId, Stage);
      });
      return { logicalId, key: identity(resource.Properties?.KeyId), plan, stages };
    });
}

/**
 * The UsagePlanKeys an upgrade from `released` to `current` creates that API Gateway refuses: the
 * key still in another plan of one of the new plan's stages (or in its replaced plan), whether the
 * old association is the released template's (it exists until the update's cleanup) or another of
 * the current template's. One finding per association created, naming the key, both plans and the
 * stage, and the remedy.
 */
export function usagePlanKeyMoves(
  released: CfnTemplate,
  current: CfnTemplate,
  diff: TemplateDiff,
): UpgradeFinding[] {
  const impact = (logicalId: string) => diff.resources.get(logicalId)?.changeImpact;
  const renewed = (logicalId: string) =>
    [ResourceImpact.WILL_CREATE, ResourceImpact.WILL_REPLACE, ResourceImpact.MAY_REPLACE].includes(
      impact(logicalId) as ResourceImpact,
    );
  const before = associations(released);
  const after = associations(current);
  const found: UpgradeFinding[] = [];
  for (const [index, added] of after.entries()) {
    if (!renewed(added.logicalId) || renewed(added.key)) continue;
    // What exists when it is created: every released association (until the update's cleanup),
    // and the associations of this release created before it.
    const existing = [
      ...before.map((old) => ({ ...old, released: true })),
      ...after
        .slice(0, index)
        .filter((other) => renewed(other.logicalId))
        .map((other) => ({ ...other, released: false })),
    ];
    for (const other of existing) {
      if (other.key !== added.key) continue;
      // The same plan is another only when it is replaced (a new plan, the old one still there).
      if (other.plan === added.plan && !(other.released && renewed(added.plan))) continue;
      const stage = added.stages.find((candidate) => other.stages.includes(candidate));
      if (stage === undefined) continue;
      const whose = other.released
        ? `the released association ${other.logicalId}, which exists until the update's cleanup (CloudFormation creates the new association before it deletes the old one)`
        : `the association ${other.logicalId} of this release`;
      found.push({
        logicalId: added.logicalId,
        type: USAGE_PLAN_KEY,
        rule: 'usage-plan-key-moved',
        reason: `adds the API key ${added.key} to usage plan ${added.plan}, but the key is still in usage plan ${other.plan} on stage ${stage} (${whose}): API Gateway allows a key one usage plan per API stage (CreateUsagePlanKey: ConflictException), so the update fails and rolls back. ${REMEDY}`,
      });
      break;
    }
  }
  return found;
}
