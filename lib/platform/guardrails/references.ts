import { CfnResource, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

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

/** Every CloudFormation resource below `scope`, by its logical id in the stack. */
export function resourcesByLogicalId(scope: IConstruct): Map<string, CfnResource> {
  const stack = Stack.of(scope);
  const byLogicalId = new Map<string, CfnResource>();
  for (const node of scope.node.findAll()) {
    if (CfnResource.isCfnResource(node)) byLogicalId.set(stack.resolve(node.logicalId) as string, node);
  }
  return byLogicalId;
}
