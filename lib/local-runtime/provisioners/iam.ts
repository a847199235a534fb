/**
 * IAM and KMS of the templates, read into the local account before anything is wired or started:
 * each role (its trust policy, inline policies, managed policies), each AWS::IAM::Policy and
 * AWS::IAM::ManagedPolicy attached to roles and users, each KMS key's policy and alias, and the
 * identity policies the composition gives local users (options.users). A policy the evaluator
 * cannot evaluate faithfully (an unknown condition operator or key, a federated principal, an AWS
 * managed policy with no local copy) fails the start, naming the resource and every problem: IAM is
 * enforced on every request (../iam), so a policy half-understood would be a test that lies.
 */
import { awsManagedPolicy } from '../iam/aws-managed-policies';
import type { LocalIdentity } from '../iam/identities';
import { type CompiledPolicy, compilePolicy } from '../iam/policy-document';
import { PolicyDocumentError } from '../iam/policy-document-error';
import type { Provisioner, RuntimeContext, StackContext, TargetContribution } from '../provisioning';
import { asRecord, asString } from './values';

const ROLE = 'AWS::IAM::Role';
const POLICY = 'AWS::IAM::Policy';
const MANAGED_POLICY = 'AWS::IAM::ManagedPolicy';
const KEY = 'AWS::KMS::Key';
const ALIAS = 'AWS::KMS::Alias';

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export class IamProvisioner implements Provisioner {
  readonly name = 'IAM';
  readonly resourceTypes = {
    runs: [ROLE, POLICY, MANAGED_POLICY, KEY, ALIAS],
    notRun: {
      'AWS::IAM::*': 'only roles, policies and managed policies are part of the local account',
    },
  };
  /** Customer managed policies by ARN and by ManagedPolicyName (for options.users). */
  private readonly managedByArn = new Map<string, CompiledPolicy>();
  private users: Record<string, LocalIdentity> = {};
  private readonly managedByName = new Map<string, string>();

  /**
   * In the wire phase: policies name the ARNs of what the stack provisions (a table's stream ARN is
   * known once the table exists), and what wires a role's resources together (event source mappings,
   * pipes) is checked against its policies after this, as listed later.
   */
  async wire(context: StackContext): Promise<void> {
    const problems: string[] = [];
    const compile = (where: string, kind: 'identity' | 'resource', document: unknown) => {
      try {
        return compilePolicy(where, kind, document);
      } catch (error) {
        if (error instanceof PolicyDocumentError) {
          problems.push(error.message);
          return undefined;
        }
        throw error;
      }
    };
    const { resolver, stack, iam, accountId } = context;
    const roleArnOfName = (name: string) => `arn:aws:iam::${accountId}:role/${name}`;
    const userArnOfName = (name: string) => `arn:aws:iam::${accountId}:user/${name}`;
    const where = (logicalId: string) => `${stack.stackName}/${logicalId}`;

    // Managed policies first: roles of this stack may attach them by ARN.
    for (const [logicalId] of context.ofType(MANAGED_POLICY)) {
      const properties = resolver.properties(logicalId);
      const policy = compile(where(logicalId), 'identity', properties.PolicyDocument);
      if (!policy) continue;
      const arn = String(resolver.context.ref(logicalId));
      this.managedByArn.set(arn, policy);
      const name = asString(properties.ManagedPolicyName);
      if (name) this.managedByName.set(name, arn);
      for (const role of strings(properties.Roles)) iam.account.attach(roleArnOfName(role), policy);
      for (const user of strings(properties.Users)) iam.account.attach(userArnOfName(user), policy);
      if (strings(properties.Groups).length > 0) {
        problems.push(`${where(logicalId)}: groups are not part of the local account`);
      }
    }
    for (const [logicalId] of context.ofType(ROLE)) {
      const properties = resolver.properties(logicalId);
      const arn = String(resolver.context.getAtt(logicalId, 'Arn'));
      if (properties.PermissionsBoundary !== undefined) {
        // A boundary caps what the identity policies allow: ignoring it would allow more than AWS.
        problems.push(`${where(logicalId)}: PermissionsBoundary is not evaluated by the local account`);
      }
      const trustPolicy = compile(
        `${where(logicalId)} trust policy`,
        'resource',
        properties.AssumeRolePolicyDocument,
      );
      if (trustPolicy) {
        iam.account.defineRole({
          arn,
          name: resolver.physicalName(logicalId),
          trustPolicy,
          declaredAt: where(logicalId),
        });
      }
      for (const inline of Array.isArray(properties.Policies) ? properties.Policies : []) {
        const { PolicyName, PolicyDocument } = asRecord(inline);
        const policy = compile(
          `${where(logicalId)} inline ${String(PolicyName)}`,
          'identity',
          PolicyDocument,
        );
        if (policy) iam.account.attach(arn, policy);
      }
      for (const managedArn of strings(properties.ManagedPolicyArns)) {
        const policy = this.managedPolicy(managedArn, compile);
        if (policy) iam.account.attach(arn, policy);
        else {
          problems.push(
            `${where(logicalId)}: managed policy ${managedArn} is neither in the templates nor in the local copy of AWS managed policies (lib/local-runtime/iam/aws-managed-policies.ts)`,
          );
        }
      }
    }
    for (const [logicalId] of context.ofType(POLICY)) {
      const properties = resolver.properties(logicalId);
      const policy = compile(where(logicalId), 'identity', properties.PolicyDocument);
      if (!policy) continue;
      for (const role of strings(properties.Roles)) iam.account.attach(roleArnOfName(role), policy);
      for (const user of strings(properties.Users)) iam.account.attach(userArnOfName(user), policy);
      if (strings(properties.Groups).length > 0) {
        problems.push(`${where(logicalId)}: groups are not part of the local account`);
      }
    }
    for (const [logicalId] of context.ofType(KEY)) {
      const properties = resolver.properties(logicalId);
      const policy = compile(`${where(logicalId)} key policy`, 'resource', properties.KeyPolicy);
      if (!policy) continue;
      iam.keys.define({
        arn: String(resolver.context.getAtt(logicalId, 'Arn')),
        keyId: resolver.physicalName(logicalId),
        policy,
        declaredAt: where(logicalId),
      });
    }
    for (const [logicalId] of context.ofType(ALIAS)) {
      const properties = resolver.properties(logicalId);
      const alias = asString(properties.AliasName);
      const target = asString(properties.TargetKeyId);
      const key = target === undefined ? undefined : iam.keys.find(target);
      if (alias && key) iam.keys.defineAlias(alias, key.arn);
      else problems.push(`${where(logicalId)}: alias ${alias ?? '(none)'} names no key of the templates`);
    }
    if (problems.length > 0) {
      throw new Error(`IAM policies the local account cannot evaluate:\n  ${problems.join('\n  ')}`);
    }
  }

  /** The composition's users get their managed policies once every stack is read. */
  async start(context: RuntimeContext): Promise<void> {
    this.users = Object.fromEntries(
      Object.keys(context.options.users ?? {}).map((user) => [user, context.identities.identity(user)]),
    );
    const problems: string[] = [];
    for (const [user, spec] of Object.entries(context.options.users ?? {})) {
      const { principal } = context.iam.credentials.user(user);
      for (const name of spec.managedPolicyNames ?? []) {
        const arn = this.managedByName.get(name);
        const policy = arn === undefined ? undefined : this.managedByArn.get(arn);
        if (policy) context.iam.account.attach(principal.arn, policy);
        else problems.push(`user ${user}: no AWS::IAM::ManagedPolicy is named ${name}`);
      }
    }
    if (problems.length > 0) throw new Error(`options.users: ${problems.join('; ')}`);
  }

  /** The composition's users are identities its tools sign with (target.json's identities). */
  describe(): TargetContribution {
    return Object.keys(this.users).length > 0 ? { identities: this.users } : {};
  }

  private managedPolicy(
    arn: string,
    compile: (where: string, kind: 'identity', document: unknown) => CompiledPolicy | undefined,
  ): CompiledPolicy | undefined {
    const customer = this.managedByArn.get(arn);
    if (customer) return customer;
    const aws = awsManagedPolicy(arn);
    if (!aws) return undefined;
    const compiled = compile(
      `AWS managed ${aws.arn.slice(aws.arn.lastIndexOf('/') + 1)}`,
      'identity',
      aws.document,
    );
    if (compiled) this.managedByArn.set(arn, compiled);
    return compiled;
  }
}
