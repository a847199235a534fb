import { Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct, IConstruct } from 'constructs';

/**
 * Actions that support no resource-level permissions (Service Authorization Reference: their
 * Resource column is empty), so `Resource: *` is the only way to allow them. CDK adds them for
 * active tracing (Lambda, Step Functions), Step Functions logging to CloudWatch Logs, and a DynamoDB
 * stream event source (ListStreams).
 */
export const ACTIONS_WITHOUT_RESOURCE_LEVEL_PERMISSIONS: readonly string[] = [
  'xray:PutTraceSegments',
  'xray:PutTelemetryRecords',
  'xray:GetSamplingRules',
  'xray:GetSamplingTargets',
  'logs:CreateLogDelivery',
  'logs:GetLogDelivery',
  'logs:UpdateLogDelivery',
  'logs:DeleteLogDelivery',
  'logs:ListLogDeliveries',
  'logs:PutResourcePolicy',
  'logs:DescribeResourcePolicies',
  'logs:DescribeLogGroups',
  'dynamodb:ListStreams',
];

/** The one cdk-nag finding the unscopable policy holds, and why it is accepted. */
const UNSCOPABLE_ACKNOWLEDGMENT = {
  id: 'AwsSolutions-IAM5[Resource::*]',
  reason:
    'X-Ray tracing, CloudWatch Logs delivery and dynamodb:ListStreams support no resource-level permissions; this policy holds only those actions (ScopedRole).',
} as const;

/**
 * A role whose `Resource: *` statements cannot hide: a statement made only of
 * ACTIONS_WITHOUT_RESOURCE_LEVEL_PERMISSIONS on `*` goes to a policy of its own
 * (`UnscopableActions`), the only place the IAM5 `Resource::*` finding is acknowledged; every other
 * statement goes to the default policy, where no wildcard is acknowledged. So a wildcard added to
 * the role later (say `dynamodb:*` or `Resource: *` on a table action) fails cdk-nag instead of
 * passing under an acknowledgment meant for X-Ray.
 */
export class ScopedRole extends iam.Role {
  private unscopable: iam.Policy | undefined;

  constructor(scope: Construct, id: string, props: iam.RoleProps) {
    super(scope, id, props);
  }

  override addToPrincipalPolicy(statement: iam.PolicyStatement): iam.AddToPrincipalPolicyResult {
    if (!isUnscopable(statement)) {
      return super.addToPrincipalPolicy(statement);
    }
    if (!this.unscopable) {
      this.unscopable = new iam.Policy(this, 'UnscopableActions', { roles: [this] });
      Validations.of(this.unscopable).acknowledge(UNSCOPABLE_ACKNOWLEDGMENT);
    }
    this.unscopable.addStatements(statement);
    return { statementAdded: true, policyDependable: this.unscopable };
  }
}

/** Allow, on `*` only, of actions that have no resource-level permissions only. */
function isUnscopable(statement: iam.PolicyStatement): boolean {
  return (
    statement.effect === iam.Effect.ALLOW &&
    statement.resources.length === 1 &&
    statement.resources[0] === '*' &&
    statement.notResources.length === 0 &&
    statement.notActions.length === 0 &&
    !statement.hasPrincipal &&
    statement.actions.length > 0 &&
    statement.actions.every((action) => ACTIONS_WITHOUT_RESOURCE_LEVEL_PERMISSIONS.includes(action))
  );
}

/**
 * Acknowledges one IAM5 finding on the role's default policy (the resource cdk-nag reports it on),
 * not on the role: an acknowledgment on a role covers every policy of the role, present and future.
 */
export function acknowledgeOnDefaultPolicy(
  role: iam.IRole,
  acknowledgment: { readonly id: string; readonly reason: string },
): void {
  const policy = role.node.tryFindChild('DefaultPolicy');
  if (!policy) {
    throw new Error(
      `${role.node.path}: the role has no default policy to acknowledge ${acknowledgment.id} on`,
    );
  }
  Validations.of(policy).acknowledge(acknowledgment);
}

type Intrinsic =
  | string
  | { Ref: string }
  | { 'Fn::GetAtt': [string, string] }
  | { 'Fn::ImportValue': string }
  | { 'Fn::Join': [string, Intrinsic[]] };

/**
 * A resource as cdk-nag names it in a finding (`Resource::<name>`): the resolved value with each
 * `Ref` written `<Id>`, each `Fn::GetAtt` `<Id.Attribute>` and each `Fn::ImportValue` by its export
 * name. So an acknowledgment names exactly
 * the resource it accepts, computed from the same expression as the grant.
 */
export function nagResourceName(scope: IConstruct, value: string): string {
  const render = (part: Intrinsic): string => {
    if (typeof part === 'string') return part;
    if ('Ref' in part) return `<${part.Ref}>`;
    if ('Fn::GetAtt' in part) return `<${part['Fn::GetAtt'].join('.')}>`;
    if ('Fn::ImportValue' in part) return part['Fn::ImportValue'];
    if ('Fn::Join' in part) return part['Fn::Join'][1].map(render).join(part['Fn::Join'][0]);
    throw new Error(`${scope.node.path}: cannot name ${JSON.stringify(part)} as cdk-nag does`);
  };
  return render(Stack.of(scope).resolve(value) as Intrinsic);
}
