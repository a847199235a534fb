/**
 * The SQS service of the local runtime, its wire API: the operations the AWS SDK v3 and the AWS CLI
 * send over the JSON protocol, each authorized on the queue it names, then run: the queue operations
 * here, the message operations in message-operations.ts, every change of state committed to the
 * store (queue-store.ts), which journals it when persisted so a restart replays what happened.
 *
 * IAM: every request is authenticated and authorized by the account's IAM before it runs
 * (./queue-authorizer.ts): the caller's identity policies, the queue's `Policy` attribute as its
 * resource policy, and the use of its customer-managed key.
 */
import type {
  AddPermissionRequest,
  ChangeMessageVisibilityBatchRequest,
  ChangeMessageVisibilityBatchResult,
  ChangeMessageVisibilityRequest,
  CreateQueueRequest,
  CreateQueueResult,
  DeleteMessageBatchRequest,
  DeleteMessageBatchResult,
  DeleteMessageRequest,
  DeleteQueueRequest,
  GetQueueAttributesRequest,
  GetQueueAttributesResult,
  GetQueueUrlRequest,
  GetQueueUrlResult,
  ListDeadLetterSourceQueuesRequest,
  ListDeadLetterSourceQueuesResult,
  ListQueuesRequest,
  ListQueuesResult,
  ListQueueTagsRequest,
  ListQueueTagsResult,
  PurgeQueueRequest,
  ReceiveMessageRequest,
  ReceiveMessageResult,
  RemovePermissionRequest,
  SendMessageBatchRequest,
  SendMessageBatchResult,
  SendMessageRequest,
  SendMessageResult,
  SetQueueAttributesRequest,
  TagQueueRequest,
  UntagQueueRequest,
} from '@aws-sdk/client-sqs';
import { type RuntimeClock, WallClock } from '../clock';
import type { RuntimeIam } from '../iam/runtime-iam';
import { type AwsJsonOperation, typedOperation, type WireRequest } from '../protocol/aws-json-server';
import { SqsErrors } from './errors';
import { type QueueLookup, SqsMessageOperations } from './message-operations';
import { Queue, queueKey } from './queue';
import {
  ALL_ATTRIBUTE_NAMES,
  initialAttributes,
  isFifoName,
  normalizeAttributes,
  parseRedrivePolicy,
  validateQueueName,
} from './queue-attributes';
import { type QueueSecurity, SQS_ACTION_OF_OPERATION, SqsQueueAuthorizer } from './queue-authorizer';
import { policyWithoutPermission, policyWithPermission } from './queue-permissions';
import { type QueueFigures, SqsQueueStore } from './queue-store';
import { type Body, integerParameter, messagePayloadBytes, stringList } from './request-values';

export interface SqsServiceOptions {
  readonly region: string;
  /** The account queues are created in (the caller's); requests may name any account in a queue URL. */
  readonly accountId: string;
  /** Keep queues and messages here across restarts (a journal). @default - in memory */
  readonly dataDirectory?: string;
  /** The account's IAM (the runtime's, or a test account's): authenticates and authorizes every request. */
  readonly iam: RuntimeIam;
  /** Told of every call on a queue that succeeded (the runtime's metering). @default - not told */
  readonly onRequest?: (request: SqsRequestRecord) => void;
  /** Delays, visibility timeouts, retention and long polls run on it. @default - the wall clock */
  readonly clock?: RuntimeClock;
}

/** One successful call on a queue, as metering counts it. */
export interface SqsRequestRecord {
  readonly action: string;
  readonly queueName: string;
  /** Message bodies and message attributes sent or received (what AWS bills per 64 KB chunk). */
  readonly payloadBytes: number;
  /** ReceiveMessage only: how many messages it returned. */
  readonly messagesReceived?: number;
}

/** The message payload of one call: what it sent, or what a receive returned. */
function requestPayloadBytes(action: string, body: Body, result: Body): number {
  const sum = (messages: unknown) =>
    Array.isArray(messages)
      ? messages.reduce((total: number, item) => total + messagePayloadBytes(item), 0)
      : 0;
  if (action === 'SendMessage') return messagePayloadBytes(body);
  if (action === 'SendMessageBatch') return sum(body.Entries);
  if (action === 'ReceiveMessage') return sum(result.Messages);
  return 0;
}

const PURGE_INTERVAL_MILLIS = 60_000;

export { messagePayloadBytes } from './request-values';

