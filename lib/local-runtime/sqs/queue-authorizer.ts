/**
 * IAM for the SQS service, one home for the runtime's and a standalone service's: every request
 * authenticated (SigV4, signing name `sqs`) against the account's credentials and authorized with
 * the caller's identity policies and the queue's policy (its `Policy` attribute, a resource policy
 * for the real evaluator, ../iam), and for a queue under a customer-managed key the key's use
 * through SQS (kms:GenerateDataKey and kms:Decrypt to send, kms:Decrypt to receive,
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-key-management.html).
 * A refusal is SQS's error (./errors.ts: AccessDenied, 403; KmsAccessDenied for the key). A service delivering for a resource
 * (SNS for its topic) is a service principal, which only the queue's policy can allow.
 */
import type { Verdict } from '../iam/authorizer';
import { type ReceivedRequest, verifySigV4 } from '../iam/identities';
import { type CompiledPolicy, compilePolicy, type RequestContext } from '../iam/policy-document';
import { PolicyDocumentError } from '../iam/policy-document-error';
import type { Principal } from '../iam/principals';
import type { RuntimeIam } from '../iam/runtime-iam';
import { SqsAuthErrors, SqsErrors } from './errors';

/** What IAM reads of a queue (empty for a queue that does not exist). */
export interface QueueSecurity {
  /** The queue's policy (its `Policy` attribute), if it has one. */
  readonly policy?: string;
  /** The queue's customer-managed key (`KmsMasterKeyId`), if any. */
  readonly kmsMasterKeyId?: string;
}

/** What the account's IAM is asked of one request. */
export interface SqsAuthorization extends QueueSecurity {
  /** `sqs:<Action>` (a batch is authorized as its single action). */
  readonly action: string;
  /** The queue's ARN (for a queue that does not exist, the ARN it would have); `*` for ListQueues. */
  readonly queueArn: string;
  readonly received: ReceivedRequest;
}

/**
 * The IAM action of each SQS operation: a batch is authorized as its single action
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonsqs.html).
 */
export const SQS_ACTION_OF_OPERATION: Readonly<Record<string, string>> = {
  CreateQueue: 'sqs:CreateQueue',
  ListQueues: 'sqs:ListQueues',
  GetQueueUrl: 'sqs:GetQueueUrl',
  DeleteQueue: 'sqs:DeleteQueue',
  GetQueueAttributes: 'sqs:GetQueueAttributes',
  SetQueueAttributes: 'sqs:SetQueueAttributes',
  SendMessage: 'sqs:SendMessage',
  SendMessageBatch: 'sqs:SendMessage',
  ReceiveMessage: 'sqs:ReceiveMessage',
  DeleteMessage: 'sqs:DeleteMessage',
  DeleteMessageBatch: 'sqs:DeleteMessage',
  ChangeMessageVisibility: 'sqs:ChangeMessageVisibility',
  ChangeMessageVisibilityBatch: 'sqs:ChangeMessageVisibility',
  PurgeQueue: 'sqs:PurgeQueue',
  AddPermission: 'sqs:AddPermission',
  RemovePermission: 'sqs:RemovePermission',
  ListDeadLetterSourceQueues: 'sqs:ListDeadLetterSourceQueues',
  TagQueue: 'sqs:TagQueue',
  UntagQueue: 'sqs:UntagQueue',
  ListQueueTags: 'sqs:ListQueueTags',
};

export class SqsQueueAuthorizer {
  /** Queue policies compiled for the evaluator, by text. */
  private readonly policies = new Map<string, CompiledPolicy>();

  constructor(
    private readonly iam: RuntimeIam,
    private readonly region: string,
  ) {}

