/**
 * The name of a stack's OperatorAccess policy (lib/platform/operator-access.ts),
 * `<stack>-OperatorAccess-<region>`: the construct names the policy by it, and the local runtime's
 * `operator` user is given the policy by it (bin/app-local-users.ts, the chaos campaigns). Here,
 * with the contracts the stacks share with their tools, so a tool reads it without loading the CDK.
 */
export function operatorAccessPolicyName(stackName: string, region: string): string {
  return `${stackName}-OperatorAccess-${region}`;
}

/**
 * The name of a stack's read-only operator policy (OperatorAccess.readOnlyPolicy),
 * `<stack>-OperatorReadOnly-<region>`: the read routes (GET: list, show) only, no retry or cancel.
 */
export function operatorReadOnlyPolicyName(stackName: string, region: string): string {
  return `${stackName}-OperatorReadOnly-${region}`;
}