export class SqsService implements QueueLookup {
  private endpoint = 'http://127.0.0.1';
  private readonly store: SqsQueueStore;
  private readonly messages: SqsMessageOperations;
  private readonly authorizer: SqsQueueAuthorizer;
  private readonly clock: RuntimeClock;

  constructor(private readonly options: SqsServiceOptions) {
    this.authorizer = new SqsQueueAuthorizer(options.iam, options.region);
    this.clock = options.clock ?? new WallClock();
    this.store = new SqsQueueStore(options.dataDirectory, this.clock);
    this.messages = new SqsMessageOperations(this.store, this, options.accountId, this.clock);
  }

  /** The base URL queue URLs start with (known once the server listens). */
  setEndpoint(endpoint: string): void {
    this.endpoint = endpoint;
  }

  /** A queue's policy and customer-managed key (what IAM reads of it), if the queue exists. */
  queueSecurity(queueArn: string): QueueSecurity | undefined {
    const queue = this.store.byArn(queueArn);
    if (!queue) return undefined;
    const { Policy, KmsMasterKeyId } = queue.attributes;
    return {
      ...(Policy ? { policy: Policy } : {}),
      ...(KmsMasterKeyId ? { kmsMasterKeyId: KmsMasterKeyId } : {}),
    };
  }

  /**
   * What CloudWatch's AWS/SQS metrics sample, per queue (read-only: expired messages are not
   * dropped here): messages available to a receive, and the age of the oldest message kept.
   */
  queueFigures(now: number): QueueFigures[] {
    return this.store.queueFigures(now);
  }

  stop(): void {
    this.store.stop();
  }

  operations(): Readonly<Record<string, AwsJsonOperation>> {
    const operations: Record<string, AwsJsonOperation> = {
      CreateQueue: typedOperation<CreateQueueRequest, CreateQueueResult>((body) => this.createQueue(body)),
      GetQueueUrl: typedOperation<GetQueueUrlRequest, GetQueueUrlResult>((body) => this.getQueueUrl(body)),
      DeleteQueue: typedOperation<DeleteQueueRequest, object>((body) => this.deleteQueue(body)),
      ListQueues: typedOperation<ListQueuesRequest, ListQueuesResult>((body) => this.listQueues(body)),
      GetQueueAttributes: typedOperation<GetQueueAttributesRequest, GetQueueAttributesResult>((body) =>
        this.getQueueAttributes(body),
      ),
      SetQueueAttributes: typedOperation<SetQueueAttributesRequest, object>((body) =>
        this.setQueueAttributes(body),
      ),
      SendMessage: typedOperation<SendMessageRequest, SendMessageResult>((body) =>
        this.messages.sendMessage(body),
      ),
      SendMessageBatch: typedOperation<SendMessageBatchRequest, SendMessageBatchResult>((body) =>
        this.messages.sendMessageBatch(body),
      ),
      ReceiveMessage: typedOperation<ReceiveMessageRequest, ReceiveMessageResult>((body, request) =>
        this.messages.receiveMessage(body, request.signal),
      ),
      DeleteMessage: typedOperation<DeleteMessageRequest, object>((body) =>
        this.messages.deleteMessage(body),
      ),
      DeleteMessageBatch: typedOperation<DeleteMessageBatchRequest, DeleteMessageBatchResult>((body) =>
        this.messages.deleteMessageBatch(body),
      ),
      ChangeMessageVisibility: typedOperation<ChangeMessageVisibilityRequest, object>((body) =>
        this.messages.changeMessageVisibility(body),
      ),
      ChangeMessageVisibilityBatch: typedOperation<
        ChangeMessageVisibilityBatchRequest,
        ChangeMessageVisibilityBatchResult
      >((body) => this.messages.changeMessageVisibilityBatch(body)),
      PurgeQueue: typedOperation<PurgeQueueRequest, object>((body) => this.purgeQueue(body)),
      AddPermission: typedOperation<AddPermissionRequest, object>((body) =>
        this.changePolicy(body, policyWithPermission),
      ),
      RemovePermission: typedOperation<RemovePermissionRequest, object>((body) =>
        this.changePolicy(body, policyWithoutPermission),
      ),
      ListDeadLetterSourceQueues: typedOperation<
        ListDeadLetterSourceQueuesRequest,
        ListDeadLetterSourceQueuesResult
      >((body) => this.listDeadLetterSourceQueues(body)),
      TagQueue: typedOperation<TagQueueRequest, object>((body) => this.tagQueue(body)),
      UntagQueue: typedOperation<UntagQueueRequest, object>((body) => this.untagQueue(body)),
      ListQueueTags: typedOperation<ListQueueTagsRequest, ListQueueTagsResult>((body) => ({
        Tags: { ...this.queueOf(body).tags },
      })),
    };
    // Every operation is authorized before it runs, on the queue it names.
    for (const [name, action] of Object.entries(SQS_ACTION_OF_OPERATION)) {
      const operation = operations[name];
      if (!operation) continue;
      operations[name] = async (body, request) => {
        const queue = name === 'ListQueues' ? undefined : this.queueNamedBy(body);
        const queueArn =
          name === 'ListQueues' ? '*' : queue ? this.queueArn(queue) : this.namedQueueArn(body);
        await this.authorizer.authorizeRequest({
          action,
          queueArn,
          received: request.received,
          ...(queue?.attributes.Policy ? { policy: queue.attributes.Policy } : {}),
          ...(queue?.attributes.KmsMasterKeyId ? { kmsMasterKeyId: queue.attributes.KmsMasterKeyId } : {}),
        });
        return operation(body, request);
      };
    }
    const { onRequest } = this.options;
    if (!onRequest) return operations;
    // Metering: every call on a queue that succeeded, after its answer.
    return Object.fromEntries(
      Object.entries(operations).map(([action, operation]): [string, AwsJsonOperation] => [
        action,
        async (body, request) => {
          const result = await operation(body, request);
          const queueName =
            typeof body.QueueUrl === 'string'
              ? body.QueueUrl.slice(body.QueueUrl.lastIndexOf('/') + 1)
              : typeof body.QueueName === 'string'
                ? body.QueueName
                : undefined;
          if (queueName !== undefined) {
            const { Messages } = result;
            onRequest({
              action,
              queueName,
              payloadBytes: requestPayloadBytes(action, body, result),
              ...(action === 'ReceiveMessage'
                ? { messagesReceived: Array.isArray(Messages) ? Messages.length : 0 }
                : {}),
            });
          }
          return result;
        },
      ]),
    );
  }

