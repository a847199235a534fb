/**
 * The local `operator` user a campaign's runtime gives its operator actions: the OperatorAccess
 * policy of the stack under test (lib/platform/operator-access.ts), as an account's operators hold
 * it on AWS. The campaign calls the AWS_IAM operator routes as that user; without the policy the
 * runtime refuses them, as API Gateway would.
 */

import { operatorAccessPolicyName } from '../../lambdas/shared/operator-access-policy-name';
import { DEFAULT_LOCAL_REGION, type LocalUserSpec, OPERATOR_IDENTITY } from '../local-runtime';

export function operatorUserOf(stackName: string): Readonly<Record<string, LocalUserSpec>> {
  return {
    [OPERATOR_IDENTITY]: { managedPolicyNames: [operatorAccessPolicyName(stackName, DEFAULT_LOCAL_REGION)] },
  };
}
