/**
 * The IAM side of the local account: its roles (with their trust policies) and users, and the
 * identity policies attached to each (inline policies, AWS::IAM::Policy, customer and AWS managed
 * policies), compiled. Filled from the templates by the IAM provisioner and, for the local tools'
 * users, by the runtime's composition; read by the Authorizer for every request.
 */
import { accountOfArn } from './arn';
import type { CompiledPolicy } from './policy-document';
import { evaluate } from './policy-evaluation';
import { type Principal, servicePrincipal } from './principals';

export interface LocalRole {
  readonly arn: string;
  readonly name: string;
  /** The role's trust policy (AssumeRolePolicyDocument), compiled as a resource policy. */
  readonly trustPolicy: CompiledPolicy;
  /** Where it was declared (`<stack>/<logical id>`), for messages. */
  readonly declaredAt: string;
}

/** An Allow statement of an identity policy, as the least-privilege report reads it. */
export interface GrantedStatement {
  readonly policy: string;
  readonly sid: string;
  readonly actions: readonly string[];
  readonly notAction: boolean;
  readonly resources: readonly string[];
  readonly notResource: boolean;
  readonly conditional: boolean;
}

export class LocalAccount {
  private readonly roles = new Map<string, LocalRole>();
  private readonly policies = new Map<string, CompiledPolicy[]>();

  constructor(readonly accountId: string) {}

  defineRole(role: LocalRole): void {
    this.roles.set(role.arn, role);
    if (!this.policies.has(role.arn)) this.policies.set(role.arn, []);
  }

  role(arn: string): LocalRole | undefined {
    return this.roles.get(arn);
  }

  allRoles(): readonly LocalRole[] {
    return [...this.roles.values()];
  }

  /** Attaches an identity policy to a role or user, by its ARN. */
  attach(principalArn: string, policy: CompiledPolicy): void {
    const attached = this.policies.get(principalArn) ?? [];
    if (!attached.some((existing) => existing.name === policy.name)) attached.push(policy);
    this.policies.set(principalArn, attached);
  }

  /** The identity policies of a role or user ARN. */
  policiesAttachedTo(principalArn: string): readonly CompiledPolicy[] {
    return this.policies.get(principalArn) ?? [];
  }

  /** The identity policies that apply to a principal's requests (a session: its role's). */
  policiesOf(principal: Principal): readonly CompiledPolicy[] {
    if (principal.kind === 'role-session') return this.policiesAttachedTo(principal.roleArn);
    if (principal.kind === 'user') return this.policiesAttachedTo(principal.arn);
    return [];
  }

  /** Every Allow statement of every role's and user's identity policies: what the account grants. */
  grants(): Record<string, GrantedStatement[]> {
    const grants: Record<string, GrantedStatement[]> = {};
    for (const [principalArn, policies] of this.policies) {
      grants[principalArn] = policies.flatMap((policy) =>
        policy.statements
          .filter((statement) => statement.effect === 'Allow')
          .map((statement) => ({
            policy: policy.name,
            sid: statement.sid,
            actions: statement.actions,
            notAction: statement.notAction,
            resources: statement.resources,
            notResource: statement.notResource,
            conditional: statement.conditional,
          })),
      );
    }
    return grants;
  }

  /**
   * Whether the role's trust policy lets a service assume it (sts:AssumeRole by the service
   * principal), as Lambda, Step Functions, EventBridge and Pipes check when a resource is created
   * with the role.
   */
  trusts(roleArn: string, service: string, region: string, sourceArn?: string): boolean {
    const role = this.roles.get(roleArn);
    if (!role) return false;
    // The service assumes the role for a resource (a state machine, a function): a trust policy's
    // confused-deputy conditions (aws:SourceArn, aws:SourceAccount) are judged against it.
    const context =
      sourceArn === undefined
        ? {}
        : { 'aws:sourcearn': sourceArn, 'aws:sourceaccount': accountOfArn(sourceArn) ?? '' };
    return evaluate(
      { principal: servicePrincipal(service), action: 'sts:AssumeRole', resource: roleArn, context },
      { identity: [], resource: role.trustPolicy },
      // wall clock: not yet on the runtime's clock (aws:CurrentTime of an internal check)
      { region, now: Date.now() },
    ).allowed;
  }
}
