/**
 * Which messages a receive may take, on the queue model with explicit clocks (retention is at least a
 * minute, too long to wait for in a test).
 */
import { Queue, type StoredMessage } from '../../../../lib/local-runtime/sqs/queue';
import { initialAttributes } from '../../../../lib/local-runtime/sqs/queue-attributes';

const T0 = 1_700_000_000_000;

function message(id: string, extra: Partial<StoredMessage> = {}): StoredMessage {
  return {
    messageId: id,
    body: id,
    messageAttributes: {},
    systemAttributes: {},
    senderId: '000000000000',
    sentAt: T0,
    enqueuedAt: T0,
    availableAt: T0,
    visibleAt: 0,
    receivedAt: 0,
    receiveCount: 0,
    ...extra,
  };
}

function queueWith(name: string, messages: StoredMessage[], attributes: Record<string, string> = {}): Queue {
  const queue = new Queue(
    '000000000000',
    name,
    initialAttributes(attributes, name.endsWith('.fifo')),
    T0,
    T0,
  );
  for (const item of messages) queue.messages.set(item.messageId, item);
  return queue;
}

const ids = (messages: readonly StoredMessage[]) => messages.map((item) => item.messageId);

describe('SQS queue model', () => {
  it('drops messages at the end of the retention period, counted from the enqueue time', () => {
    const queue = queueWith('q', [message('old'), message('new', { enqueuedAt: T0 + 30_000 })], {
      MessageRetentionPeriod: '60',
    });
    queue.expire(T0 + 59_999);
    expect(ids([...queue.messages.values()])).toEqual(['old', 'new']);
    queue.expire(T0 + 60_000);
    expect(ids([...queue.messages.values()])).toEqual(['new']);
  });

  it('forgets a FIFO deduplication id at the end of its 5-minute interval', () => {
    const queue = queueWith('q.fifo', []);
    queue.deduplication.set('key', { messageId: 'm', sequenceNumber: '1', expiresAt: T0 + 300_000 });
    queue.expire(T0 + 299_999);
    expect(queue.deduplication.has('key')).toBe(true);
    queue.expire(T0 + 300_000);
    expect(queue.deduplication.has('key')).toBe(false);
  });

  it('counts available, in-flight and delayed messages apart', () => {
    const queue = queueWith('q', [
      message('a'),
      message('b', { visibleAt: T0 + 10, receiveCount: 1 }),
      message('c', { availableAt: T0 + 10 }),
    ]);
    expect(queue.counts(T0)).toEqual({ available: 1, inflight: 1, delayed: 1 });
    expect(queue.counts(T0 + 10)).toEqual({ available: 3, inflight: 0, delayed: 0 });
    expect(queue.nextChangeAt(T0)).toBe(T0 + 10);
  });

  it('FIFO: a group with a message in flight gives nothing, even a message before it made visible again', () => {
    const queue = queueWith('q.fifo', [
      message('a1', { groupId: 'a', receiveCount: 1, visibleAt: 0 }),
      message('a2', { groupId: 'a', receiveCount: 1, visibleAt: T0 + 1000 }),
      message('b1', { groupId: 'b' }),
    ]);
    expect(ids(queue.deliverable(T0))).toEqual(['b1']);
  });

  it('FIFO: a delayed message holds back the rest of its group; groups come together, oldest group first', () => {
    const queue = queueWith(
      'q.fifo',
      [
        message('b1', { groupId: 'b' }),
        message('a1', { groupId: 'a' }),
        message('b2', { groupId: 'b' }),
        message('c1', { groupId: 'c', availableAt: T0 + 1000 }),
        message('c2', { groupId: 'c' }),
        message('a2', { groupId: 'a' }),
      ],
      { FifoQueue: 'true' },
    );
    expect(ids(queue.deliverable(T0))).toEqual(['b1', 'b2', 'a1', 'a2']);
    expect(ids(queue.deliverable(T0 + 1000))).toEqual(['b1', 'b2', 'a1', 'a2', 'c1', 'c2']);
  });
});
