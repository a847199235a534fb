/**
 * SNS: topics (AWS::SNS::Topic, standard and FIFO, with inline subscriptions) and subscriptions
 * (AWS::SNS::Subscription, with filter policies, raw message delivery and dead-letter queues)
 * fanning out to queues and functions; deliveries to topic ARNs (EventBridge targets, pipes); and
 * the SNS API (Query protocol) for handlers, announced as AWS_ENDPOINT_URL_SNS.
 *
 * IAM: every API request is authenticated (SigV4, signing name `sns`) and authorized: `sns:<Action>`
 * on the topic (ListTopics on `*`) with the topic's policy (AWS::SNS::TopicPolicy), and a topic
 * under a customer-managed key needs the publisher's kms:GenerateDataKey and kms:Decrypt; a refusal
 * is SNS's AuthorizationError, HTTP 403 (https://docs.aws.amazon.com/sns/latest/api/CommonErrors.html).
 * A topic without a TopicPolicy has SNS's default policy, which lets the account's own principals
 * in: played here as a policy naming the account (their identity policies decide), stricter than
 * AWS's `"AWS": "*"` with an `AWS:SourceOwner` condition only for a principal with no grant at all.
 * A service delivering to a topic (an EventBridge rule, a CloudWatch alarm) must be allowed by the
 * topic's TopicPolicy when it has one (with aws:SourceArn) and by the key's policy. SNS delivers
 * to its subscribers as `sns.amazonaws.com` for the topic (aws:SourceArn): a queue's policy, or a
 * function's AWS::Lambda::Permission, must allow it, or the delivery fails (dead-letter queue).
 */
import { AwsApiError } from '../aws-json-server';
import { startAwsQueryServer } from '../aws-query-server';
import { accountOfArn } from '../iam/arn';
import type { Verdict } from '../iam/authorizer';
import { type CompiledPolicy, compilePolicy } from '../iam/policy-document';
import { PolicyDocumentError } from '../iam/policy-document-error';
import { type Principal, roleSessionPrincipal, servicePrincipal } from '../iam/principals';
import { verifySigV4 } from '../identities';
import type { ListenContext, Provisioner, RuntimeContext, StackContext } from '../provisioning';
import { LocalSns, readSubscriptionAttributes } from '../sns';
import { snsApiOperations } from '../sns/api';
import { arnName, asRecord } from './values';

const TOPIC = 'AWS::SNS::Topic';
const SUBSCRIPTION = 'AWS::SNS::Subscription';
const TOPIC_POLICY = 'AWS::SNS::TopicPolicy';
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

const isTrue = (value: unknown) => value === true || value === 'true';

export class SnsProvisioner implements Provisioner {
  readonly name = 'SNS';
  readonly resourceTypes = {
    runs: [TOPIC, SUBSCRIPTION, TOPIC_POLICY],
  };
  private sns: LocalSns | undefined;
  /** Each topic's TopicPolicy, by ARN. */
  private readonly policies = new Map<string, CompiledPolicy>();
  /** Each topic's customer-managed key (KmsMasterKeyId), by ARN. */
  private readonly keys = new Map<string, string>();

  private get topics(): LocalSns {
    if (!this.sns) throw new Error('SNS is not started yet');
    return this.sns;
  }

  /** Whether the app declares this topic (once provisioned). */
  hasTopic(topicArn: string): boolean {
    return this.topics.has(topicArn);
  }

  async listen(context: ListenContext): Promise<void> {
    const { meter } = context;
    const sns = new LocalSns(
      {
        sendToQueue: (queueArn, body, options) => context.deliveries.deliver(queueArn, body, options),
        invokeAsync: (functionArn, event, options) =>
          context.deliveries.deliver(functionArn, JSON.stringify(event), options),
        onProblem: (message) => context.problem(`SNS ${message}`),
        ...(meter && {
          onPublished: (topicArn: string, payloadBytes: number, publishedBy: string) =>
            meter.published(arnName(topicArn), payloadBytes, publishedBy),
        }),
      },
      context.region,
    );
    this.sns = sns;
    context.deliveries.register('sns', async (topicArn, message, options) => {
      const by = options.deliveredAs;
      if (by && sns.has(topicArn)) {
        const principal =
          by.kind === 'role' ? roleSessionPrincipal(by.roleArn, 'delivery') : servicePrincipal(by.service);
        const verdict = this.authorizeTopic(context, principal, 'sns:Publish', topicArn, {
          delivery: true,
          ...(by.kind === 'service' && {
            context: { 'aws:sourcearn': by.sourceArn, 'aws:sourceaccount': accountOfArn(by.sourceArn) ?? '' },
          }),
        });
        if (!verdict.allowed)
          throw new AwsApiError('AuthorizationError', verdict.message, { statusCode: 403 });
      }
      await sns.publish({
        topicArn,
        message,
        ...(options.deliveredBy ? { publishedBy: options.deliveredBy } : {}),
        ...(options.subject ? { subject: options.subject } : {}),
        ...(options.messageGroupId ? { messageGroupId: options.messageGroupId } : {}),
        ...(options.messageDeduplicationId ? { messageDeduplicationId: options.messageDeduplicationId } : {}),
      });
    });
    const server = await startAwsQueryServer('SNS', snsApiOperations(sns, { accountId: context.accountId }), {
      xmlNamespace: 'http://sns.amazonaws.com/doc/2010-03-31/',
      authorize: async (action, parameters, received) => {
        const signed = await verifySigV4(received, context.iam.credentials, {
          region: context.region,
          service: 'sns',
        });
        if (!signed.ok) {
          throw new AwsApiError(
            AUTHENTICATION_ERRORS[signed.reason] ?? 'SignatureDoesNotMatch',
            signed.message,
            {
              statusCode: 403,
            },
          );
        }
        const text = (name: string) =>
          typeof parameters[name] === 'string' ? (parameters[name] as string) : '';
        const subscription = text('SubscriptionArn');
        const topicArn =
          action === 'ListTopics'
            ? '*'
            : subscription
              ? subscription.slice(0, subscription.lastIndexOf(':'))
              : text('TopicArn') || text('TargetArn');
        const verdict = this.authorizeTopic(context, signed.identity.principal, `sns:${action}`, topicArn, {
          delivery: false,
        });
        if (!verdict.allowed)
          throw new AwsApiError('AuthorizationError', verdict.message, { statusCode: 403 });
      },
      onInternalError: (error) => context.problem(`SNS API: ${(error as Error).message}`),
    });
    context.stopWith(server, 'backend');
    context.endpoints.announce('SNS', server.endpoint);
  }

