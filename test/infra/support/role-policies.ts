/**
 * A synthesized role's identity policies, compiled by the local runtime's IAM (lib/local-runtime/iam)
 * so infra tests can ask whether the stack grants what the app's own requests need. Intrinsics are
 * resolved for that purpose only: a table's Arn is `arn:aws:dynamodb:<region>:<account>:table/<logical
 * id>`, any other reference stays recognisable and matches nothing real.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { type CompiledPolicy, compilePolicy } from '../../../lib/local-runtime/iam';

export const INFRA_REGION = 'us-east-1';
export const INFRA_ACCOUNT = '000000000000';

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

/** The ARN the helper gives a table: what a request to `tableName` = its logical id names. */
export function tableArnOf(logicalId: string): string {
  return `arn:aws:dynamodb:${INFRA_REGION}:${INFRA_ACCOUNT}:table/${logicalId}`;
}

function resolve(value: unknown, resources: Resources): unknown {
  if (Array.isArray(value)) return value.map((item) => resolve(item, resources));
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  if ('Fn::GetAtt' in record) {
    const [id, attribute] = record['Fn::GetAtt'] as [string, string];
    return resources[id]?.Type === 'AWS::DynamoDB::Table' && attribute === 'Arn'
      ? tableArnOf(id)
      : `arn:aws:unresolved:${INFRA_REGION}:${INFRA_ACCOUNT}:${id}/${attribute}`;
  }
  if ('Fn::Join' in record) {
    const [separator, parts] = record['Fn::Join'] as [string, unknown[]];
    return parts.map((part) => String(resolve(part, resources))).join(separator);
  }
  if ('Ref' in record) {
    const name = String(record.Ref);
    if (name === 'AWS::Partition') return 'aws';
    if (name === 'AWS::Region') return INFRA_REGION;
    if (name === 'AWS::AccountId') return INFRA_ACCOUNT;
    if (name === 'AWS::URLSuffix') return 'amazonaws.com';
    return `unresolved-${name}`;
  }
  return Object.fromEntries(Object.entries(record).map(([key, item]) => [key, resolve(item, resources)]));
}

/** Every identity policy attached to the role whose logical id starts with `rolePrefix`. */
export function rolePolicies(template: Template, rolePrefix: string): CompiledPolicy[] {
  const resources = template.toJSON().Resources as Resources;
  const roles = Object.keys(resources).filter(
    (id) => id.startsWith(rolePrefix) && resources[id]?.Type === 'AWS::IAM::Role',
  );
  if (roles.length !== 1)
    throw new Error(`expected one role ${rolePrefix}*, found ${roles.join(', ') || 'none'}`);
  const role = roles[0] as string;
  return Object.entries(resources)
    .filter(([, resource]) => resource.Type === 'AWS::IAM::Policy')
    .filter(([, resource]) => JSON.stringify(resource.Properties?.Roles ?? []).includes(`"${role}"`))
    .map(([id, resource]) =>
      compilePolicy(id, 'identity', resolve(resource.Properties?.PolicyDocument, resources)),
    );
}
