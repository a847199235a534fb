/**
 * One queue's state: its attributes and messages, and the rules deciding which messages a receive
 * may hand out (delays, visibility, retention, and FIFO message groups). Pure in-memory state; the
 * service changes it only through journal records (see journal.ts), so a replay rebuilds it.
 */
import type { RuntimeClock } from '../clock';
import type { MessageAttributeValue } from './md5';
import { isFifoName, parseRedrivePolicy, type RedrivePolicy } from './queue-attributes';

export interface StoredMessage {
  readonly messageId: string;
  readonly body: string;
  readonly messageAttributes: Readonly<Record<string, MessageAttributeValue>>;
  /** Message system attributes given at send (AWSTraceHeader). */
  readonly systemAttributes: Readonly<Record<string, MessageAttributeValue>>;
  readonly senderId: string;
  readonly sentAt: number;
  /** Start of the retention period: the send, or the move to a FIFO dead-letter queue. */
  enqueuedAt: number;
  /** End of the delivery delay. */
  availableAt: number;
  /** End of the current visibility timeout (0 before the first receive). */
  visibleAt: number;
  /** When the latest receive happened. */
  receivedAt: number;
  receiveCount: number;
  firstReceiveAt?: number;
  /** Nonce of the latest receive: only its receipt handle is current. */
  receipt?: string;
  groupId?: string;
  deduplicationId?: string;
  sequenceNumber?: string;
  /** Set on messages moved to this queue by a redrive policy. */
  deadLetterSourceArn?: string;
}

/** A FIFO send remembered for the 5-minute deduplication interval. */
export interface DeduplicationEntry {
  readonly messageId: string;
  readonly sequenceNumber: string;
  readonly expiresAt: number;
}

export type MessageState = 'delayed' | 'inflight' | 'available';

export const DEDUPLICATION_INTERVAL_MILLIS = 5 * 60 * 1000;

export class Queue {
  /** In send order (Map keeps insertion order): FIFO order and best-effort order of standard queues. */
  readonly messages = new Map<string, StoredMessage>();
  readonly deduplication = new Map<string, DeduplicationEntry>();
  tags: Record<string, string> = {};
  lastPurgeAt?: number;
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly accountId: string,
    readonly name: string,
    public attributes: Record<string, string>,
    readonly createdAt: number,
    public modifiedAt: number,
  ) {}

  get key(): string {
    return queueKey(this.accountId, this.name);
  }

  get fifo(): boolean {
    return isFifoName(this.name);
  }

  setting(name: string): number {
    return Number(this.attributes[name] ?? 0);
  }

  redrivePolicy(): RedrivePolicy | undefined {
    const text = this.attributes.RedrivePolicy;
    return text ? parseRedrivePolicy(text) : undefined;
  }

  deduplicationScope(groupId: string | undefined, deduplicationId: string): string {
    return this.attributes.DeduplicationScope === 'messageGroup'
      ? `${groupId ?? ''}\n${deduplicationId}`
      : deduplicationId;
  }

  stateOf(message: StoredMessage, now: number): MessageState {
    if (message.availableAt > now) return 'delayed';
    if (message.visibleAt > now) return 'inflight';
    return 'available';
  }

  /** Drops messages past the retention period and expired deduplication entries (both follow from time). */
  expire(now: number): void {
    const retentionMillis = this.setting('MessageRetentionPeriod') * 1000;
    for (const [id, message] of this.messages) {
      if (message.enqueuedAt + retentionMillis <= now) this.messages.delete(id);
    }
    for (const [scope, entry] of this.deduplication) {
      if (entry.expiresAt <= now) this.deduplication.delete(scope);
    }
  }

  counts(now: number): Record<MessageState, number> {
    const counts: Record<MessageState, number> = { delayed: 0, inflight: 0, available: 0 };
    for (const message of this.messages.values()) counts[this.stateOf(message, now)] += 1;
    return counts;
  }

  /**
   * The messages a receive may take, in the order it should take them. Standard queues: every
   * available message. FIFO queues: nothing from a group with a message in flight; within a group,
   * messages in order up to the first one not available; groups in the order of their oldest
   * message, each group's messages together (SQS "returns as many messages with the same message
   * group ID as possible").
   */
  deliverable(now: number): StoredMessage[] {
    if (!this.fifo) {
      return [...this.messages.values()].filter((message) => this.stateOf(message, now) === 'available');
    }
    const blocked = new Set<string>();
    for (const message of this.messages.values()) {
      if (this.stateOf(message, now) === 'inflight') blocked.add(message.groupId ?? '');
    }
    const groups = new Map<string, StoredMessage[]>();
    for (const message of this.messages.values()) {
      const group = message.groupId ?? '';
      if (blocked.has(group)) continue;
      if (this.stateOf(message, now) !== 'available') {
        blocked.add(group);
        continue;
      }
      const list = groups.get(group) ?? [];
      list.push(message);
      groups.set(group, list);
    }
    return [...groups.values()].flat();
  }

  /** The next moment a delay or visibility timeout ends, when a waiting receive should look again. */
  nextChangeAt(now: number): number | undefined {
    let next: number | undefined;
    for (const message of this.messages.values()) {
      for (const at of [message.availableAt, message.visibleAt]) {
        if (at > now && (next === undefined || at < next)) next = at;
      }
    }
    return next;
  }

  /** Wakes every waiting receive (something changed). */
  notify(): void {
    for (const wake of [...this.waiters]) wake();
  }

  /**
   * Resolves on the next change of this queue, at `until` (epoch millis on `clock`), or on
   * `signal`, whichever comes first. The waiting request parks on the clock meanwhile (a virtual
   * clock may move), and is resumed before it wakes.
   */
  waitForChange(until: number, clock: RuntimeClock, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const parked = clock.park();
      const wake = () => {
        timer.cancel();
        this.waiters.delete(wake);
        signal?.removeEventListener('abort', wake);
        parked.resume();
        resolve();
      };
      const timer = clock.setTimer(wake, until - clock.now());
      this.waiters.add(wake);
      signal?.addEventListener('abort', wake, { once: true });
    });
  }
}

export function queueKey(accountId: string, queueName: string): string {
  return `${accountId}/${queueName}`;
}