  async provision(context: StackContext): Promise<void> {
    for (const [logicalId] of context.ofType(TOPIC)) {
      const properties = context.resolver.properties(logicalId);
      const topicArn = String(context.resolver.context.ref(logicalId));
      context.meter?.describe('topics', arnName(topicArn), { stackName: context.stack.stackName, logicalId });
      if (typeof properties.KmsMasterKeyId === 'string') this.keys.set(topicArn, properties.KmsMasterKeyId);
      this.topics.addTopic(topicArn, {
        fifo: isTrue(properties.FifoTopic),
        contentBasedDeduplication: isTrue(properties.ContentBasedDeduplication),
      });
    }
  }

  async wire(context: StackContext): Promise<void> {
    for (const [logicalId] of context.ofType(TOPIC_POLICY)) {
      const properties = context.resolver.properties(logicalId);
      try {
        const policy = compilePolicy(
          `${context.stack.stackName}/${logicalId}`,
          'resource',
          properties.PolicyDocument,
        );
        for (const topicArn of Array.isArray(properties.Topics) ? properties.Topics.map(String) : []) {
          this.policies.set(topicArn, policy);
        }
      } catch (error) {
        if (!(error instanceof PolicyDocumentError)) throw error;
        throw new Error(`A topic policy the local account cannot evaluate: ${error.message}`);
      }
    }
    for (const [logicalId] of context.ofType(TOPIC)) {
      const topicArn = String(context.resolver.context.ref(logicalId));
      const inline = context.resolver.properties(logicalId).Subscription;
      for (const [index, subscription] of (Array.isArray(inline) ? inline : []).entries()) {
        this.subscribe(context, topicArn, `${logicalId}[${index}]`, asRecord(subscription));
      }
    }
    for (const [logicalId] of context.ofType(SUBSCRIPTION)) {
      const properties = context.resolver.properties(logicalId);
      this.subscribe(context, String(properties.TopicArn), logicalId, properties);
    }
  }

  /**
   * May `principal` do `action` on the topic? Its identity policies and the topic's policy (SNS's
   * default one when the topic has none: see the module comment; a service's delivery to such a
   * topic is not refused by it), then the topic's customer-managed key for a publish, through SNS.
   */
  authorizeTopic(
    context: RuntimeContext,
    principal: Principal,
    action: string,
    topicArn: string,
    request: { readonly delivery: boolean; readonly context?: Record<string, string> },
  ): Verdict {
    const explicit = this.policies.get(topicArn);
    const resourcePolicy =
      explicit ??
      (topicArn === '*' || (request.delivery && principal.kind === 'service')
        ? undefined
        : this.defaultPolicy(context, topicArn));
    const verdict =
      request.delivery && principal.kind === 'service' && !explicit
        ? ({ allowed: true } as const)
        : context.iam.authorizer.authorize({
            principal,
            action,
            resource: topicArn,
            ...(request.context ? { context: request.context } : {}),
            ...(resourcePolicy ? { resourcePolicy } : {}),
          });
    const key = this.keys.get(topicArn);
    if (!verdict.allowed || !key || action !== 'sns:Publish') return verdict;
    return context.iam.keys.authorizeUse(context.iam.authorizer, {
      principal,
      actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
      keyReference: key,
      viaService: 'sns',
      encryptionContext: { 'aws:sns:topicArn': topicArn },
      ...(request.context ? { context: request.context } : {}),
    });
  }

  private readonly defaults = new Map<string, CompiledPolicy>();

  /** SNS's default topic policy, as played locally (the module comment). */
  private defaultPolicy(context: RuntimeContext, topicArn: string): CompiledPolicy {
    const known = this.defaults.get(topicArn);
    if (known) return known;
    const policy = compilePolicy(`default policy of ${topicArn}`, 'resource', {
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Principal: { AWS: `arn:aws:iam::${context.accountId}:root` },
          Action: DEFAULT_POLICY_ACTIONS,
          Resource: topicArn,
        },
      ],
    });
    this.defaults.set(topicArn, policy);
    return policy;
  }

  private subscribe(
    context: StackContext,
    topicArn: string,
    logicalId: string,
    properties: Record<string, unknown>,
  ): void {
    try {
      const attributes = readSubscriptionAttributes(properties);
      const deadLetter = attributes.deadLetterTargetArn;
      if (deadLetter !== undefined && !context.deliveries.canDeliver(deadLetter)) {
        context.named(logicalId, SUBSCRIPTION, `dead-letter queue ${deadLetter} is not delivered to locally`);
      }
      this.topics.subscribe(topicArn, {
        subscriptionArn: `${topicArn}:${logicalId}`,
        protocol: String(properties.Protocol),
        endpoint: String(properties.Endpoint),
        ...attributes,
      });
    } catch (error) {
      if (!(error instanceof AwsApiError)) throw error;
      context.named(logicalId, SUBSCRIPTION, `not subscribed: ${error.message}`);
    }
  }
}
