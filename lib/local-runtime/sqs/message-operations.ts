/**
 * SQS's message operations (SendMessage, ReceiveMessage with long polls, DeleteMessage,
 * ChangeMessageVisibility and their batches), with standard and FIFO semantics as the SQS developer
 * guide states them. The service (service.ts) names the queue and authorizes the request first;
 * every change of state is a record committed to the store (queue-store.ts).
 */

import { createHash } from 'node:crypto';
import type {
  BatchResultErrorEntry,
  ChangeMessageVisibilityBatchRequest,
  ChangeMessageVisibilityBatchResult,
  ChangeMessageVisibilityRequest,
  DeleteMessageBatchRequest,
  DeleteMessageBatchResult,
  DeleteMessageRequest,
  ReceiveMessageRequest,
  ReceiveMessageResult,
  SendMessageBatchRequest,
  SendMessageBatchResult,
  SendMessageBatchResultEntry,
  SendMessageRequest,
  SendMessageResult,
} from '@aws-sdk/client-sqs';
import type { RuntimeClock } from '../clock';
import { mintBytes, mintUuid } from '../minted-ids';
import type { WireRequest } from '../protocol/aws-json-server';
import { SqsErrors } from './errors';
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
import { DEDUPLICATION_INTERVAL_MILLIS, type Queue, type StoredMessage } from './queue';
import type { SqsQueueStore } from './queue-store';
import { type Body, integerParameter, messagePayloadBytes, optional, stringList } from './request-values';

const MAX_VISIBILITY_SECONDS = 43_200;

/** How the operations find the queue a request names (the service's rules: URL, account, ARN). */
export interface QueueLookup {
  /** The queue a request's QueueUrl names, expired messages dropped; throws SQS's error if none. */
  queueOf(body: Body): Queue;
  queueArn(queue: Queue): string;
}

export class SqsMessageOperations {
  constructor(
    private readonly store: SqsQueueStore,
    private readonly queues: QueueLookup,
    private readonly accountId: string,
    private readonly clock: RuntimeClock,
  ) {}

  /** Validates one message of a send and stores it (or recognises a FIFO duplicate). */
  private send(queue: Queue, entry: Body): Omit<SendMessageBatchResultEntry, 'Id'> {
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
    const now = this.clock.now();
    if (deduplicationId !== undefined) {
      const scope = queue.deduplicationScope(groupId, deduplicationId);
      const earlier = queue.deduplication.get(scope);
      // "Any messages sent with the same message deduplication ID are accepted successfully but
      // aren't delivered during the 5-minute deduplication interval" (FIFO exactly-once processing).
      if (earlier && earlier.expiresAt > now) {
        return { ...digests, MessageId: earlier.messageId, SequenceNumber: earlier.sequenceNumber };
      }
    }
    const messageId = mintUuid();
    const sequenceNumber = queue.fifo ? this.store.takeSequenceNumber() : undefined;
    const message: StoredMessage = {
      messageId,
      body: messageBody,
      messageAttributes: attributes,
      systemAttributes,
      senderId: this.accountId,
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
    this.store.commit({ op: 'send', key: queue.key, message });
    if (deduplicationId !== undefined && sequenceNumber !== undefined) {
      this.store.commit({
        op: 'deduplicate',
        key: queue.key,
        scope: queue.deduplicationScope(groupId, deduplicationId),
        entry: { messageId, sequenceNumber, expiresAt: now + DEDUPLICATION_INTERVAL_MILLIS },
      });
    }
    return { ...digests, MessageId: messageId, ...optional('SequenceNumber', sequenceNumber) };
  }

  sendMessage(body: WireRequest<SendMessageRequest>): SendMessageResult {
    return this.send(this.queues.queueOf(body), body);
  }

  sendMessageBatch(body: WireRequest<SendMessageBatchRequest>): SendMessageBatchResult {
    const queue = this.queues.queueOf(body);
    const entries = this.batchEntries(body);
    // The sum of the messages' lengths, each its body and message attributes (limits.ts).
    const payload = entries.reduce((sum, entry) => sum + messagePayloadBytes(entry), 0);
    if (payload > MAX_BATCH_PAYLOAD_BYTES)
      throw SqsErrors.batchRequestTooLong(payload, MAX_BATCH_PAYLOAD_BYTES);
    return this.eachEntry(entries, (entry) => this.send(queue, entry));
  }

  // --- receiving ------------------------------------------------------------------------------

  async receiveMessage(
    body: WireRequest<ReceiveMessageRequest>,
    clientGone?: AbortSignal,
  ): Promise<ReceiveMessageResult> {
    let queue = this.queues.queueOf(body);
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
    const deadline = this.clock.now() + waitSeconds * 1000;
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
      const now = this.clock.now();
      if (this.store.stopped || now >= deadline) return {};
      // A long poll answers as soon as a message is available: a send, a deletion (FIFO groups),
      // a visibility change wakes it, and so does the end of a delay or of a visibility timeout.
      await queue.waitForChange(
        Math.min(deadline, queue.nextChangeAt(now) ?? deadline),
        this.clock,
        clientGone,
      );
      queue = this.queues.queueOf(body);
    }
  }

