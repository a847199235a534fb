/**
 * The SQS service of the local runtime: the operations the AWS SDK v3 and the AWS CLI send over the
 * JSON protocol, with standard and FIFO semantics as the SQS documentation states them. Every change
 * of state goes through `commit` (apply in memory, append to the journal when persisted), so a restart
 * replays exactly what happened.
 *
 * IAM: every request is authenticated and authorized by the account's IAM before it runs
 * (./queue-authorizer.ts): the caller's identity policies, the queue's `Policy` attribute as its
 * resource policy, and the use of its customer-managed key.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { AwsJsonOperation } from '../aws-json-server';
import type { RuntimeIam } from '../iam/runtime-iam';
import { SqsErrors } from './errors';
import { Journal, type JournalRecord } from './journal';
import { BATCH_ENTRY_ID, MAX_BATCH_ENTRIES, MAX_BATCH_PAYLOAD_BYTES } from './limits';
import { md5OfBody, md5OfMessageAttributes } from './md5';
import {
  checkCharacters,
  checkFifoId,
  checkMessageAttributes,
  checkSystemAttributes,
  MESSAGE_SYSTEM_ATTRIBUTE_NAMES,
  selectMessageAttributes,
} from './messages';
import { DEDUPLICATION_INTERVAL_MILLIS, Queue, queueKey, type StoredMessage } from './queue';
import {
  ALL_ATTRIBUTE_NAMES,
  initialAttributes,
  isFifoName,
  normalizeAttributes,
  parseRedrivePolicy,
  validateQueueName,
} from './queue-attributes';
import { type QueueSecurity, SQS_ACTION_OF_OPERATION, SqsQueueAuthorizer } from './queue-authorizer';

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

/**
 * Bytes of a message's body and message attributes (names, types and values), in the shape of a
 * SendMessage request or a received message (binary values in base64).
 */
export function messagePayloadBytes(message: unknown): number {
  const fields = (typeof message === 'object' && message !== null ? message : {}) as Body;
  const body = fields.MessageBody ?? fields.Body;
  let bytes = typeof body === 'string' ? Buffer.byteLength(body) : 0;
  const attributes = fields.MessageAttributes;
  if (typeof attributes === 'object' && attributes !== null) {
    for (const [name, value] of Object.entries(attributes)) {
      const { DataType, StringValue, BinaryValue } = (value ?? {}) as Body;
      bytes += Buffer.byteLength(name) + Buffer.byteLength(String(DataType ?? ''));
      if (typeof StringValue === 'string') bytes += Buffer.byteLength(StringValue);
      if (typeof BinaryValue === 'string') bytes += Buffer.from(BinaryValue, 'base64').length;
    }
  }
  return bytes;
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

type Body = Record<string, unknown>;

const MAX_VISIBILITY_SECONDS = 43_200;
const PURGE_INTERVAL_MILLIS = 60_000;
/** Compact the journal once it holds this many records more than a snapshot would. */
const COMPACTION_THRESHOLD = 100_000;

/** An integer parameter within bounds, or InvalidParameterValue naming it. */
function integerParameter(
  body: Body,
  name: string,
  min: number,
  max: number,
  reason: string,
): number | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) {
    throw SqsErrors.invalidParameterValue(
      `Value ${String(value)} for parameter ${name} is invalid. Reason: ${reason}`,
    );
  }
  return number;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** One queue's figures for the AWS/SQS metrics (see SqsService.queueFigures). */
export interface QueueFigures {
  readonly accountId: string;
  readonly queueName: string;
  /** ApproximateNumberOfMessagesVisible. */
  readonly visibleMessages: number;
  /** ApproximateAgeOfOldestMessage (0 for an empty queue). */
  readonly oldestMessageAgeSeconds: number;
}

export class SqsService {
  private readonly queues = new Map<string, Queue>();
  private endpoint = 'http://127.0.0.1';
  private nextSequence = BigInt(Date.now()) * 10_000_000n;
  private readonly journal?: Journal;
  private stopped = false;

  private readonly authorizer: SqsQueueAuthorizer;