  // --- the queue a request names ------------------------------------------------------------

  /** The ARN of the queue a request names (by QueueUrl or QueueName), whether or not it exists. */
  private namedQueueArn(body: Body): string {
    if (typeof body.QueueUrl === 'string') {
      const [account = this.options.accountId, name = ''] = body.QueueUrl.split('/').slice(-2);
      return `arn:aws:sqs:${this.options.region}:${account}:${name}`;
    }
    const owner =
      typeof body.QueueOwnerAWSAccountId === 'string' ? body.QueueOwnerAWSAccountId : this.options.accountId;
    return `arn:aws:sqs:${this.options.region}:${owner}:${String(body.QueueName ?? '')}`;
  }

  /** The queue a request names by QueueUrl (or QueueName, for GetQueueUrl), if it exists. */
  private queueNamedBy(body: Body): Queue | undefined {
    if (typeof body.QueueUrl === 'string') {
      try {
        return this.queueOf(body);
      } catch {
        return undefined;
      }
    }
    if (typeof body.QueueName === 'string') {
      const owner =
        typeof body.QueueOwnerAWSAccountId === 'string'
          ? body.QueueOwnerAWSAccountId
          : this.options.accountId;
      return this.store.get(queueKey(owner, body.QueueName));
    }
    return undefined;
  }

  // --- queues ---------------------------------------------------------------------------------

  private queueUrl(queue: Queue): string {
    return `${this.endpoint}/${queue.accountId}/${queue.name}`;
  }

  queueArn(queue: Queue): string {
    return `arn:aws:sqs:${this.options.region}:${queue.accountId}:${queue.name}`;
  }

  /** The queue a request's QueueUrl names (`<any origin>/<account>/<name>`), expired messages dropped. */
  queueOf(body: Body): Queue {
    const url = body.QueueUrl;
    if (typeof url !== 'string' || url === '') throw SqsErrors.missingParameter('QueueUrl');
    let segments: string[];
    try {
      segments = new URL(url).pathname.split('/').filter((segment) => segment !== '');
    } catch {
      throw SqsErrors.invalidAddress(url);
    }
    if (segments.length !== 2) throw SqsErrors.invalidAddress(url);
    const queue = this.store.get(queueKey(segments[0] as string, segments[1] as string));
    if (!queue) throw SqsErrors.queueDoesNotExist();
    queue.expire(this.clock.now());
    return queue;
  }

