/**
 * FIFO queues of the runtime's SQS service, each test against a statement of the SQS documentation
 * (quoted in the test name or beside it): message groups, order, deduplication, sequence numbers,
 * visibility and redrive.
 */
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { type SqsWorld, sleep, startSqsWorld } from './harness';

describe('SQS service: FIFO queues', () => {
  let world: SqsWorld;
  beforeAll(async () => {
    world = await startSqsWorld();
  });
  afterAll(() => world.stop());

  const send = (QueueUrl: string, MessageBody: string, group: string, extra: Record<string, unknown> = {}) =>
    world.sqs.send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody,
        MessageGroupId: group,
        MessageDeduplicationId: `${group}-${MessageBody}`,
        ...extra,
      }),
    );
  const receive = (QueueUrl: string, extra: Record<string, unknown> = {}): Promise<Message[]> =>
    world.sqs
      .send(
        new ReceiveMessageCommand({
          QueueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
          MessageSystemAttributeNames: ['All'],
          ...extra,
        }),
      )
      .then((output) => output.Messages ?? []);
  const bodies = (messages: readonly Message[]) => messages.map((message) => message.Body);
  const remove = (QueueUrl: string, messages: readonly Message[]) =>
    Promise.all(
      messages.map((message) =>
        world.sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: message.ReceiptHandle })),
      ),
    );

  it('never hands out a message of a group while an earlier one is in flight ("Inflight messages block delivery of available messages within the same message group")', async () => {
    const QueueUrl = await world.queue('blocked.fifo');
    for (const body of ['a1', 'a2', 'a3']) await send(QueueUrl, body, 'a');
    const [first] = await receive(QueueUrl, { MaxNumberOfMessages: 1 });
    expect(first?.Body).toBe('a1');
    // local-aws-sqs answered a2 here; SQS answers nothing until a1 is deleted or visible again.
    expect(await receive(QueueUrl)).toEqual([]);
    expect(await receive(QueueUrl, { WaitTimeSeconds: 1 })).toEqual([]);
    await remove(QueueUrl, [first as Message]);
    expect(bodies(await receive(QueueUrl, { MaxNumberOfMessages: 1 }))).toEqual(['a2']);
  });

  it('keeps order within a group and returns several messages of a group in one receive, in order ("SQS returns as many messages with the same message group ID as possible")', async () => {
    const QueueUrl = await world.queue('ordered.fifo');
    const sent = ['g1', 'g2', 'g3', 'g4', 'g5', 'g6'];
    await world.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: sent.map((body, index) => ({
          Id: `e${index}`,
          MessageBody: body,
          MessageGroupId: 'g',
          MessageDeduplicationId: body,
        })),
      }),
    );
    const messages = await receive(QueueUrl);
    expect(bodies(messages)).toEqual(sent);
    expect(messages.every((message) => message.Attributes?.MessageGroupId === 'g')).toBe(true);
  });

  it('lets messages of other groups flow while one group is blocked ("Messages with different message group IDs ... can be received")', async () => {
    const QueueUrl = await world.queue('groups.fifo');
    await send(QueueUrl, 'a1', 'a');
    await send(QueueUrl, 'a2', 'a');
    await send(QueueUrl, 'b1', 'b');
    await send(QueueUrl, 'c1', 'c');
    await send(QueueUrl, 'b2', 'b');
    const [a1] = await receive(QueueUrl, { MaxNumberOfMessages: 1 });
    expect(a1?.Body).toBe('a1');
    // Group a is blocked; b comes whole (its messages together, in order), then c.
    expect(bodies(await receive(QueueUrl))).toEqual(['b1', 'b2', 'c1']);
  });

  it('releases the group when the visibility timeout expires, and counts that receive for the redrive ("the message becomes visible again and can be received")', async () => {
    const deadLetters = await world.queue('fifo-dlq.fifo');
    const { Attributes } = await world.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: deadLetters, AttributeNames: ['QueueArn'] }),
    );
    const QueueUrl = await world.queue('expiring.fifo', {
      VisibilityTimeout: '1',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes?.QueueArn, maxReceiveCount: 2 }),
    });
    await send(QueueUrl, 'x1', 'x');
    await send(QueueUrl, 'x2', 'x');
    const [firstTry] = await receive(QueueUrl, { MaxNumberOfMessages: 1 });
    expect(firstTry?.Attributes?.ApproximateReceiveCount).toBe('1');
    expect(await receive(QueueUrl)).toEqual([]);
    await sleep(1100);
    const [secondTry] = await receive(QueueUrl, { MaxNumberOfMessages: 1 });
    expect(secondTry).toMatchObject({
      Body: 'x1',
      Attributes: expect.objectContaining({ ApproximateReceiveCount: '2' }),
    });
    await sleep(1100);
    // A third receive would pass maxReceiveCount 2: x1 goes to the dead-letter queue and x2 follows.
    expect(bodies(await receive(QueueUrl))).toEqual(['x2']);
    const [dead] = await receive(deadLetters);
    expect(dead).toMatchObject({
      Body: 'x1',
      Attributes: expect.objectContaining({ MessageGroupId: 'x', MessageDeduplicationId: 'x-x1' }),
    });
  });

  it('refuses a standard dead-letter queue for a FIFO queue ("The dead-letter queue of a FIFO queue must also be a FIFO queue")', async () => {
    const standard = await world.queue('standard-dlq');
    const { Attributes } = await world.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: standard, AttributeNames: ['QueueArn'] }),
    );
    await expect(
      world.queue('mismatched.fifo', {
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes?.QueueArn, maxReceiveCount: 3 }),
      }),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
  });

  it('de-duplicates by MessageDeduplicationId: a duplicate send succeeds but delivers nothing new, even after the first was deleted ("accepted successfully but aren\'t delivered during the 5-minute deduplication interval")', async () => {
    const QueueUrl = await world.queue('dedup.fifo');
    const first = await send(QueueUrl, 'once', 'd', { MessageDeduplicationId: 'key-1' });
    const duplicate = await send(QueueUrl, 'once again', 'd', { MessageDeduplicationId: 'key-1' });
    expect(duplicate.MessageId).toBe(first.MessageId);
    expect(duplicate.SequenceNumber).toBe(first.SequenceNumber);
    const messages = await receive(QueueUrl);
    expect(bodies(messages)).toEqual(['once']);
    await remove(QueueUrl, messages);
    await send(QueueUrl, 'once more', 'd', { MessageDeduplicationId: 'key-1' });
    expect(await receive(QueueUrl)).toEqual([]);
  });

  it('de-duplicates by the SHA-256 of the body with ContentBasedDeduplication ("using the body of the message (but not the attributes)")', async () => {
    const QueueUrl = await world.queue('content.fifo', { ContentBasedDeduplication: 'true' });
    const plain = (MessageBody: string, attribute: string) =>
      world.sqs.send(
        new SendMessageCommand({
          QueueUrl,
          MessageBody,
          MessageGroupId: 'c',
          MessageAttributes: { a: { DataType: 'String', StringValue: attribute } },
        }),
      );
    await plain('same body', 'first');
    await plain('same body', 'different attributes');
    await plain('other body', 'first');
    const messages = await receive(QueueUrl, { MessageAttributeNames: ['All'] });
    expect(bodies(messages)).toEqual(['same body', 'other body']);
    expect(messages[0]?.Attributes?.MessageDeduplicationId).toMatch(/^[0-9a-f]{64}$/);
    // An explicit id still wins over the content.
    await send(QueueUrl, 'same body', 'c', { MessageDeduplicationId: 'explicit' });
    await remove(QueueUrl, messages);
    expect(bodies(await receive(QueueUrl))).toEqual(['same body']);
  });

  it('scopes deduplication to the message group with DeduplicationScope messageGroup', async () => {
    const QueueUrl = await world.queue('scoped.fifo', {
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
    });
    await send(QueueUrl, 'm', 'g1', { MessageDeduplicationId: 'shared' });
    await send(QueueUrl, 'm', 'g2', { MessageDeduplicationId: 'shared' });
    await send(QueueUrl, 'm', 'g2', { MessageDeduplicationId: 'shared' });
    expect((await receive(QueueUrl)).map((message) => message.Attributes?.MessageGroupId)).toEqual([
      'g1',
      'g2',
    ]);
  });

  it('requires MessageGroupId and a deduplication id, and refuses a per-message DelaySeconds ("You can\'t set DelaySeconds per message ... for FIFO queues")', async () => {
    const QueueUrl = await world.queue('strict.fifo');
    await expect(
      world.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x', MessageDeduplicationId: 'd' })),
    ).rejects.toMatchObject({ name: 'MissingParameter' });
    await expect(
      world.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x', MessageGroupId: 'g' })),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(send(QueueUrl, 'x', 'g', { DelaySeconds: 5 })).rejects.toMatchObject({
      name: 'InvalidParameterValue',
    });
    await expect(send(QueueUrl, 'x', 'g'.repeat(129))).rejects.toMatchObject({
      name: 'InvalidParameterValue',
    });
  });

  it('numbers messages with increasing 128-bit SequenceNumbers ("SequenceNumber continues to increase for a particular MessageGroupId")', async () => {
    const QueueUrl = await world.queue('sequence.fifo');
    const numbers: bigint[] = [];
    for (const body of ['s1', 's2', 's3']) {
      const { SequenceNumber } = await send(QueueUrl, body, 's');
      expect(SequenceNumber).toMatch(/^\d{20}$/);
      numbers.push(BigInt(SequenceNumber ?? '0'));
    }
    expect(numbers).toEqual([...numbers].sort((left, right) => (left < right ? -1 : 1)));
    expect(new Set(numbers).size).toBe(3);
    const received = await receive(QueueUrl);
    expect(received.map((message) => BigInt(message.Attributes?.SequenceNumber ?? '0'))).toEqual(numbers);
  });

  it('expires a receipt handle with its visibility timeout ("The receipt handle has expired")', async () => {
    const QueueUrl = await world.queue('receipts.fifo', { VisibilityTimeout: '1' });
    await send(QueueUrl, 'r1', 'r');
    const [first] = await receive(QueueUrl);
    await sleep(1100);
    await expect(
      world.sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: first?.ReceiptHandle })),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue', message: expect.stringMatching(/expired/) });
    const [second] = await receive(QueueUrl, { VisibilityTimeout: 30 });
    await expect(
      world.sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl,
          ReceiptHandle: first?.ReceiptHandle,
          VisibilityTimeout: 0,
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await world.sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: second?.ReceiptHandle }));
    expect(await receive(QueueUrl)).toEqual([]);
  });

  it('answers a waiting long poll when the blocking message of a group is deleted', async () => {
    const QueueUrl = await world.queue('wake.fifo');
    await send(QueueUrl, 'w1', 'w');
    await send(QueueUrl, 'w2', 'w');
    const [w1] = await receive(QueueUrl, { MaxNumberOfMessages: 1 });
    const waiting = receive(QueueUrl, { WaitTimeSeconds: 20 });
    await sleep(200);
    const started = Date.now();
    await remove(QueueUrl, [w1 as Message]);
    expect(bodies(await waiting)).toEqual(['w2']);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
