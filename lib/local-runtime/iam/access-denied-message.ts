/**
 * The message of an access-denied error, worded as AWS words it since 2021 ("User: <principal> is
 * not authorized to perform: <action> on resource: <resource> because no identity-based policy
 * allows the <action> action"; https://docs.aws.amazon.com/IAM/latest/UserGuide/troubleshoot_access-denied.html).
 * Each service wraps it in its own error code and status (AccessDeniedException, AccessDenied,
 * AuthorizationError...); see each service's errors module.
 */
import type { DenialReason } from './policy-evaluation';
import type { Principal } from './principals';

const REASONS: Readonly<Record<DenialReason, (action: string) => string>> = {
  'explicit-deny-identity': () => 'with an explicit deny in an identity-based policy',
  'explicit-deny-resource': () => 'with an explicit deny in a resource-based policy',
  'no-identity-allow': (action) => `because no identity-based policy allows the ${action} action`,
  'no-resource-allow': (action) => `because no resource-based policy allows the ${action} action`,
};

export function accessDeniedMessage(
  principal: Principal,
  action: string,
  resource: string,
  reason: DenialReason,
): string {
  const on = resource === '*' ? '' : ` on resource: ${resource}`;
  return `User: ${principal.arn} is not authorized to perform: ${action}${on} ${REASONS[reason](action)}`;
}
