/**
 * The app's local IAM users (LocalRuntimeOptions.users): the `operator` user every local runtime
 * offers its tools (target.json's identities) holds each wing's OperatorAccess policy, as an
 * account's operators do on AWS (lib/platform/operator-access.ts), so the CLI, the console and the
 * tests call the AWS_IAM operator routes under the policy the app ships; the `operator-readonly`
 * user holds each wing's OperatorReadOnly policy (list and show, no retry or cancel), as a
 * read-only operator does. Beside APP_API_PORT_ORDER
 * for the same reason: a fact of the composition the runtime, which knows no app, is told.
 */

import {
  operatorAccessPolicyName,
  operatorReadOnlyPolicyName,
} from '../lambdas/shared/operator-access-policy-name';
import { type LocalUserSpec, OPERATOR_IDENTITY } from '../lib/local-runtime';
import { APP_API_PORT_ORDER } from './app-api-port-order';

/** The local user holding the read-only operator policies (target.json's identities). */
export const READ_ONLY_OPERATOR_IDENTITY = 'operator-readonly';

/**
 * The users of a runtime in `region` of an assembly whose stacks are `stackNames`: the operator
 * holds the OperatorAccess policy of each of the app's stacks the assembly has (npm start also runs
 * other assemblies, whose stacks have none).
 */
export function appLocalUsers(
  region: string,
  stackNames: readonly string[] = APP_API_PORT_ORDER,
): Readonly<Record<string, LocalUserSpec>> {
  const stacks = APP_API_PORT_ORDER.filter((stack) => stackNames.includes(stack));
  return {
    [OPERATOR_IDENTITY]: {
      managedPolicyNames: stacks.map((stack) => operatorAccessPolicyName(stack, region)),
    },
    [READ_ONLY_OPERATOR_IDENTITY]: {
      managedPolicyNames: stacks.map((stack) => operatorReadOnlyPolicyName(stack, region)),
    },
  };
}
