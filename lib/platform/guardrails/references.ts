import type { CfnResource } from 'aws-cdk-lib';

/** The resource a resolved `{Ref}` or `{Fn::GetAtt}` points to, when it is in this stack. */
export function referencedResource(
  value: unknown,
  byLogicalId: ReadonlyMap<string, CfnResource>,
): CfnResource | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.Ref === 'string') return byLogicalId.get(record.Ref);
  const getAtt = record['Fn::GetAtt'];
  if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return byLogicalId.get(getAtt[0]);
  return undefined;
}
