/**
 * Who calls: the principals of the local account, as AWS names them in policies, request contexts
 * and access-denied messages. A function calls as a session of its execution role
 * (`arn:aws:sts::<account>:assumed-role/<role>/<function>`, as Lambda's credentials make it), a state
 * machine's integrations as a session of its role, a local tool as a local IAM user or as the
 * account's root (the developer who deploys), and a service acting on a resource's behalf (SNS
 * delivering to a queue, EventBridge to a target) as its service principal, with the resource as
 * `aws:SourceArn`. A request nobody signs (a function URL with AuthType NONE, a REST API method
 * without authorization under the API's resource policy) is the anonymous principal, which only a
 * resource policy naming `*` allows.
 *
 * Request-context values per principal type:
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html#condition-keys-principalarn
 * and #condition-keys-userid.
 */
import { createHash } from 'node:crypto';

export interface RootPrincipal {
  readonly kind: 'root';
  readonly accountId: string;
  readonly arn: string;
}

export interface UserPrincipal {
  readonly kind: 'user';
  readonly accountId: string;
  readonly name: string;
  readonly arn: string;
  /** AIDA... as IAM hands out user ids. */
  readonly userId: string;
}

export interface RoleSessionPrincipal {
  readonly kind: 'role-session';
  readonly accountId: string;
  readonly roleName: string;
  /** The role's ARN (with its path): what `aws:PrincipalArn` holds for a session. */
  readonly roleArn: string;
  readonly sessionName: string;
  /** `arn:aws:sts::<account>:assumed-role/<role name>/<session>`: who the messages name. */
  readonly arn: string;
  /** AROA... as IAM hands out role ids. */
  readonly roleId: string;
}

export interface ServicePrincipal {
  readonly kind: 'service';
  /** e.g. `sns.amazonaws.com`. */
  readonly service: string;
  readonly arn: string;
}

/** Whoever sends an unsigned request; AWS's messages name it `anonymous`. */
export interface AnonymousPrincipal {
  readonly kind: 'anonymous';
  readonly arn: 'anonymous';
}

export type Principal =
  | RootPrincipal
  | UserPrincipal
  | RoleSessionPrincipal
  | ServicePrincipal
  | AnonymousPrincipal;

function stableId(prefix: string, name: string): string {
  return `${prefix}${createHash('sha256').update(name).digest('hex').slice(0, 17).toUpperCase()}`;
}

export function rootPrincipal(accountId: string): RootPrincipal {
  return { kind: 'root', accountId, arn: `arn:aws:iam::${accountId}:root` };
}

export function userPrincipal(accountId: string, name: string): UserPrincipal {
  return {
    kind: 'user',
    accountId,
    name,
    arn: `arn:aws:iam::${accountId}:user/${name}`,
    userId: stableId('AIDA', `${accountId}/${name}`),
  };
}

/** A session of the role named by `roleArn` (`arn:aws:iam::<account>:role[/path]/<name>`). */
export function roleSessionPrincipal(roleArn: string, sessionName: string): RoleSessionPrincipal {
  const match = /^arn:aws[a-z-]*:iam::(\d{12}):role\/(?:.*\/)?([^/]+)$/.exec(roleArn);
  if (!match) throw new Error(`'${roleArn}' is not an IAM role ARN`);
  const [, accountId = '', roleName = ''] = match;
  return {
    kind: 'role-session',
    accountId,
    roleName,
    roleArn,
    sessionName,
    arn: `arn:aws:sts::${accountId}:assumed-role/${roleName}/${sessionName}`,
    roleId: stableId('AROA', roleArn),
  };
}

export function servicePrincipal(service: string): ServicePrincipal {
  return { kind: 'service', service, arn: service };
}

export function anonymousPrincipal(): AnonymousPrincipal {
  return { kind: 'anonymous', arn: 'anonymous' };
}

/** `aws:PrincipalArn`: the role for a session, the user, the root, or the service's name. */
export function principalArnOf(principal: Principal): string {
  return principal.kind === 'role-session' ? principal.roleArn : principal.arn;
}

/** The request-context keys every request of this principal carries (lower-cased names). */
export function principalContext(principal: Principal): Record<string, string | readonly string[]> {
  switch (principal.kind) {
    case 'anonymous':
      // https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html#principaltable
      return {
        'aws:principaltype': 'Anonymous',
        'aws:userid': 'anonymous',
        'aws:principalisawsservice': 'false',
      };
    case 'service':
      return {
        'aws:principalisawsservice': 'true',
        'aws:principalservicename': principal.service,
      };
    case 'root':
      return {
        'aws:principalarn': principal.arn,
        'aws:principalaccount': principal.accountId,
        'aws:principaltype': 'Account',
        'aws:userid': principal.accountId,
        'aws:principalisawsservice': 'false',
      };
    case 'user':
      return {
        'aws:principalarn': principal.arn,
        'aws:principalaccount': principal.accountId,
        'aws:principaltype': 'User',
        'aws:userid': principal.userId,
        'aws:username': principal.name,
        'aws:principalisawsservice': 'false',
      };
    case 'role-session':
      return {
        'aws:principalarn': principal.roleArn,
        'aws:principalaccount': principal.accountId,
        'aws:principaltype': 'AssumedRole',
        'aws:userid': `${principal.roleId}:${principal.sessionName}`,
        'aws:principalisawsservice': 'false',
      };
  }
}