  /** Authenticates and authorizes one request of the SQS API; throws the SqsError its caller gets. */
  async authorizeRequest(request: SqsAuthorization): Promise<void> {
    const signed = await verifySigV4(request.received, this.iam.credentials, {
      region: this.region,
      service: 'sqs',
    });
    if (!signed.ok) {
      if (signed.reason === 'missing') throw SqsAuthErrors.missingAuthenticationToken();
      if (signed.reason === 'unknown' || signed.reason === 'token')
        throw SqsAuthErrors.invalidClientTokenId();
      throw SqsAuthErrors.signatureDoesNotMatch(signed.message);
    }
    const { principal } = signed.identity;
    const access = this.authorizeAccess(principal, request.action, request.queueArn, request);
    if (!access.allowed) throw SqsAuthErrors.accessDeniedBy(access.message);
    const keyUse = this.authorizeKeyUse(principal, request.action, request.queueArn, request);
    if (!keyUse.allowed) throw SqsErrors.kmsAccessDenied(keyUse.message);
  }

  /**
   * May `principal` do `action` on the queue? Its identity policies or the queue's policy (a service
   * principal: the policy only), then the queue's customer-managed key, through SQS. `context` adds
   * request keys (a delivering service's aws:SourceArn and aws:SourceAccount).
   */
  authorizeQueue(
    principal: Principal,
    action: string,
    queueArn: string,
    queue: QueueSecurity & { readonly context?: RequestContext },
  ): Verdict {
    const access = this.authorizeAccess(principal, action, queueArn, queue);
    return access.allowed ? this.authorizeKeyUse(principal, action, queueArn, queue) : access;
  }

  /** The caller's identity policies and the queue's policy. */
  private authorizeAccess(
    principal: Principal,
    action: string,
    queueArn: string,
    queue: QueueSecurity & { readonly context?: RequestContext },
  ): Verdict {
    let resourcePolicy: CompiledPolicy | undefined;
    if (queue.policy) {
      try {
        resourcePolicy = this.compiledPolicy(queueArn, queue.policy);
      } catch (error) {
        if (!(error instanceof PolicyDocumentError || error instanceof SyntaxError)) throw error;
        return { allowed: false, reason: 'no-resource-allow', message: error.message };
      }
    }
    return this.iam.authorizer.authorize({
      principal,
      action,
      resource: queueArn,
      ...(queue.context ? { context: queue.context } : {}),
      ...(resourcePolicy ? { resourcePolicy } : {}),
    });
  }

  /** A customer-managed key's use through SQS: to send, to receive; nothing else uses the key. */
  private authorizeKeyUse(
    principal: Principal,
    action: string,
    queueArn: string,
    queue: QueueSecurity,
  ): Verdict {
    const keyActions =
      action === 'sqs:SendMessage'
        ? ['kms:GenerateDataKey', 'kms:Decrypt']
        : action === 'sqs:ReceiveMessage'
          ? ['kms:Decrypt']
          : [];
    if (!queue.kmsMasterKeyId || keyActions.length === 0) return { allowed: true };
    const { authorizer, keys } = this.iam;
    return keys.authorizeUse(authorizer, {
      principal,
      actions: keyActions,
      keyReference: queue.kmsMasterKeyId,
      viaService: 'sqs',
      encryptionContext: { 'aws:sqs:arn': queueArn },
    });
  }

  /** Why a policy text cannot be evaluated (not JSON, or what the evaluator does not know), if it cannot. */
  policyProblem(text: string): string | undefined {
    try {
      compilePolicy('queue policy', 'resource', JSON.parse(text) as unknown);
      return undefined;
    } catch (error) {
      if (error instanceof PolicyDocumentError || error instanceof SyntaxError) return error.message;
      throw error;
    }
  }

  /** The queue's policy for the evaluator, compiled once per text. */
  private compiledPolicy(queueArn: string, text: string): CompiledPolicy {
    const cached = this.policies.get(text);
    if (cached) return cached;
    const compiled = compilePolicy(`policy of ${queueArn}`, 'resource', JSON.parse(text) as unknown);
    this.policies.set(text, compiled);
    return compiled;
  }
}
