/**
 * The SQS service's state, apart from its wire API (service.ts): the queues and their messages, the
 * FIFO sequence numbers, and the journal that persists them. Every change of state goes through
 * `commit` (apply in memory, append to the journal when persisted), and `apply` is the one place
 * state changes, from a live request or from the journal at start, so a restart replays exactly
 * what happened.
 */
import type { RuntimeClock } from '../clock';
import { Journal, type JournalRecord } from './journal';
import { Queue, queueKey } from './queue';

/** Past this many appended records, the journal is rewritten as the records of the current state. */
const COMPACTION_THRESHOLD = 100_000;

/** One queue's figures for the AWS/SQS metrics (see SqsService.queueFigures). */
export interface QueueFigures {
  readonly accountId: string;
  readonly queueName: string;
  /** ApproximateNumberOfMessagesVisible. */
  readonly visibleMessages: number;
  /** ApproximateAgeOfOldestMessage (0 for an empty queue). */
  readonly oldestMessageAgeSeconds: number;
}

export class SqsQueueStore {
  private readonly queues = new Map<string, Queue>();
  private nextSequence: bigint;
  private readonly journal?: Journal;
  private stopping = false;

  /** @param dataDirectory keep queues and messages here across restarts (a journal); in memory without it. */
  constructor(
    dataDirectory: string | undefined,
    private readonly clock: RuntimeClock,
  ) {
    this.nextSequence = BigInt(clock.now()) * 10_000_000n;
    if (dataDirectory) {
      const { journal, records } = Journal.open(dataDirectory);
      for (const record of records) this.apply(record);
      this.journal = journal;
      this.compact();
    }
  }

  /** Whether stop() was called (long polls return, commits are refused). */
  get stopped(): boolean {
    return this.stopping;
  }

  get(key: string): Queue | undefined {
    return this.queues.get(key);
  }

  all(): Queue[] {
    return [...this.queues.values()];
  }

  /** The queue an ARN names, if it exists. */
  byArn(arn: string): Queue | undefined {
    const [, , service, , accountId, name] = arn.split(':');
    return service === 'sqs' && accountId && name ? this.queues.get(queueKey(accountId, name)) : undefined;
  }

  /** The next FIFO sequence number (20 digits, increasing across restarts). */
  takeSequenceNumber(): string {
    const value = this.nextSequence;
    this.nextSequence += 1n;
    return value.toString().padStart(20, '0');
  }

  /** Per queue: messages available to a receive, and the age of the oldest message kept. */
  queueFigures(now: number): QueueFigures[] {
    return this.all().map((queue) => {
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
    this.stopping = true;
    for (const queue of this.queues.values()) queue.notify();
    this.journal?.close();
  }

  commit(record: JournalRecord): void {
    if (this.stopping) throw new Error('The SQS service is stopping');
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
    const now = this.clock.now();
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
