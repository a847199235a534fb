/**
 * SQS: the queue backend (startSqsEmulator: the runtime's own SQS service, journaled under
 * `<dataDir>/sqs` when the runtime has a data directory) and one queue per AWS::SQS::Queue, with its
 * attributes and redrive policy; deliveries to queue ARNs (EventBridge targets, SNS subscriptions).
 *
 * AWS::SQS::QueuePolicy sets each of its queues' `Policy` attribute, as on AWS. Every request is
 * authenticated (SigV4, signing name `sqs`) and authorized by the account's IAM (../sqs/queue-authorizer.ts):
 * the caller's identity policies and the queue's policy, and for a queue under a customer-managed
 * key the key's use (kms:GenerateDataKey and kms:Decrypt to send, kms:Decrypt to receive); a
 * refusal is SQS's AccessDenied (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/CommonErrors.html).
 * A delivery (an SNS subscription, an EventBridge target, a pipe) is authorized as its principal:
 * a service for a resource (aws:SourceArn), which only the queue's policy can allow, or a role.
 * Every IAM user of the local account a policy names
 * (`arn:aws:iam::<account>:user/<name>`, as a principal or in an `aws:PrincipalArn` condition)
 * becomes a local identity with access key id `<name>`, listed in the target description, so a
 * client can sign as the principal the policy lets through. What of a policy is not evaluated is
 * named at start.
 */