  constructor(private readonly options: SqsServiceOptions) {
    this.authorizer = new SqsQueueAuthorizer(options.iam, options.region);
    if (options.dataDirectory) {
      const { journal, records } = Journal.open(options.dataDirectory);
      for (const record of records) this.apply(record);
      this.journal = journal;
      this.compact();
    }
  }

  /** The base URL queue URLs start with (known once the server listens). */
  setEndpoint(endpoint: string): void {
    this.endpoint = endpoint;
  }

  /** A queue's policy and customer-managed key (what IAM reads of it), if the queue exists. */
  queueSecurity(queueArn: string): QueueSecurity | undefined {
    const queue = this.queueByArn(queueArn);
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
    return [...this.queues.values()].map((queue) => {
      let oldest: number | undefined;
      for (const message of queue.messages.values()) {
        if (oldest === undefined || message.enqueuedAt < oldest) oldest = message.enqueuedAt;
      }
      return {
        accountId: queue.accountId,
        queueName: queue.name,
        visibleMessages: queue.counts(now).available,
        oldestMessageAgeSeconds: oldest === undefined ? 0 : Math.max(0, Math.floor((now - oldest) / 1000)),
      };
    });
  }

  stop(): void {
    this.stopped = true;
    for (const queue of this.queues.values()) queue.notify();
    this.journal?.close();
  }

  operations(): Readonly<Record<string, AwsJsonOperation>> {
    const sync =
      (operation: (body: Body) => Body): AwsJsonOperation =>
      async (body) =>
        operation(body);
    const operations: Record<string, AwsJsonOperation> = {
      CreateQueue: sync((body) => this.createQueue(body)),
      GetQueueUrl: sync((body) => this.getQueueUrl(body)),
      DeleteQueue: sync((body) => this.deleteQueue(body)),
      ListQueues: sync((body) => this.listQueues(body)),
      GetQueueAttributes: sync((body) => this.getQueueAttributes(body)),
      SetQueueAttributes: sync((body) => this.setQueueAttributes(body)),
      SendMessage: sync((body) => this.sendMessage(body)),
      SendMessageBatch: sync((body) => this.sendMessageBatch(body)),
      ReceiveMessage: (body, request) => this.receiveMessage(body, request.signal),
      DeleteMessage: sync((body) => this.deleteMessage(body)),
      DeleteMessageBatch: sync((body) => this.deleteMessageBatch(body)),
      ChangeMessageVisibility: sync((body) => this.changeMessageVisibility(body)),
      ChangeMessageVisibilityBatch: sync((body) => this.changeMessageVisibilityBatch(body)),
      PurgeQueue: sync((body) => this.purgeQueue(body)),
      ListDeadLetterSourceQueues: sync((body) => this.listDeadLetterSourceQueues(body)),
      TagQueue: sync((body) => this.tagQueue(body)),
      UntagQueue: sync((body) => this.untagQueue(body)),
      ListQueueTags: sync((body) => ({ Tags: { ...this.queueOf(body).tags } })),
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
      return this.queues.get(queueKey(owner, body.QueueName));
    }
    return undefined;
  }

  // --- queues ---------------------------------------------------------------------------------

  private queueUrl(queue: Queue): string {
    return `${this.endpoint}/${queue.accountId}/${queue.name}`;
  }

  private queueArn(queue: Queue): string {
    return `arn:aws:sqs:${this.options.region}:${queue.accountId}:${queue.name}`;
  }

  private queueByArn(arn: string): Queue | undefined {
    const [, , service, , accountId, name] = arn.split(':');
    return service === 'sqs' && accountId && name ? this.queues.get(queueKey(accountId, name)) : undefined;
  }

  /** The queue a request's QueueUrl names (`<any origin>/<account>/<name>`), expired messages dropped. */
  private queueOf(body: Body): Queue {
    const url = body.QueueUrl;
    if (typeof url !== 'string' || url === '') throw SqsErrors.missingParameter('QueueUrl');
    let segments: string[];
    try {
      segments = new URL(url).pathname.split('/').filter((segment) => segment !== '');
    } catch {
      throw SqsErrors.invalidAddress(url);
    }
    if (segments.length !== 2) throw SqsErrors.invalidAddress(url);
    const queue = this.queues.get(queueKey(segments[0] as string, segments[1] as string));
    if (!queue) throw SqsErrors.queueDoesNotExist();
    queue.expire(Date.now());
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
    const target = this.queueByArn(policy.deadLetterTargetArn);
    const invalid = (reason: string) =>
      SqsErrors.invalidParameterValue(
        `Value ${text} for parameter RedrivePolicy is invalid. Reason: ${reason}`,
      );
    if (!target) throw invalid('Dead letter target does not exist.');
    if (target.fifo !== fifo) throw invalid('Dead-letter queue must be same type of queue as the source.');
  }

