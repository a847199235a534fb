/**
 * IAM for SNS, in one place beside the topics it guards (as ../sqs/queue-authorizer.ts is for
 * queues): every API request authenticated (SigV4, signing name `sns`) and authorized as
 * `sns:<Action>` on the topic (ListTopics on `*`) with the caller's identity policies and the
 * topic's policy (AWS::SNS::TopicPolicy), and a publish to a topic under a customer-managed key
 * needs the publisher's kms:GenerateDataKey and kms:Decrypt through SNS. A refusal is SNS's
 * AuthorizationError, HTTP 403 (https://docs.aws.amazon.com/sns/latest/api/CommonErrors.html).
 *
 * A topic without a TopicPolicy has SNS's default policy, which lets the account's own principals
 * in: played here as a policy naming the account (their identity policies decide), stricter than
 * AWS's `"AWS": "*"` with an `AWS:SourceOwner` condition only for a principal with no grant at all.
 * A service delivering to a topic (an EventBridge rule, a CloudWatch alarm) must be allowed by the
 * topic's TopicPolicy when it has one (with aws:SourceArn) and by the key's policy.
 */

import type { Verdict } from '../iam/authorizer';
import { type ReceivedRequest, verifySigV4 } from '../iam/identities';
import { type CompiledPolicy, compilePolicy } from '../iam/policy-document';
import type { Principal } from '../iam/principals';
import type { RuntimeIam } from '../iam/runtime-iam';
import { AwsApiError } from '../protocol/aws-api-error';

/** The actions SNS's default topic policy covers (the rest need an identity policy). */
const DEFAULT_POLICY_ACTIONS = [
  'SNS:GetTopicAttributes',
  'SNS:SetTopicAttributes',
  'SNS:AddPermission',
  'SNS:RemovePermission',
  'SNS:DeleteTopic',
  'SNS:Subscribe',
  'SNS:ListSubscriptionsByTopic',
  'SNS:Publish',
];
/** SNS's answers to a request it cannot authenticate, as the Query protocol gives them (403). */
const AUTHENTICATION_ERRORS: Readonly<Record<string, string>> = {
  missing: 'MissingAuthenticationToken',
  unknown: 'InvalidClientTokenId',
  token: 'InvalidClientTokenId',
  mismatch: 'SignatureDoesNotMatch',
  scope: 'SignatureDoesNotMatch',
  expired: 'SignatureDoesNotMatch',
};

/** What is asked of a topic: by a caller of the API, or by a service delivering to it. */
export interface TopicRequest {
  /** A service (or role) delivering on a resource's behalf, not a caller of the API. */
  readonly delivery: boolean;
  /** Request keys, e.g. a delivering service's aws:SourceArn and aws:SourceAccount. */
  readonly context?: Record<string, string>;
}

export class SnsTopicAuthorizer {
  /** Each topic's TopicPolicy, by ARN. */
  private readonly policies = new Map<string, CompiledPolicy>();
  /** Each topic's customer-managed key (KmsMasterKeyId), by ARN. */
  private readonly keys = new Map<string, string>();
  /** SNS's default policy of each topic without a TopicPolicy, made when first asked. */
  private readonly defaults = new Map<string, CompiledPolicy>();

  constructor(
    private readonly iam: RuntimeIam,
    private readonly region: string,
    private readonly accountId: string,
  ) {}

  /** The topic's AWS::SNS::TopicPolicy (the last one set wins, as on AWS). */
  setPolicy(topicArn: string, policy: CompiledPolicy): void {
    this.policies.set(topicArn, policy);
  }

  /** The topic's customer-managed key (KmsMasterKeyId). */
  setKey(topicArn: string, keyReference: string): void {
    this.keys.set(topicArn, keyReference);
  }

  /**
   * Authenticates and authorizes one request of the SNS API; throws the AwsApiError its caller gets.
   * The topic is the one the request names (a subscription's for Unsubscribe; `*` for ListTopics).
   */
  async authorizeRequest(
    action: string,
    parameters: Readonly<Record<string, unknown>>,
    received: ReceivedRequest,
  ): Promise<void> {
    const signed = await verifySigV4(received, this.iam.credentials, { region: this.region, service: 'sns' });
    if (!signed.ok) {
      throw new AwsApiError(AUTHENTICATION_ERRORS[signed.reason] ?? 'SignatureDoesNotMatch', signed.message, {
        statusCode: 403,
      });
    }
    const text = (name: string) => (typeof parameters[name] === 'string' ? (parameters[name] as string) : '');
    const subscription = text('SubscriptionArn');
    const topicArn =
      action === 'ListTopics'
        ? '*'
        : subscription
          ? subscription.slice(0, subscription.lastIndexOf(':'))
          : text('TopicArn') || text('TargetArn');
    const verdict = this.authorizeTopic(signed.identity.principal, `sns:${action}`, topicArn, {
      delivery: false,
    });
    if (!verdict.allowed) throw new AwsApiError('AuthorizationError', verdict.message, { statusCode: 403 });
  }

  /**
   * May `principal` do `action` on the topic? Its identity policies and the topic's policy (SNS's
   * default one when the topic has none; a service's delivery to such a topic is not refused by
   * it), then, for a publish, the topic's customer-managed key through SNS.
   */
  authorizeTopic(principal: Principal, action: string, topicArn: string, request: TopicRequest): Verdict {
    const explicit = this.policies.get(topicArn);
    const serviceDelivery = request.delivery && principal.kind === 'service';
    const resourcePolicy =
      explicit ?? (topicArn === '*' || serviceDelivery ? undefined : this.defaultPolicy(topicArn));
    const { authorizer, keys } = this.iam;
    const verdict =
      serviceDelivery && !explicit
        ? ({ allowed: true } as const)
        : authorizer.authorize({
            principal,
            action,
            resource: topicArn,
            ...(request.context ? { context: request.context } : {}),
            ...(resourcePolicy ? { resourcePolicy } : {}),
          });
    const key = this.keys.get(topicArn);
    if (!verdict.allowed || !key || action !== 'sns:Publish') return verdict;
    return keys.authorizeUse(authorizer, {
      principal,
      actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
      keyReference: key,
      viaService: 'sns',
      encryptionContext: { 'aws:sns:topicArn': topicArn },
      ...(request.context ? { context: request.context } : {}),
    });
  }

  private defaultPolicy(topicArn: string): CompiledPolicy {
    const known = this.defaults.get(topicArn);
    if (known) return known;
    const policy = compilePolicy(`default policy of ${topicArn}`, 'resource', {
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Principal: { AWS: `arn:aws:iam::${this.accountId}:root` },
          Action: DEFAULT_POLICY_ACTIONS,
          Resource: topicArn,
        },
      ],
    });
    this.defaults.set(topicArn, policy);
    return policy;
  }
}