  /**
   * A queue policy the evaluator cannot evaluate as AWS would is refused, and the queue keeps the
   * policy it had: AWS refuses a malformed one too (InvalidAttributeValue), and one that AWS takes
   * but the runtime cannot judge must not decide anything.
   */
  private checkPolicy(text: string | undefined): void {
    if (text === undefined || text === '') return;
    const problem = this.authorizer.policyProblem(text);
    if (problem) throw SqsErrors.invalidAttributeValue(`Invalid value for the parameter Policy. ${problem}`);
  }

  /** What IAM asks of requests to queues: the SQS service's authorizer. */
  get queueAuthorizer(): SqsQueueAuthorizer {
    return this.authorizer;
  }

  /** A redrive policy must name an existing queue of the same type (FIFO or standard) as its source. */
  private checkRedriveTarget(fifo: boolean, attributes: Readonly<Record<string, string>>): void {
    const text = attributes.RedrivePolicy;
    if (!text) return;
    const policy = parseRedrivePolicy(text);
    const target = this.store.byArn(policy.deadLetterTargetArn);
    const invalid = (reason: string) =>
      SqsErrors.invalidParameterValue(
        `Value ${text} for parameter RedrivePolicy is invalid. Reason: ${reason}`,
      );
    if (!target) throw invalid('Dead letter target does not exist.');
    if (target.fifo !== fifo) throw invalid('Dead-letter queue must be same type of queue as the source.');
  }

  private createQueue(body: WireRequest<CreateQueueRequest>): CreateQueueResult {
    const name = validateQueueName(body.QueueName);
    const given = (body.Attributes ?? {}) as Record<string, unknown>;
    const fifo = isFifoName(name);
    if (String(given.FifoQueue ?? '').toLowerCase() === 'true' && !fifo) {
      throw SqsErrors.invalidParameterValue(
        'The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length.',
      );
    }
    if (fifo && String(given.FifoQueue ?? '').toLowerCase() !== 'true') {
      throw SqsErrors.invalidParameterValue(
        'Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length. A queue name ending in .fifo needs the attribute FifoQueue=true.',
      );
    }
    const attributes = normalizeAttributes(given, { fifo, creating: true });
    const accountId = this.options.accountId;
    const existing = this.store.get(queueKey(accountId, name));
    if (existing) {
      // "If the queue name, attribute names, or attribute values don't match an existing queue,
      // CreateQueue returns an error" (CreateQueue, API reference).
      for (const [attribute, value] of Object.entries(attributes)) {
        const current = existing.attributes[attribute] ?? (attribute === 'FifoQueue' ? 'false' : '');
        if (current !== value) {
          throw SqsErrors.queueNameExists(
            `A queue already exists with the same name and a different value for attribute ${attribute}`,
          );
        }
      }
      return { QueueUrl: this.queueUrl(existing) };
    }
    this.checkRedriveTarget(fifo, attributes);
    this.checkPolicy(attributes.Policy);
    const now = this.clock.now();
    this.store.commit({
      op: 'createQueue',
      accountId,
      name,
      attributes: initialAttributes(attributes, fifo),
      createdAt: now,
      modifiedAt: now,
      tags: { ...((body.tags ?? {}) as Record<string, string>) },
    });
    return { QueueUrl: `${this.endpoint}/${accountId}/${name}` };
  }

  private getQueueUrl(body: WireRequest<GetQueueUrlRequest>): GetQueueUrlResult {
    const name = body.QueueName;
    if (typeof name !== 'string' || name === '') throw SqsErrors.missingParameter('QueueName');
    const owner =
      typeof body.QueueOwnerAWSAccountId === 'string' ? body.QueueOwnerAWSAccountId : this.options.accountId;
    const queue = this.store.get(queueKey(owner, name));
    if (!queue) throw SqsErrors.queueDoesNotExist();
    return { QueueUrl: this.queueUrl(queue) };
  }

  private deleteQueue(body: WireRequest<DeleteQueueRequest>): object {
    const queue = this.queueOf(body);
    this.store.commit({ op: 'deleteQueue', key: queue.key });
    return {};
  }

  private listQueues(body: WireRequest<ListQueuesRequest>): ListQueuesResult {
    const prefix = typeof body.QueueNamePrefix === 'string' ? body.QueueNamePrefix : '';
    const maxResults = integerParameter(
      body,
      'MaxResults',
      1,
      1000,
      'Must be between 1 and 1000, if provided.',
    );
    const start =
      typeof body.NextToken === 'string' ? Number(Buffer.from(body.NextToken, 'base64').toString()) || 0 : 0;
    const names = this.store
      .all()
      .filter((queue) => queue.accountId === this.options.accountId && queue.name.startsWith(prefix))
      .sort((left, right) => left.name.localeCompare(right.name));
    const page = names.slice(start, start + (maxResults ?? 1000));
    const more = maxResults !== undefined && start + page.length < names.length;
    return {
      ...(page.length > 0 ? { QueueUrls: page.map((queue) => this.queueUrl(queue)) } : {}),
      ...(more ? { NextToken: Buffer.from(String(start + page.length)).toString('base64') } : {}),
    };
  }