  /** Takes up to `max` deliverable messages, moving those past maxReceiveCount to the dead-letter queue. */
  private receiveNow(queue: Queue, max: number, visibilityTimeout: number | undefined): StoredMessage[] {
    const now = this.clock.now();
    const policy = queue.redrivePolicy();
    const deadLetters = policy ? this.store.byArn(policy.deadLetterTargetArn) : undefined;
    const taken: StoredMessage[] = [];
    for (const message of queue.deliverable(now)) {
      if (taken.length >= max) break;
      // "If the ReceiveCount for a message exceeds the maxReceiveCount for a queue, Amazon SQS moves
      // the message to a dead-letter queue" (dead-letter queues): moved when a receive would exceed it.
      if (policy && deadLetters && message.receiveCount >= policy.maxReceiveCount) {
        this.store.commit({
          op: 'moveToDeadLetterQueue',
          key: queue.key,
          messageId: message.messageId,
          targetKey: deadLetters.key,
          sourceArn: this.queues.queueArn(queue),
          at: now,
        });
        continue;
      }
      const seconds = visibilityTimeout ?? queue.setting('VisibilityTimeout');
      this.store.commit({
        op: 'receive',
        key: queue.key,
        messageId: message.messageId,
        receipt: mintBytes(12).toString('base64url'),
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
    if (queue.fifo && (!current || queue.stateOf(message, this.clock.now()) !== 'inflight')) {
      throw this.expired(String(handle));
    }
    this.store.commit({ op: 'delete', key: queue.key, messageId: message.messageId });
  }

  deleteMessage(body: WireRequest<DeleteMessageRequest>): object {
    this.deleteOne(this.queues.queueOf(body), body.ReceiptHandle);
    return {};
  }

  deleteMessageBatch(body: WireRequest<DeleteMessageBatchRequest>): DeleteMessageBatchResult {
    const queue = this.queues.queueOf(body);
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
    const now = this.clock.now();
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
    this.store.commit({
      op: 'changeVisibility',
      key: queue.key,
      messageId: message.messageId,
      visibleAt: now + seconds * 1000,
    });
  }

  changeMessageVisibility(body: WireRequest<ChangeMessageVisibilityRequest>): object {
    this.changeVisibilityOne(this.queues.queueOf(body), body);
    return {};
  }

  changeMessageVisibilityBatch(
    body: WireRequest<ChangeMessageVisibilityBatchRequest>,
  ): ChangeMessageVisibilityBatchResult {
    const queue = this.queues.queueOf(body);
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
  private eachEntry<Success extends object>(
    entries: readonly Body[],
    run: (entry: Body) => Success,
  ): { Successful: (Success & { Id: string })[]; Failed: BatchResultErrorEntry[] } {
    const successful: (Success & { Id: string })[] = [];
    const failed: BatchResultErrorEntry[] = [];
    for (const entry of entries) {
      try {
        successful.push({ Id: String(entry.Id), ...run(entry) });
      } catch (error) {
        if (!(error instanceof Error && 'queryCode' in error)) throw error;
        failed.push({
          Id: String(entry.Id),
          SenderFault: true,
          Code: (error as Error & { queryCode: string }).queryCode,
          Message: error.message,
        });
      }
    }
    return { Successful: successful, Failed: failed };
  }
}

/** Receipt handles name the queue, the message and the receive, so a stale one can be told apart. */
function encodeReceipt(queue: Queue, message: StoredMessage): string {
  return Buffer.from(`${queue.key}\n${message.messageId}\n${message.receipt ?? ''}`, 'utf8').toString(
    'base64url',
  );
}
