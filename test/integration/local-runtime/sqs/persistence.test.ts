/**
 * The SQS service with a data directory: queues, messages, in-flight state, receipt handles, FIFO
 * deduplication and sequence numbers survive a restart (the runtime's `--data DIR`).
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ListQueuesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { type SqsWorld, sleep, startSqsWorld } from './harness';

describe('SQS service: persistence across a restart', () => {
  let dataDirectory: string;
  let world: SqsWorld | undefined;
  beforeAll(() => {
    dataDirectory = mkdtempSync(join(tmpdir(), 'sqs-journal-'));
  });
  afterAll(async () => {
    await world?.stop();
    rmSync(dataDirectory, { recursive: true, force: true });
  });

  /** The same queue URL on the restarted service (its port changed; account and name did not). */
  const onRestarted = (url: string, restarted: SqsWorld) =>
    `${restarted.server.endpoint}${new URL(url).pathname}`;

  it('keeps queues, messages, in-flight state, deduplication and sequence numbers', async () => {
    const before = await startSqsWorld({ dataDirectory });
    world = before;
    const standard = await before.queue('kept', { VisibilityTimeout: '2' });
    const fifo = await before.queue('kept.fifo', { VisibilityTimeout: '30' });
    for (const body of ['s1', 's2', 's3']) {
      await before.sqs.send(new SendMessageCommand({ QueueUrl: standard, MessageBody: body }));
    }
    const { Messages: [inFlight] = [] } = await before.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: standard, MaxNumberOfMessages: 1 }),
    );
    const { Messages: [deleted] = [] } = await before.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: standard, MaxNumberOfMessages: 1 }),
    );
    await before.sqs.send(
      new DeleteMessageCommand({ QueueUrl: standard, ReceiptHandle: deleted?.ReceiptHandle }),
    );
    const fifoSend = (MessageBody: string) =>
      world?.sqs.send(
        new SendMessageCommand({
          QueueUrl: onRestarted(fifo, world),
          MessageBody,
          MessageGroupId: 'g',
          MessageDeduplicationId: MessageBody,
        }),
      );
    const first = await fifoSend('f1');
    await fifoSend('f2');
    const { Messages: [fifoInFlight] = [] } = await before.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: fifo, MaxNumberOfMessages: 1 }),
    );
    expect(fifoInFlight?.Body).toBe('f1');
    await before.stop();

    const after = await startSqsWorld({ dataDirectory });
    world = after;
    const attributes = (url: string) =>
      after.sqs
        .send(new GetQueueAttributesCommand({ QueueUrl: onRestarted(url, after), AttributeNames: ['All'] }))
        .then((output) => output.Attributes ?? {});
    expect(await attributes(standard)).toMatchObject({
      VisibilityTimeout: '2',
      ApproximateNumberOfMessages: '1',
      ApproximateNumberOfMessagesNotVisible: '1',
    });
    // The FIFO group is still blocked by the message in flight before the restart.
    expect(
      (await after.sqs.send(new ReceiveMessageCommand({ QueueUrl: onRestarted(fifo, after) }))).Messages,
    ).toBeUndefined();
    // A duplicate of a message sent before the restart is still recognised.
    const duplicate = await fifoSend('f1');
    expect(duplicate?.MessageId).toBe(first?.MessageId);
    const third = await fifoSend('f3');
    expect(BigInt(third?.SequenceNumber ?? '0')).toBeGreaterThan(BigInt(first?.SequenceNumber ?? '0'));
    // The in-flight message comes back when its visibility timeout (2 s from its receive) ends.
    await sleep(2100);
    const { Messages = [] } = await after.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: onRestarted(standard, after),
        MaxNumberOfMessages: 10,
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
      }),
    );
    const byBody = new Map(Messages.map((message) => [message.Body, message]));
    expect([...byBody.keys()].sort()).toEqual([inFlight?.Body, 's3'].sort());
    expect(byBody.get(inFlight?.Body)?.Attributes?.ApproximateReceiveCount).toBe('2');
    // The FIFO receipt handle from before the restart still deletes its message.
    await after.sqs.send(
      new DeleteMessageCommand({
        QueueUrl: onRestarted(fifo, after),
        ReceiptHandle: fifoInFlight?.ReceiptHandle,
      }),
    );
    const { Messages: fifoNext = [] } = await after.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: onRestarted(fifo, after), MaxNumberOfMessages: 10 }),
    );
    expect(fifoNext.map((message) => message.Body)).toEqual(['f2', 'f3']);
  });

  it('starts from a journal whose last line was torn by a killed process (after the test above)', async () => {
    await world?.stop();
    const journal = join(dataDirectory, 'journal.jsonl');
    const lines = readFileSync(journal, 'utf8').trim().split('\n').length;
    appendFileSync(journal, '{"op":"send","key":"123456789012/kept","mess');
    world = await startSqsWorld({ dataDirectory });
    const { QueueUrls = [] } = await world.sqs.send(new ListQueuesCommand({ QueueNamePrefix: 'kept' }));
    expect(QueueUrls).toHaveLength(2);
    // Compacted at start: the torn line is gone and the journal holds the live state only.
    expect(readFileSync(journal, 'utf8').endsWith('\n')).toBe(true);
    expect(readFileSync(journal, 'utf8').trim().split('\n').length).toBeLessThanOrEqual(lines);
  });
});