import { join } from 'node:path';
import {
  CreateQueueCommand,
  type MessageAttributeValue,
  QueueNameExists,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { holdDuringCalls } from '../clock';
import { type RunningSqsService, startSqsEmulator } from '../emulators';
import { accountOfArn } from '../iam/arn';
import type { Verdict } from '../iam/authorizer';
import type { SigningCredentials } from '../iam/credential-registry';
import type { LocalIdentity } from '../iam/identities';
import { compilePolicy, type RequestContext } from '../iam/policy-document';
import { PolicyDocumentError } from '../iam/policy-document-error';
import { type Principal, roleSessionPrincipal, servicePrincipal } from '../iam/principals';
import type {
  DeliveryOptions,
  ListenContext,
  Provisioner,
  RuntimeContext,
  StackContext,
  TargetContribution,
} from '../provisioning';
import { messagePayloadBytes, type QueueFigures, type QueueSecurity } from '../sqs';
import { SqsAuthErrors } from '../sqs/errors';
import { asRecord } from './values';

const QUEUE = 'AWS::SQS::Queue';
const QUEUE_POLICY = 'AWS::SQS::QueuePolicy';
/** A user name that can also be an access key id (../iam/identities.ts). */
const LOCAL_USER_NAME = /^[A-Za-z0-9_+=,.@-]{1,64}$/;

const QUEUE_ATTRIBUTES = [
  'DelaySeconds',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'VisibilityTimeout',
  'FifoQueue',
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'FifoThroughputLimit',
] as const;

export class SqsProvisioner implements Provisioner {
  readonly name = 'SQS';
  readonly resourceTypes = { runs: [QUEUE, QUEUE_POLICY] };
  private sqs: SQSClient | undefined;
  private service: RunningSqsService | undefined;
  private readonly queueUrlsByArn = new Map<string, string>();
  /** The identities queue policies name, by user name (= access key id). */
  private readonly identities = new Map<string, LocalIdentity>();

  private sqsEndpoint: string | undefined;
  private runtime: RuntimeContext | undefined;

  /** A client for the backend (once it listens). */
  get client(): SQSClient {
    if (!this.sqs) throw new Error('SQS is not listening yet');
    return this.sqs;
  }

  /**
   * A client of the SQS API signing with `credentials` (a state machine's role session): its calls
   * are authorized as that caller's. Destroyed with the runtime.
   */
  clientFor(credentials: SigningCredentials): SQSClient {
    if (!this.sqsEndpoint || !this.runtime) throw new Error('SQS is not listening yet');
    const client = holdDuringCalls(
      new SQSClient({
        region: this.runtime.region,
        credentials: { ...credentials },
        endpoint: this.sqsEndpoint,
      }),
      this.runtime.clock,
    );
    this.runtime.onStop(() => client.destroy());
    return client;
  }

  /**
   * May `principal` do `action` on the queue? As the SQS service asks it of its own requests
   * (../sqs/queue-authorizer.ts): for deliveries the runtime makes and mappings it starts.
   */
  authorizeQueue(
    principal: Principal,
    action: string,
    queueArn: string,
    queue: QueueSecurity & { readonly context?: RequestContext },
  ): Verdict {
    if (!this.service) throw new Error('SQS is not listening yet');
    return this.service.queueAuthorizer.authorizeQueue(principal, action, queueArn, queue);
  }

  /** A queue's policy and customer-managed key, for IAM (empty for a queue that does not exist). */
  queueSecurity(queueArn: string): QueueSecurity {
    return this.service?.queueSecurity(queueArn) ?? {};
  }

  /** Every queue's figures now, for CloudWatch's AWS/SQS metrics (read-only). */
  queueFigures(now: number): QueueFigures[] {
    return this.service?.queueFigures(now) ?? [];
  }

  hasQueue(queueArn: string): boolean {
    return this.queueUrlsByArn.has(queueArn);
  }

  queueUrl(queueArn: string): string {
    const url = this.queueUrlsByArn.get(queueArn);
    if (!url) throw new Error(`No local queue with ARN ${queueArn}`);
    return url;
  }

  /**
   * Where a delivery to a queue ARN goes: the app's queue, or any other queue of the service by the
   * URL the service gives it (a consumer may create its own queue at run time and subscribe it to a
   * topic or bus); the service answers QueueDoesNotExist for a queue that is not there.
   */
  private queueUrlForDelivery(queueArn: string, endpoint: string): string {
    const known = this.queueUrlsByArn.get(queueArn);
    if (known) return known;
    const [, , service, , accountId, queueName] = queueArn.split(':');
    if (service !== 'sqs' || !accountId || !queueName) throw new Error(`${queueArn} is not an SQS queue ARN`);
    return `${endpoint}/${accountId}/${queueName}`;
  }

  async listen(context: ListenContext): Promise<void> {
    const { dataDir } = context.options;
    const { meter } = context;
    const server = await startSqsEmulator({
      region: context.region,
      accountId: context.accountId,
      ...(dataDir ? { dataDirectory: join(dataDir, 'sqs') } : {}),
      iam: context.iam,
      clock: context.clock,
      ...(meter && {
        onRequest: ({ queueName, action, payloadBytes, messagesReceived }) =>
          meter.sqsRequest(queueName, action, payloadBytes, messagesReceived),
      }),
    });
    this.service = server;
    context.stopWith(server, 'backend');
    context.endpoints.announce('SQS', server.endpoint);
    const client = holdDuringCalls(
      new SQSClient({ ...context.clientConfig(), endpoint: server.endpoint }),
      context.clock,
    );
    this.sqs = client;
    this.sqsEndpoint = server.endpoint;
    this.runtime = context;
    context.onStop(() => client.destroy());
    context.deliveries.register('sqs', async (queueArn, message, options) => {
      const by = options.deliveredAs;
      const security = server.queueSecurity(queueArn);
      // A queue that does not exist is answered by SendMessage itself (QueueDoesNotExist).
      if (by && security) {
        const principal =
          by.kind === 'role' ? roleSessionPrincipal(by.roleArn, 'delivery') : servicePrincipal(by.service);
        const verdict = this.authorizeQueue(principal, 'sqs:SendMessage', queueArn, {
          ...security,
          ...(by.kind === 'service' && {
            context: { 'aws:sourcearn': by.sourceArn, 'aws:sourceaccount': accountOfArn(by.sourceArn) ?? '' },
          }),
        });
        if (!verdict.allowed) throw SqsAuthErrors.accessDeniedBy(verdict.message);
      }
      const queueUrl = this.queueUrlForDelivery(queueArn, server.endpoint);
      await client.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: message,
          ...(options.messageGroupId ? { MessageGroupId: options.messageGroupId } : {}),
          ...(options.messageDeduplicationId
            ? { MessageDeduplicationId: options.messageDeduplicationId }
            : {}),
          ...(options.messageAttributes
            ? { MessageAttributes: sqsMessageAttributes(options.messageAttributes) }
            : {}),
        }),
      );
      meter?.sqsDelivered(
        queueUrl.slice(queueUrl.lastIndexOf('/') + 1),
        messagePayloadBytes({ MessageBody: message, MessageAttributes: options.messageAttributes }),
        options.deliveredBy ?? 'unnamed delivery',
      );
    });
    if (dataDir) context.log(`data: SQS queues and messages persist in ${join(dataDir, 'sqs')}`);
  }

  async provision(context: StackContext): Promise<void> {
    // As CloudFormation: the stack's deploying identity creates and changes its queues (a queue
    // policy may deny administration to every other principal).
    const deployer = this.clientFor(context.deployer);
    // Dead-letter queues first: a redrive policy must name an existing queue.
    const queues = [...context.ofType(QUEUE)].sort(
      ([, left], [, right]) =>
        Number(left.Properties?.RedrivePolicy !== undefined) -
        Number(right.Properties?.RedrivePolicy !== undefined),
    );
    for (const [logicalId] of queues) {
      this.queueUrlsByArn.set(
        String(context.resolver.context.getAtt(logicalId, 'Arn')),
        await this.createQueue(context, deployer, logicalId),
      );
    }
    for (const [logicalId] of context.ofType(QUEUE_POLICY))
      await this.applyPolicy(context, deployer, logicalId);
  }

  /** The identities the queue policies name (see the module comment). */
  describe(): TargetContribution {
    return this.identities.size > 0 ? { identities: Object.fromEntries(this.identities) } : {};
  }

  /**
   * Sets the policy on each of its queues (a later policy on the same queue replaces it, as on AWS),
   * names what of it does not apply locally, and makes an identity of each local user it names.
   */
  private async applyPolicy(context: StackContext, deployer: SQSClient, logicalId: string): Promise<void> {
    const properties = context.resolver.properties(logicalId);
    const document = asRecord(properties.PolicyDocument);
    const queueUrls = Array.isArray(properties.Queues) ? properties.Queues.map(String) : [];
    if (Object.keys(document).length === 0 || queueUrls.length === 0) {
      context.named(logicalId, QUEUE_POLICY, 'no PolicyDocument or Queues: nothing is set');
      return;
    }
    const policy = JSON.stringify(document);
    // What the evaluator cannot evaluate as AWS would fails the start, naming it (../iam/policy-document.ts).
    try {
      compilePolicy(`${context.stack.stackName}/${logicalId}`, 'resource', document);
    } catch (error) {
      if (!(error instanceof PolicyDocumentError)) throw error;
      throw new Error(`A queue policy the local account cannot evaluate: ${error.message}`);
    }
    for (const QueueUrl of queueUrls) {
      await deployer.send(new SetQueueAttributesCommand({ QueueUrl, Attributes: { Policy: policy } }));
    }
    for (const name of localUsersNamedBy(document, context.accountId)) {
      this.identities.set(name, context.identities.identity(name));
    }
  }

  private async createQueue(context: StackContext, deployer: SQSClient, logicalId: string): Promise<string> {
    const { resolver } = context;
    const properties = resolver.properties(logicalId);
    const attributes: Record<string, string> = {};
    for (const name of QUEUE_ATTRIBUTES) {
      if (properties[name] !== undefined) attributes[name] = String(properties[name]);
    }
    if (properties.RedrivePolicy !== undefined) {
      attributes.RedrivePolicy =
        typeof properties.RedrivePolicy === 'string'
          ? properties.RedrivePolicy
          : JSON.stringify(properties.RedrivePolicy);
    }
    const queueName = resolver.physicalName(logicalId);
    context.meter?.describe('queues', queueName, { stackName: context.stack.stackName, logicalId });
    const expected = String(resolver.context.ref(logicalId));
    let QueueUrl: string | undefined;
    try {
      ({ QueueUrl } = await deployer.send(
        new CreateQueueCommand({ QueueName: queueName, Attributes: attributes }),
      ));
    } catch (error) {
      // A persisted data directory holds the queue from an earlier run whose template differed:
      // update it in place, as a stack update does (FifoQueue cannot change; the name says which).
      if (!(error instanceof QueueNameExists)) throw error;
      const { FifoQueue: _fixed, ...changeable } = attributes;
      await deployer.send(
        new SetQueueAttributesCommand({
          QueueUrl: expected,
          // An empty RedrivePolicy removes one the earlier template had; the template's queue
          // policies are set again once every queue exists.
          Attributes: { RedrivePolicy: '', Policy: '', ...changeable },
        }),
      );
      QueueUrl = expected;
    }
    if (QueueUrl !== expected) {
      throw new Error(
        `Queue ${logicalId}: the emulator answered URL ${QueueUrl}, the runtime expected ${expected}`,
      );
    }
    return expected;
  }
}

