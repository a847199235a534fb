/**
 * The app's local IAM users (LocalRuntimeOptions.users): the `operator` user every local runtime
 * offers its tools (target.json's identities) holds each wing's OperatorAccess policy, as an
 * account's operators do on AWS (lib/platform/operator-access.ts), so the CLI, the console and the
 * tests call the AWS_IAM operator routes under the policy the app ships. Beside APP_API_PORT_ORDER
 * for the same reason: a fact of the composition the runtime, which knows no app, is told.
 */
import { type LocalUserSpec, OPERATOR_IDENTITY } from '../lib/local-runtime';
import { operatorAccessPolicyName } from '../lib/platform/operator-access-policy-name';
import { APP_API_PORT_ORDER } from './app-api-port-order';

/** The users of a runtime of the app's assembly in `region` (the runtime's; DEFAULT_LOCAL_REGION if unset). */
export function appLocalUsers(region: string): Readonly<Record<string, LocalUserSpec>> {
  return {
    [OPERATOR_IDENTITY]: {
      managedPolicyNames: APP_API_PORT_ORDER.map((stack) => operatorAccessPolicyName(stack, region)),
    },
  };
}
