/**
 * SNS: topics (AWS::SNS::Topic, standard and FIFO, with inline subscriptions) and subscriptions
 * (AWS::SNS::Subscription, with filter policies, raw message delivery and dead-letter queues)
 * fanning out to queues and functions; deliveries to topic ARNs (EventBridge targets, pipes); and
 * the SNS API (Query protocol) for handlers, announced as AWS_ENDPOINT_URL_SNS.
 *
 * IAM: every API request is authenticated and authorized, and every delivery to a topic, by
 * ../sns/topic-authorizer.ts (the topic's policy, SNS's default one, the topic's key). SNS delivers
 * to its subscribers as `sns.amazonaws.com` for the topic (aws:SourceArn): a queue's policy, or a
 * function's AWS::Lambda::Permission, must allow it, or the delivery fails (dead-letter queue).
 */

import { accountOfArn } from '../iam/arn';
import { compilePolicy } from '../iam/policy-document';
import { PolicyDocumentError } from '../iam/policy-document-error';
import { roleSessionPrincipal, servicePrincipal } from '../iam/principals';
import { AwsApiError } from '../protocol/aws-api-error';
import { startAwsQueryServer } from '../protocol/aws-query-server';
import type { ListenContext, Provisioner, StackContext } from '../provisioning';
import { LocalSns, readSubscriptionAttributes, SnsTopicAuthorizer } from '../sns';
import { snsApiOperations } from '../sns/api';
import { arnName, asRecord } from './values';

const TOPIC = 'AWS::SNS::Topic';
const SUBSCRIPTION = 'AWS::SNS::Subscription';
const TOPIC_POLICY = 'AWS::SNS::TopicPolicy';
const isTrue = (value: unknown) => value === true || value === 'true';

export class SnsProvisioner implements Provisioner {
  readonly name = 'SNS';
  readonly resourceTypes = {
    runs: [TOPIC, SUBSCRIPTION, TOPIC_POLICY],
  };
  private sns: LocalSns | undefined;
  private authorizer: SnsTopicAuthorizer | undefined;

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
        whileWaiting: async (wait) => {
          const parked = context.clock.park();
          try {
            await wait();
          } finally {
            parked.resume();
          }
        },
        ...(meter && {
          onPublished: (topicArn: string, payloadBytes: number, publishedBy: string) =>
            meter.published(arnName(topicArn), payloadBytes, publishedBy),
        }),
      },
      context.region,
    );
    this.sns = sns;
    const authorizer = new SnsTopicAuthorizer(context.iam, context.region, context.accountId);
    this.authorizer = authorizer;
    context.deliveries.register('sns', async (topicArn, message, options) => {
      const by = options.deliveredAs;
      if (by && sns.has(topicArn)) {
        const principal =
          by.kind === 'role' ? roleSessionPrincipal(by.roleArn, 'delivery') : servicePrincipal(by.service);
        const verdict = authorizer.authorizeTopic(principal, 'sns:Publish', topicArn, {
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
      clock: context.clock,
      authorize: (action, parameters, received) => authorizer.authorizeRequest(action, parameters, received),
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
      if (typeof properties.KmsMasterKeyId === 'string')
        this.topicAuthorizer.setKey(topicArn, properties.KmsMasterKeyId);
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
          this.topicAuthorizer.setPolicy(topicArn, policy);
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

  private get topicAuthorizer(): SnsTopicAuthorizer {
    if (!this.authorizer) throw new Error('SNS is not started yet');
    return this.authorizer;
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