/** Delivery attributes as the SQS client takes them (binary values as bytes, not base64). */
function sqsMessageAttributes(
  attributes: NonNullable<DeliveryOptions['messageAttributes']>,
): Record<string, MessageAttributeValue> {
  return Object.fromEntries(
    Object.entries(attributes).map(([name, { DataType, StringValue, BinaryValue }]) => [
      name,
      BinaryValue !== undefined
        ? { DataType, BinaryValue: Buffer.from(BinaryValue, 'base64') }
        : { DataType, StringValue },
    ]),
  );
}

/**
 * The IAM users of the local account a policy names, as principals or as `aws:PrincipalArn`
 * condition values (wildcards name no one in particular).
 */
export function localUsersNamedBy(document: Readonly<Record<string, unknown>>, accountId: string): string[] {
  const prefix = `arn:aws:iam::${accountId}:user/`;
  const names = new Set<string>();
  const consider = (value: unknown) => {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item !== 'string' || !item.startsWith(prefix)) continue;
      const name = item.slice(prefix.length);
      if (LOCAL_USER_NAME.test(name) && !/[*?]/.test(name)) names.add(name);
    }
  };
  const statements = Array.isArray(document.Statement) ? document.Statement : [document.Statement];
  for (const statement of statements) {
    const fields = asRecord(statement);
    consider(asRecord(fields.Principal).AWS);
    for (const block of Object.values(asRecord(fields.Condition))) {
      for (const [key, value] of Object.entries(asRecord(block))) {
        if (key.toLowerCase() === 'aws:principalarn') consider(value);
      }
    }
  }
  return [...names].sort();
}
