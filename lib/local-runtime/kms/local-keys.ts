/**
 * The local account's KMS keys: no data is encrypted locally, but who may use a key is decided as
 * KMS decides it, because on AWS a table, queue or topic encrypted with a customer-managed key is
 * unusable to a caller the key does not admit. Each AWS::KMS::Key keeps its key policy; a service
 * that stores data under a key (DynamoDB, SQS, SNS) asks `authorizeUse` on the caller's behalf, with
 * `kms:ViaService` naming itself, as AWS services call KMS with the caller's credentials
 * (https://docs.aws.amazon.com/kms/latest/developerguide/conditions-kms.html#conditions-kms-via-service).
 *
 * The key policy decides (https://docs.aws.amazon.com/kms/latest/developerguide/key-policies.html):
 * it allows the caller itself, or it allows the account (the default key policy's "Enable IAM
 * user permissions" statement), which lets the caller's identity policies allow. AWS managed keys
 * (`alias/aws/<service>`) admit every principal of the account through their service: their key
 * policies say so, and they are not checked.
 */
import type { Authorizer, Verdict } from '../iam/authorizer';
import type { CompiledPolicy, RequestContext } from '../iam/policy-document';
import type { Principal } from '../iam/principals';

export interface LocalKey {
  readonly arn: string;
  readonly keyId: string;
  readonly policy: CompiledPolicy;
  /** `<stack>/<logical id>`. */
  readonly declaredAt: string;
}

export interface KeyUse {
  readonly principal: Principal;
  /** `kms:Decrypt`, `kms:GenerateDataKey`... each must be allowed. */
  readonly actions: readonly string[];
  /** The key as the resource names it: ARN, key id, alias name or alias ARN. */
  readonly keyReference: string;
  /** The service using the key on the principal's behalf (`dynamodb`, `sqs`, `sns`). */
  readonly viaService: string;
  /** What the service puts in the encryption context (`aws:sqs:arn` -> the queue's ARN...). */
  readonly encryptionContext?: Readonly<Record<string, string>>;
  /** Service principals: aws:SourceArn and aws:SourceAccount of the delivery. */
  readonly context?: RequestContext;
}

export class LocalKeys {
  private readonly byArn = new Map<string, LocalKey>();
  private readonly aliases = new Map<string, string>();

  constructor(
    private readonly region: string,
    private readonly accountId: string,
  ) {}

  define(key: LocalKey): void {
    this.byArn.set(key.arn, key);
  }

  /** `alias/<name>` names the key `targetKeyArn` (AWS::KMS::Alias). */
  defineAlias(aliasName: string, targetKeyArn: string): void {
    this.aliases.set(aliasName, targetKeyArn);
  }

  /** The key a reference names, if the account has it. */
  find(reference: string): LocalKey | undefined {
    const direct = this.byArn.get(reference);
    if (direct) return direct;
    const aliasName = reference.startsWith('arn:')
      ? reference.replace(/^arn:[^:]*:kms:[^:]*:\d*:/, '')
      : reference;
    const target = this.aliases.get(aliasName);
    if (target) return this.byArn.get(target);
    return [...this.byArn.values()].find((key) => key.keyId === reference);
  }

  /** An AWS managed key (`alias/aws/<service>`, by name or ARN): usable through its service by the account. */
  static isAwsManaged(reference: string): boolean {
    return /(^|:)alias\/aws\//.test(reference);
  }

  /** Whether the principal may use the key for every action, asked through `viaService`. */
  authorizeUse(authorizer: Authorizer, use: KeyUse): Verdict {
    if (LocalKeys.isAwsManaged(use.keyReference)) return { allowed: true };
    const key = this.find(use.keyReference);
    if (!key) {
      return {
        allowed: false,
        reason: 'no-resource-allow',
        message: `Key '${use.keyReference}' does not exist in the local account (no AWS::KMS::Key declares it)`,
      };
    }
    const context: Record<string, string | readonly string[]> = { 'kms:calleraccount': this.accountId };
    if (use.principal.kind !== 'service' && use.principal.kind !== 'anonymous') {
      context['kms:viaservice'] = `${use.viaService}.${this.region}.amazonaws.com`;
      context['aws:viaawsservice'] = 'true';
      context['aws:calledvia'] = [`${use.viaService}.amazonaws.com`];
    }
    const pairs = Object.entries(use.encryptionContext ?? {});
    for (const [name, value] of pairs) context[`kms:encryptioncontext:${name.toLowerCase()}`] = value;
    if (pairs.length > 0) context['kms:encryptioncontextkeys'] = pairs.map(([name]) => name);
    return authorizer.authorizeAll(
      use.actions.map((action) => ({
        principal: use.principal,
        action,
        resource: key.arn,
        context: { ...context, ...use.context },
        resourcePolicy: key.policy,
        resourcePolicyRequired: true,
      })),
    );
  }
}
