/**
 * API Gateway allows an API key one usage plan per API stage: CreateUsagePlanKey answers
 * ConflictException for a key already in another plan of that stage
 * (https://docs.aws.amazon.com/apigateway/latest/api/API_CreateUsagePlanKey.html names the
 * exception; "the combination of API key to usage plan to API stage has to be unique",
 * awslabs/aws-api-gateway-developer-portal#18). CloudFormation creates a stack update's new
 * resources, and the replacements of changed ones, before it deletes the old (a UsagePlanKey's
 * KeyId and UsagePlanId require replacement), so a deployment that moves a key from one plan to
 * another plan of the same stage fails while the old association still exists, and rolls back.
 *
 * Judged on the templates, before anything runs: a key is its ApiKey's `<stack>/<logical id>`
 * (what the runtime keeps its generated value by), a plan its UsagePlan's, a stage its RestApi's
 * and its StageName. A start judges the assembly alone (a key in two plans of a stage); a redeploy
 * judges each association the new assembly adds against the old assembly's, which still exist.
 */
import type { CloudAssembly } from '../assembly/cloud-assembly';
import type { CfnTemplate } from '../assembly/template-types';

const USAGE_PLAN = 'AWS::ApiGateway::UsagePlan';
const USAGE_PLAN_KEY = 'AWS::ApiGateway::UsagePlanKey';
const STAGE = 'AWS::ApiGateway::Stage';

/** One UsagePlanKey of a template. */
interface Association {
  /** `<stack>/<logical id>` of the UsagePlanKey. */
  readonly id: string;
  readonly key: string;
  readonly plan: string;
  /** The plan's API stages (`<api>/<stage name>`); empty when the plan is not in the stack. */
  readonly stages: readonly string[];
}

/** A logical id a `Ref` names in the stack (`<stack>/<id>`), else the value as JSON (an imported id). */
function identity(stackName: string, value: unknown): string {
  const ref = (value as { Ref?: unknown } | null)?.Ref;
  return typeof ref === 'string' ? `${stackName}/${ref}` : JSON.stringify(value);
}

/** `<api>/<stage name>`: a Ref to a Stage resource names its StageName, as Ref does. */
function stageOf(stackName: string, template: CfnTemplate, apiId: unknown, stage: unknown): string {
  const ref = (stage as { Ref?: unknown } | null)?.Ref;
  const resource = typeof ref === 'string' ? template.Resources?.[ref] : undefined;
  const stageName =
    resource?.Type === STAGE && typeof resource.Properties?.StageName === 'string'
      ? resource.Properties.StageName
      : identity(stackName, stage);
  return `${identity(stackName, apiId)}/${stageName}`;
}

function associationsOf(assembly: CloudAssembly): Association[] {
  return assembly.stacks.flatMap(({ stackName, template }) => {
    const resources = template.Resources ?? {};
    return Object.entries(resources)
      .filter(([, resource]) => resource.Type === USAGE_PLAN_KEY)
      .map(([logicalId, resource]) => {
        const planRef = (resource.Properties?.UsagePlanId as { Ref?: unknown } | undefined)?.Ref;
        const plan = typeof planRef === 'string' ? resources[planRef] : undefined;
        const apiStages = plan?.Type === USAGE_PLAN ? plan.Properties?.ApiStages : undefined;
        const stages = (Array.isArray(apiStages) ? apiStages : []).map((entry) => {
          const { ApiId, Stage } = (entry ?? {}) as { ApiId?: unknown; Stage?: unknown };
          return stageOf(stackName, template, ApiId, Stage);
        });
        return {
          id: `${stackName}/${logicalId}`,
          key: identity(stackName, resource.Properties?.KeyId),
          plan: identity(stackName, resource.Properties?.UsagePlanId),
          stages,
        };
      });
  });
}

/**
 * What API Gateway refuses of deploying `after` (over `before`, whose associations exist until the
 * deployment is done): one line per association CreateUsagePlanKey would refuse, naming it, the
 * key, both plans and the stage. Empty when nothing conflicts.
 */
export function usagePlanKeyConflicts(after: CloudAssembly, before?: CloudAssembly): string[] {
  const previous = before === undefined ? [] : associationsOf(before);
  const next = associationsOf(after);
  const existed = (association: Association) =>
    previous.some(
      (old) => old.id === association.id && old.key === association.key && old.plan === association.plan,
    );
  const conflicts: string[] = [];
  for (const [index, added] of next.entries()) {
    if (existed(added)) continue;
    // What exists when it is created: every old association, and the new ones created before it.
    const existing = [...previous, ...next.slice(0, index).filter((other) => !existed(other))];
    for (const other of existing) {
      if (other.key !== added.key || other.plan === added.plan) continue;
      const stage = added.stages.find((candidate) => other.stages.includes(candidate));
      if (stage === undefined) continue;
      const leaving = previous.includes(other) && !next.some((kept) => kept.id === other.id && existed(kept));
      const why = leaving
        ? ` (${other.id}, which this deployment removes: CloudFormation creates the new association before it deletes the old one)`
        : '';
      conflicts.push(
        `${added.id} (${USAGE_PLAN_KEY}): ConflictException: API key ${added.key} is already in usage plan ${other.plan} on stage ${stage}${why}; API Gateway allows a key one usage plan per API stage, so it cannot be added to usage plan ${added.plan}`,
      );
    }
  }
  return conflicts;
}
