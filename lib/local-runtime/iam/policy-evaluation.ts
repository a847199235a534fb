/**
 * AWS's policy evaluation logic for a request within one account, as the IAM User Guide describes it
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html and
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic_policy-eval-basics.html):
 *
 * 1. An explicit Deny in any applicable policy (the caller's identity policies, the resource's
 *    policy) denies.
 * 2. Otherwise, within one account, an Allow in an identity policy OR in the resource-based policy
 *    allows. A resource policy allows by naming the caller (`*`, its ARN, its role, its service); a
 *    statement naming only the caller's account delegates to the account's identity policies and
 *    grants nothing by itself, except to the account's root user.
 * 3. Otherwise the request is implicitly denied.
 *
 * KMS keys differ (https://docs.aws.amazon.com/kms/latest/developerguide/key-policy-default.html and
 * .../control-access.html): the key policy must allow, either the caller directly or the account,
 * which then lets identity policies allow; an identity policy alone never does. Callers pass
 * `resourcePolicyRequired` for them.
 *
 * The account's root user may do anything no explicit Deny forbids, save where a resource policy is
 * required (KMS) and does not name the account.
 * Not modelled (nothing in a local account has them): permissions boundaries, session policies,
 * SCPs and RCPs, cross-account requests.
 */
import type { CompiledPolicy, CompiledStatement, PrincipalMatch, RequestContext } from './policy-document';
import { type Principal, principalContext } from './principals';

export interface AuthorizationRequest {
  readonly principal: Principal;
  /** `service:Action` as IAM names it (`dynamodb:UpdateItem`). */
  readonly action: string;
  /** The resource's ARN, or `*` for an action without resource-level permissions. */
  readonly resource: string;
  /**
   * The request's own condition keys, lower-cased (`dynamodb:attributes`, `aws:sourcearn`...); the
   * principal's keys and the global ones are added by the evaluation.
   */
  readonly context?: RequestContext;
}

export interface PolicySet {
  /** The caller's identity policies (none for a service principal or the root user). */
  readonly identity: readonly CompiledPolicy[];
  /** The resource's own policy, if it has one. */
  readonly resource?: CompiledPolicy;
  /** KMS: only the resource policy (the key policy) can allow, or enable identity policies to. */
  readonly resourcePolicyRequired?: boolean;
}

/** A statement that decided (or helped decide) a request. */
export interface StatementReference {
  readonly policy: string;
  readonly kind: 'identity' | 'resource';
  readonly sid: string;
}

export type DenialReason =
  | 'explicit-deny-identity'
  | 'explicit-deny-resource'
  /** No identity policy (and no resource policy naming the caller) allows. */
  | 'no-identity-allow'
  /** The resource policy is required (KMS) or is all a service principal has, and it does not allow. */
  | 'no-resource-allow';

export type Evaluation =
  | {
      readonly allowed: true;
      /** The Allow statements that matched (empty for the root user's own rights). */
      readonly allowedBy: readonly StatementReference[];
    }
  | { readonly allowed: false; readonly reason: DenialReason; readonly deniedBy?: StatementReference };

/**
 * The global keys every request carries, besides the principal's. `aws:ViaAWSService` is "always
 * included in the request context": false unless a service calls on the principal's behalf, which
 * that service's request context says
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html#condition-keys-viaawsservice).
 */
export function globalContext(region: string, now: number): Record<string, string> {
  return {
    'aws:viaawsservice': 'false',
    'aws:securetransport': 'true',
    'aws:requestedregion': region,
    'aws:currenttime': new Date(now).toISOString(),
    'aws:epochtime': String(Math.floor(now / 1000)),
  };
}

function reference(policy: CompiledPolicy, statement: CompiledStatement): StatementReference {
  return { policy: policy.name, kind: policy.kind, sid: statement.sid };
}

/** Does the statement apply to the request, and through which principal match (resource policies)? */
function applies(
  policy: CompiledPolicy,
  statement: CompiledStatement,
  request: AuthorizationRequest,
  context: RequestContext,
): PrincipalMatch {
  if (!statement.matchesAction(request.action)) return 'none';
  if (!statement.matchesResource(request.resource, context)) return 'none';
  const principalMatch =
    policy.kind === 'resource' ? statement.matchesPrincipal(request.principal) : 'direct';
  if (principalMatch === 'none') return 'none';
  return statement.conditionHolds(context) ? principalMatch : 'none';
}

export function evaluate(
  request: AuthorizationRequest,
  policies: PolicySet,
  options: { readonly region: string; readonly now: number },
): Evaluation {
  const context: RequestContext = {
    ...globalContext(options.region, options.now),
    ...principalContext(request.principal),
    ...request.context,
  };
  const { principal } = request;
  const identity = principal.kind === 'role-session' || principal.kind === 'user' ? policies.identity : [];
  const all = policies.resource ? [...identity, policies.resource] : identity;
  for (const policy of all) {
    for (const statement of policy.statements) {
      if (statement.effect !== 'Deny') continue;
      if (applies(policy, statement, request, context) !== 'none') {
        return {
          allowed: false,
          reason: policy.kind === 'identity' ? 'explicit-deny-identity' : 'explicit-deny-resource',
          deniedBy: reference(policy, statement),
        };
      }
    }
  }
  const identityAllows: StatementReference[] = [];
  for (const policy of identity) {
    for (const statement of policy.statements) {
      if (statement.effect === 'Allow' && applies(policy, statement, request, context) !== 'none') {
        identityAllows.push(reference(policy, statement));
      }
    }
  }
  const direct: StatementReference[] = [];
  const viaAccount: StatementReference[] = [];
  if (policies.resource) {
    for (const statement of policies.resource.statements) {
      if (statement.effect !== 'Allow') continue;
      const match = applies(policies.resource, statement, request, context);
      if (match === 'direct') direct.push(reference(policies.resource, statement));
      if (match === 'account') viaAccount.push(reference(policies.resource, statement));
    }
  }
  if (policies.resourcePolicyRequired) {
    // The key policy decides: it allows the caller, or it enables the account's identity policies.
    if (direct.length > 0) return { allowed: true, allowedBy: direct };
    if (viaAccount.length > 0 && identityAllows.length > 0) {
      return { allowed: true, allowedBy: [...viaAccount, ...identityAllows] };
    }
    return { allowed: false, reason: viaAccount.length > 0 ? 'no-identity-allow' : 'no-resource-allow' };
  }
  if (principal.kind === 'root') return { allowed: true, allowedBy: direct };
  if (identityAllows.length > 0 || direct.length > 0) {
    return { allowed: true, allowedBy: [...identityAllows, ...direct] };
  }
  return {
    allowed: false,
    reason:
      principal.kind === 'service' || principal.kind === 'anonymous'
        ? 'no-resource-allow'
        : 'no-identity-allow',
  };
}