  private getQueueAttributes(body: WireRequest<GetQueueAttributesRequest>): GetQueueAttributesResult {
    const queue = this.queueOf(body);
    const requested = stringList(body.AttributeNames);
    for (const name of requested) {
      if (name !== 'All' && !ALL_ATTRIBUTE_NAMES.includes(name)) throw SqsErrors.invalidAttributeName(name);
    }
    const wanted = (name: string) => requested.includes('All') || requested.includes(name);
    const counts = queue.counts(this.clock.now());
    const all: Record<string, string> = {
      ...queue.attributes,
      ApproximateNumberOfMessages: String(counts.available),
      ApproximateNumberOfMessagesNotVisible: String(counts.inflight),
      ApproximateNumberOfMessagesDelayed: String(counts.delayed),
      CreatedTimestamp: String(Math.floor(queue.createdAt / 1000)),
      LastModifiedTimestamp: String(Math.floor(queue.modifiedAt / 1000)),
      QueueArn: this.queueArn(queue),
    };
    const attributes = Object.fromEntries(Object.entries(all).filter(([name]) => wanted(name)));
    return Object.keys(attributes).length > 0 ? { Attributes: attributes } : {};
  }

  private setQueueAttributes(body: WireRequest<SetQueueAttributesRequest>): object {
    const queue = this.queueOf(body);
    const given = normalizeAttributes((body.Attributes ?? {}) as Record<string, unknown>, {
      fifo: queue.fifo,
      creating: false,
    });
    this.checkRedriveTarget(queue.fifo, given);
    this.checkPolicy(given.Policy);
    const attributes = { ...queue.attributes, ...given };
    if (attributes.RedrivePolicy === '') delete attributes.RedrivePolicy;
    this.store.commit({ op: 'setAttributes', key: queue.key, attributes, at: this.clock.now() });
    return {};
  }

  /** AddPermission and RemovePermission: the queue's policy edited (./queue-permissions.ts). */
  private changePolicy(
    body: Body,
    edit: (policy: string | undefined, queueArn: string, body: Body) => string,
  ): object {
    const queue = this.queueOf(body);
    const policy = edit(queue.attributes.Policy, this.queueArn(queue), body);
    this.checkPolicy(policy);
    // An empty Policy is no policy, as SetQueueAttributes leaves it.
    const attributes = { ...queue.attributes, Policy: policy };
    this.store.commit({ op: 'setAttributes', key: queue.key, attributes, at: this.clock.now() });
    return {};
  }

  private purgeQueue(body: WireRequest<PurgeQueueRequest>): object {
    const queue = this.queueOf(body);
    const now = this.clock.now();
    // "Only one PurgeQueue operation on a queue is allowed every 60 seconds" (PurgeQueue, API reference).
    if (queue.lastPurgeAt !== undefined && now - queue.lastPurgeAt < PURGE_INTERVAL_MILLIS) {
      throw SqsErrors.purgeQueueInProgress(this.queueUrl(queue));
    }
    this.store.commit({ op: 'purge', key: queue.key, at: now });
    return {};
  }

  private listDeadLetterSourceQueues(
    body: WireRequest<ListDeadLetterSourceQueuesRequest>,
  ): ListDeadLetterSourceQueuesResult {
    const queue = this.queueOf(body);
    const arn = this.queueArn(queue);
    const sources = this.store.all().filter((source) => source.redrivePolicy()?.deadLetterTargetArn === arn);
    return { queueUrls: sources.map((source) => this.queueUrl(source)) };
  }

  private tagQueue(body: WireRequest<TagQueueRequest>): object {
    const queue = this.queueOf(body);
    this.store.commit({
      op: 'setTags',
      key: queue.key,
      tags: { ...queue.tags, ...((body.Tags ?? {}) as Record<string, string>) },
    });
    return {};
  }

  private untagQueue(body: WireRequest<UntagQueueRequest>): object {
    const queue = this.queueOf(body);
    const tags = { ...queue.tags };
    for (const key of stringList(body.TagKeys)) delete tags[key];
    this.store.commit({ op: 'setTags', key: queue.key, tags });
    return {};
  }

  // --- sending --------------------------------------------------------------------------------
}