  private createQueue(body: Body): Body {
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
    const existing = this.queues.get(queueKey(accountId, name));
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
    const now = Date.now();
    this.commit({
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

  private getQueueUrl(body: Body): Body {
    const name = body.QueueName;
    if (typeof name !== 'string' || name === '') throw SqsErrors.missingParameter('QueueName');
    const owner =
      typeof body.QueueOwnerAWSAccountId === 'string' ? body.QueueOwnerAWSAccountId : this.options.accountId;
    const queue = this.queues.get(queueKey(owner, name));
    if (!queue) throw SqsErrors.queueDoesNotExist();
    return { QueueUrl: this.queueUrl(queue) };
  }

  private deleteQueue(body: Body): Body {
    const queue = this.queueOf(body);
    this.commit({ op: 'deleteQueue', key: queue.key });
    return {};
  }

  private listQueues(body: Body): Body {
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
    const names = [...this.queues.values()]
      .filter((queue) => queue.accountId === this.options.accountId && queue.name.startsWith(prefix))
      .sort((left, right) => left.name.localeCompare(right.name));
    const page = names.slice(start, start + (maxResults ?? 1000));
    const more = maxResults !== undefined && start + page.length < names.length;
    return {
      ...(page.length > 0 ? { QueueUrls: page.map((queue) => this.queueUrl(queue)) } : {}),
      ...(more ? { NextToken: Buffer.from(String(start + page.length)).toString('base64') } : {}),
    };
  }

  private getQueueAttributes(body: Body): Body {
    const queue = this.queueOf(body);
    const requested = stringList(body.AttributeNames);
    for (const name of requested) {
      if (name !== 'All' && !ALL_ATTRIBUTE_NAMES.includes(name)) throw SqsErrors.invalidAttributeName(name);
    }
    const wanted = (name: string) => requested.includes('All') || requested.includes(name);
    const counts = queue.counts(Date.now());
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

  private setQueueAttributes(body: Body): Body {
    const queue = this.queueOf(body);
    const given = normalizeAttributes((body.Attributes ?? {}) as Record<string, unknown>, {
      fifo: queue.fifo,
      creating: false,
    });
    this.checkRedriveTarget(queue.fifo, given);
    this.checkPolicy(given.Policy);
    const attributes = { ...queue.attributes, ...given };
    if (attributes.RedrivePolicy === '') delete attributes.RedrivePolicy;
    this.commit({ op: 'setAttributes', key: queue.key, attributes, at: Date.now() });
    return {};
  }

  private purgeQueue(body: Body): Body {
    const queue = this.queueOf(body);
    const now = Date.now();
    // "Only one PurgeQueue operation on a queue is allowed every 60 seconds" (PurgeQueue, API reference).
    if (queue.lastPurgeAt !== undefined && now - queue.lastPurgeAt < PURGE_INTERVAL_MILLIS) {
      throw SqsErrors.purgeQueueInProgress(this.queueUrl(queue));
    }
    this.commit({ op: 'purge', key: queue.key, at: now });
    return {};
  }

  private listDeadLetterSourceQueues(body: Body): Body {
    const queue = this.queueOf(body);
    const arn = this.queueArn(queue);
    const sources = [...this.queues.values()].filter(
      (source) => source.redrivePolicy()?.deadLetterTargetArn === arn,
    );
    return { queueUrls: sources.map((source) => this.queueUrl(source)) };
  }

  private tagQueue(body: Body): Body {
    const queue = this.queueOf(body);
    this.commit({
      op: 'setTags',
      key: queue.key,
      tags: { ...queue.tags, ...((body.Tags ?? {}) as Record<string, string>) },
    });
    return {};
  }

  private untagQueue(body: Body): Body {
    const queue = this.queueOf(body);
    const tags = { ...queue.tags };
    for (const key of stringList(body.TagKeys)) delete tags[key];
    this.commit({ op: 'setTags', key: queue.key, tags });
    return {};
  }

  // --- sending --------------------------------------------------------------------------------

  /** Validates one message of a send and stores it (or recognises a FIFO duplicate). */
  private send(queue: Queue, entry: Body): Body {
    const messageBody = entry.MessageBody;
    if (typeof messageBody !== 'string' || messageBody === '')
      throw SqsErrors.missingParameter('MessageBody');
    checkCharacters(messageBody, 'message body');
    const { attributes, size: attributesSize } = checkMessageAttributes(entry.MessageAttributes);
    const systemAttributes = checkSystemAttributes(entry.MessageSystemAttributes);
    const maximumSize = queue.setting('MaximumMessageSize');
    if (Buffer.byteLength(messageBody, 'utf8') + attributesSize > maximumSize) {
      throw SqsErrors.invalidParameterValue(
        `One or more parameters are invalid. Reason: Message must be shorter than ${maximumSize} bytes.`,
      );
    }
    const delaySeconds = integerParameter(
      entry,
      'DelaySeconds',
      0,
      900,
      'Must be between 0 and 900, if provided.',
    );
    let groupId: string | undefined;
    let deduplicationId: string | undefined;
    if (queue.fifo) {
      // "You can't set DelaySeconds per message on FIFO queues; set it on the queue" (SendMessage).
      if (delaySeconds !== undefined && delaySeconds !== 0) {
        throw SqsErrors.invalidParameterValue(
          `Value ${delaySeconds} for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type.`,
        );
      }
      // "MessageGroupId is required for FIFO queues. You can't use it for Standard queues" (older
      // wording; standard queues now accept it for fair queues).
      if (entry.MessageGroupId === undefined) throw SqsErrors.missingParameter('MessageGroupId');
      groupId = checkFifoId(entry.MessageGroupId, 'MessageGroupId');
      if (entry.MessageDeduplicationId !== undefined) {
        deduplicationId = checkFifoId(entry.MessageDeduplicationId, 'MessageDeduplicationId');
      } else if (queue.attributes.ContentBasedDeduplication === 'true') {
        // Content-based deduplication: "a SHA-256 hash to generate the message deduplication ID
        // using the body of the message (but not the attributes of the message)".
        deduplicationId = createHash('sha256').update(messageBody, 'utf8').digest('hex');
      } else {
        throw SqsErrors.invalidParameterValue(
          'The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
        );
      }
    } else {
      if (entry.MessageDeduplicationId !== undefined) {
        throw SqsErrors.invalidParameterValue(
          `Value ${String(entry.MessageDeduplicationId)} for parameter MessageDeduplicationId is invalid. Reason: The request include parameter that is not valid for this queue type.`,
        );
      }
      if (entry.MessageGroupId !== undefined) groupId = checkFifoId(entry.MessageGroupId, 'MessageGroupId');
    }
    const digests = {
      MD5OfMessageBody: md5OfBody(messageBody),
      ...optional('MD5OfMessageAttributes', md5OfMessageAttributes(attributes)),
      ...optional('MD5OfMessageSystemAttributes', md5OfMessageAttributes(systemAttributes)),
    };
    const now = Date.now();
    if (deduplicationId !== undefined) {
      const scope = queue.deduplicationScope(groupId, deduplicationId);
      const earlier = queue.deduplication.get(scope);
      // "Any messages sent with the same message deduplication ID are accepted successfully but
      // aren't delivered during the 5-minute deduplication interval" (FIFO exactly-once processing).
      if (earlier && earlier.expiresAt > now) {
        return { ...digests, MessageId: earlier.messageId, SequenceNumber: earlier.sequenceNumber };
      }
    }
    const messageId = randomUUID();
    const sequenceNumber = queue.fifo ? this.takeSequenceNumber() : undefined;
    const message: StoredMessage = {
      messageId,
      body: messageBody,
      messageAttributes: attributes,
      systemAttributes,
      senderId: this.options.accountId,
      sentAt: now,
      enqueuedAt: now,
      availableAt: now + (delaySeconds ?? queue.setting('DelaySeconds')) * 1000,
      visibleAt: 0,
      receivedAt: 0,
      receiveCount: 0,
      ...optional('groupId', groupId),
      ...optional('deduplicationId', deduplicationId),
      ...optional('sequenceNumber', sequenceNumber),
    };
    this.commit({ op: 'send', key: queue.key, message });
    if (deduplicationId !== undefined && sequenceNumber !== undefined) {
      this.commit({
        op: 'deduplicate',
        key: queue.key,
        scope: queue.deduplicationScope(groupId, deduplicationId),
        entry: { messageId, sequenceNumber, expiresAt: now + DEDUPLICATION_INTERVAL_MILLIS },
      });
    }
    return { ...digests, MessageId: messageId, ...optional('SequenceNumber', sequenceNumber) };
  }

  private takeSequenceNumber(): string {
    const value = this.nextSequence;
    this.nextSequence += 1n;
    return value.toString().padStart(20, '0');
  }

  private sendMessage(body: Body): Body {
    return this.send(this.queueOf(body), body);
  }

  private sendMessageBatch(body: Body): Body {
    const queue = this.queueOf(body);
    const entries = this.batchEntries(body);
    // The sum of the messages' lengths, each its body and message attributes (limits.ts).
    const payload = entries.reduce((sum, entry) => sum + messagePayloadBytes(entry), 0);
    if (payload > MAX_BATCH_PAYLOAD_BYTES)
      throw SqsErrors.batchRequestTooLong(payload, MAX_BATCH_PAYLOAD_BYTES);
    return this.eachEntry(entries, (entry) => this.send(queue, entry));
  }

  // --- receiving ------------------------------------------------------------------------------

  private async receiveMessage(body: Body, clientGone?: AbortSignal): Promise<Body> {
    let queue = this.queueOf(body);
    const maxMessages =
      integerParameter(body, 'MaxNumberOfMessages', 1, 10, 'Must be between 1 and 10, if provided.') ?? 1;
    const visibilityTimeout = integerParameter(
      body,
      'VisibilityTimeout',
      0,
      MAX_VISIBILITY_SECONDS,
      `Must be between 0 and ${MAX_VISIBILITY_SECONDS}, if provided.`,
    );
    const waitSeconds =
      integerParameter(body, 'WaitTimeSeconds', 0, 20, 'Must be >= 0 and <= 20, if provided.') ??
      queue.setting('ReceiveMessageWaitTimeSeconds');
    const systemNames = stringList(body.MessageSystemAttributeNames);
    for (const name of systemNames) {
      if (name !== 'All' && !(MESSAGE_SYSTEM_ATTRIBUTE_NAMES as readonly string[]).includes(name)) {
        throw SqsErrors.invalidAttributeName(name);
      }
    }
    // AttributeNames is the older name of the same parameter; it also accepts queue attribute names.
    const requestedSystem = new Set([...systemNames, ...stringList(body.AttributeNames)]);
    const requestedAttributes = stringList(body.MessageAttributeNames);
    const deadline = Date.now() + waitSeconds * 1000;
    for (;;) {
      // A long poll whose client went away takes nothing: its messages would stay hidden for the
      // visibility timeout with nobody to process them.
      if (clientGone?.aborted) return {};
      const messages = this.receiveNow(queue, maxMessages, visibilityTimeout);
      if (messages.length > 0) {
        return {
          Messages: messages.map((message) =>
            this.toReceived(queue, message, requestedSystem, requestedAttributes),
          ),
        };
      }
      const now = Date.now();
      if (this.stopped || now >= deadline) return {};
      // A long poll answers as soon as a message is available: a send, a deletion (FIFO groups),
      // a visibility change wakes it, and so does the end of a delay or of a visibility timeout.
      await queue.waitForChange(Math.min(deadline, queue.nextChangeAt(now) ?? deadline), clientGone);
      queue = this.queueOf(body);
    }
  }

  /** Takes up to `max` deliverable messages, moving those past maxReceiveCount to the dead-letter queue. */
  private receiveNow(queue: Queue, max: number, visibilityTimeout: number | undefined): StoredMessage[] {
    const now = Date.now();
    const policy = queue.redrivePolicy();
    const deadLetters = policy ? this.queueByArn(policy.deadLetterTargetArn) : undefined;
    const taken: StoredMessage[] = [];
    for (const message of queue.deliverable(now)) {
      if (taken.length >= max) break;
      // "If the ReceiveCount for a message exceeds the maxReceiveCount for a queue, Amazon SQS moves
      // the message to a dead-letter queue" (dead-letter queues): moved when a receive would exceed it.
      if (policy && deadLetters && message.receiveCount >= policy.maxReceiveCount) {
        this.commit({
          op: 'moveToDeadLetterQueue',
          key: queue.key,
          messageId: message.messageId,
          targetKey: deadLetters.key,
          sourceArn: this.queueArn(queue),
          at: now,
        });
        continue;
      }
      const seconds = visibilityTimeout ?? queue.setting('VisibilityTimeout');
      this.commit({
        op: 'receive',
        key: queue.key,
        messageId: message.messageId,
        receipt: randomBytes(12).toString('base64url'),
        at: now,
        visibleAt: now + seconds * 1000,
      });
      taken.push(message);
    }
    return taken;
  }

  private toReceived(
    queue: Queue,
    message: StoredMessage,
    system: ReadonlySet<string>,
    requested: readonly string[],
  ): Body {
    const all = system.has('All');
    const attributes: Record<string, string> = {};
    const add = (name: string, value: string | number | undefined) => {
      if (value !== undefined && (all || system.has(name))) attributes[name] = String(value);
    };
    add('SenderId', message.senderId);
    add('SentTimestamp', message.sentAt);
    add('ApproximateReceiveCount', message.receiveCount);
    add('ApproximateFirstReceiveTimestamp', message.firstReceiveAt);
    add('MessageGroupId', message.groupId);
    add('MessageDeduplicationId', message.deduplicationId);
    add('SequenceNumber', message.sequenceNumber);
    add('AWSTraceHeader', message.systemAttributes.AWSTraceHeader?.StringValue);
    add('DeadLetterQueueSourceArn', message.deadLetterSourceArn);
    const messageAttributes = selectMessageAttributes(message.messageAttributes, requested);
    const attributesDigest = md5OfMessageAttributes(messageAttributes);
    return {
      MessageId: message.messageId,
      ReceiptHandle: encodeReceipt(queue, message),
      MD5OfBody: md5OfBody(message.body),
      Body: message.body,
      ...(Object.keys(attributes).length > 0 ? { Attributes: attributes } : {}),
      ...(attributesDigest
        ? { MD5OfMessageAttributes: attributesDigest, MessageAttributes: messageAttributes }
        : {}),
    };
  }

  // --- after receiving ------------------------------------------------------------------------

  /** The message a receipt handle names and whether it is the latest receive of it. */
  private resolveReceipt(queue: Queue, handle: unknown): { message?: StoredMessage; current: boolean } {
    if (typeof handle !== 'string' || handle === '') throw SqsErrors.missingParameter('ReceiptHandle');
    const [key, messageId, nonce, extra] = Buffer.from(handle, 'base64url').toString('utf8').split('\n');
    if (key !== queue.key || !messageId || !nonce || extra !== undefined) {
      throw SqsErrors.receiptHandleIsInvalid(handle);
    }
    const message = queue.messages.get(messageId);
    return message ? { message, current: message.receipt === nonce } : { current: false };
  }

  private expired(handle: string): Error {
    return SqsErrors.invalidParameterValue(
      `Value ${handle} for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired.`,
    );
  }

  private deleteOne(queue: Queue, handle: unknown): void {
    const { message, current } = this.resolveReceipt(queue, handle);
    if (!message) return; // already deleted: DeleteMessage is idempotent
    // FIFO: a receipt handle expires with its visibility timeout. Standard queues: "older receipt
    // handles might succeed" (knowledge center, receipt handle errors); deleting it is what they do.
    if (queue.fifo && (!current || queue.stateOf(message, Date.now()) !== 'inflight')) {
      throw this.expired(String(handle));
    }
    this.commit({ op: 'delete', key: queue.key, messageId: message.messageId });
  }

  private deleteMessage(body: Body): Body {
    this.deleteOne(this.queueOf(body), body.ReceiptHandle);
    return {};
  }

  private deleteMessageBatch(body: Body): Body {
    const queue = this.queueOf(body);
    return this.eachEntry(this.batchEntries(body), (entry) => {
      this.deleteOne(queue, entry.ReceiptHandle);
      return {};
    });
  }

  private changeVisibilityOne(queue: Queue, entry: Body): void {
    const seconds = integerParameter(
      entry,
      'VisibilityTimeout',
      0,
      MAX_VISIBILITY_SECONDS,
      `Must be between 0 and ${MAX_VISIBILITY_SECONDS}, if provided.`,
    );
    if (seconds === undefined) throw SqsErrors.missingParameter('VisibilityTimeout');
    const handle = String(entry.ReceiptHandle ?? '');
    const { message, current } = this.resolveReceipt(queue, entry.ReceiptHandle);
    if (!message || !current) {
      throw SqsErrors.invalidParameterValue(
        `Value ${handle} for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not available for visibility timeout change.`,
      );
    }
    const now = Date.now();
    if (queue.stateOf(message, now) !== 'inflight') {
      if (queue.fifo) throw this.expired(handle);
      throw SqsErrors.messageNotInflight();
    }
    // "The maximum visibility timeout is 12 hours from the time Amazon SQS receives the
    // ReceiveMessage request" (ChangeMessageVisibility, API reference).
    if (now + seconds * 1000 > message.receivedAt + MAX_VISIBILITY_SECONDS * 1000) {
      throw SqsErrors.invalidParameterValue(
        `Value ${seconds} for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [${MAX_VISIBILITY_SECONDS} seconds]`,
      );
    }
    this.commit({
      op: 'changeVisibility',
      key: queue.key,
      messageId: message.messageId,
      visibleAt: now + seconds * 1000,
    });
  }

  private changeMessageVisibility(body: Body): Body {
    this.changeVisibilityOne(this.queueOf(body), body);
    return {};
  }

  private changeMessageVisibilityBatch(body: Body): Body {
    const queue = this.queueOf(body);
    return this.eachEntry(this.batchEntries(body), (entry) => {
      this.changeVisibilityOne(queue, entry);
      return {};
    });
  }

  // --- batches --------------------------------------------------------------------------------

  private batchEntries(body: Body): Body[] {
    const entries = Array.isArray(body.Entries) ? (body.Entries as Body[]) : [];
    if (entries.length === 0) throw SqsErrors.emptyBatchRequest();
    if (entries.length > MAX_BATCH_ENTRIES) throw SqsErrors.tooManyEntriesInBatchRequest(entries.length);
    const seen = new Set<string>();
    for (const entry of entries) {
      const id = entry.Id;
      if (typeof id !== 'string' || !BATCH_ENTRY_ID.test(id)) throw SqsErrors.invalidBatchEntryId();
      if (seen.has(id)) throw SqsErrors.batchEntryIdsNotDistinct(id);
      seen.add(id);
    }
    return entries;
  }

  /** Runs each entry on its own: failures are reported per entry, as batch actions do. */
  private eachEntry(entries: readonly Body[], run: (entry: Body) => Body): Body {
    const successful: Body[] = [];
    const failed: Body[] = [];
    for (const entry of entries) {
      try {
        successful.push({ Id: entry.Id, ...run(entry) });
      } catch (error) {
        if (!(error instanceof Error && 'queryCode' in error)) throw error;
        failed.push({
          Id: entry.Id,
          SenderFault: true,
          Code: (error as Error & { queryCode: string }).queryCode,
          Message: error.message,
        });
      }
    }
    return { Successful: successful, Failed: failed };
  }

  // --- state changes and persistence ----------------------------------------------------------

  private commit(record: JournalRecord): void {
    if (this.stopped) throw new Error('The SQS service is stopping');
    this.apply(record);
    if (this.journal) {
      this.journal.append(record);
      if (this.journal.appended > COMPACTION_THRESHOLD) this.compact();
    }
  }

  /** The one place state changes: from a live request or from the journal at start. */
  private apply(record: JournalRecord): void {
    if (record.op === 'createQueue') {
      const queue = new Queue(
        record.accountId,
        record.name,
        { ...record.attributes },
        record.createdAt,
        record.modifiedAt,
      );
      queue.tags = { ...record.tags };
      if (record.lastPurgeAt !== undefined) queue.lastPurgeAt = record.lastPurgeAt;
      this.queues.set(queue.key, queue);
      return;
    }
    if (record.op === 'sequence') {
      const next = BigInt(record.next);
      if (next > this.nextSequence) this.nextSequence = next;
      return;
    }
    const queue = this.queues.get(record.key);
    if (!queue) return;
    switch (record.op) {
      case 'setAttributes':
        queue.attributes = { ...record.attributes };
        queue.modifiedAt = record.at;
        break;
      case 'setTags':
        queue.tags = { ...record.tags };
        break;
      case 'deleteQueue':
        this.queues.delete(record.key);
        break;
      case 'send': {
        queue.messages.set(record.message.messageId, { ...record.message });
        const sequence = record.message.sequenceNumber;
        if (sequence !== undefined && BigInt(sequence) >= this.nextSequence)
          this.nextSequence = BigInt(sequence) + 1n;
        break;
      }
      case 'deduplicate':
        queue.deduplication.set(record.scope, record.entry);
        break;
      case 'receive': {
        const message = queue.messages.get(record.messageId);
        if (!message) return;
        message.receiveCount += 1;
        message.firstReceiveAt ??= record.at;
        message.receivedAt = record.at;
        message.visibleAt = record.visibleAt;
        message.receipt = record.receipt;
        break;
      }
      case 'changeVisibility': {
        const message = queue.messages.get(record.messageId);
        if (message) message.visibleAt = record.visibleAt;
        break;
      }
      case 'delete':
        queue.messages.delete(record.messageId);
        break;
      case 'purge':
        queue.messages.clear();
        queue.lastPurgeAt = record.at;
        break;
      case 'moveToDeadLetterQueue': {
        const message = queue.messages.get(record.messageId);
        const target = this.queues.get(record.targetKey);
        if (!message || !target) return;
        queue.messages.delete(record.messageId);
        const { receipt: _receipt, ...moved } = message;
        // "The expiration of a message is always based on its original enqueue timestamp" for
        // standard queues; "for FIFO queues, the enqueue timestamp resets when the message is moved
        // to a dead-letter queue" (dead-letter queues, SQS developer guide).
        target.messages.set(message.messageId, {
          ...moved,
          visibleAt: 0,
          enqueuedAt: target.fifo ? record.at : message.enqueuedAt,
          deadLetterSourceArn: record.sourceArn,
        });
        target.notify();
        break;
      }
    }
    queue.notify();
  }

  /** Rewrites the journal as the records that recreate the current state. */
  private compact(): void {
    if (!this.journal) return;
    const now = Date.now();
    const records: JournalRecord[] = [{ op: 'sequence', next: this.nextSequence.toString() }];
    for (const queue of this.queues.values()) {
      queue.expire(now);
      records.push({
        op: 'createQueue',
        accountId: queue.accountId,
        name: queue.name,
        attributes: queue.attributes,
        createdAt: queue.createdAt,
        modifiedAt: queue.modifiedAt,
        tags: queue.tags,
        ...optional('lastPurgeAt', queue.lastPurgeAt),
      });
      for (const message of queue.messages.values()) records.push({ op: 'send', key: queue.key, message });
      for (const [scope, entry] of queue.deduplication) {
        records.push({ op: 'deduplicate', key: queue.key, scope, entry });
      }
    }
    this.journal.rewrite(records);
  }
}

/** `{ [name]: value }` when the value is defined, else nothing (spread into objects). */
function optional<K extends string, V>(name: K, value: V | undefined): { [key in K]?: V } {
  return value === undefined ? {} : ({ [name]: value } as { [key in K]?: V });
}

/** Receipt handles name the queue, the message and the receive, so a stale one can be told apart. */
function encodeReceipt(queue: Queue, message: StoredMessage): string {
  return Buffer.from(`${queue.key}\n${message.messageId}\n${message.receipt ?? ''}`, 'utf8').toString(
    'base64url',
  );
}
