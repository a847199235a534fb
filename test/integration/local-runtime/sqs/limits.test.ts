/**
 * SQS's quotas as the runtime's SQS service enforces them (lib/local-runtime/sqs/limits.ts), one test
 * per quota, each naming the AWS page that states it, over the real SDK: what is just within a limit
 * is accepted, what is just past it is refused with AWS's error.
 */
import { SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { type SqsWorld, startSqsWorld } from './harness';

const MIB = 1_048_576;

describe('SQS service: AWS quotas', () => {
  let world: SqsWorld;
  beforeAll(async () => {
    world = await startSqsWorld();
  });
  afterAll(() => world.stop());

  // https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_CreateQueue.html
  // (MaximumMessageSize: "up to 1,048,576 bytes (1 MiB). Default: 1,048,576 bytes (1 MiB)")
  it('takes a message of 1 MiB on a queue with the default MaximumMessageSize, and refuses one byte more', async () => {
    const QueueUrl = await world.queue('default-size');
    const sent = await world.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x'.repeat(MIB) }));
    expect(sent.MessageId).toBeDefined();
    await expect(
      world.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x'.repeat(MIB + 1) })),
    ).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      message: `One or more parameters are invalid. Reason: Message must be shorter than ${MIB} bytes.`,
    });
  });

  // https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessageBatch.html
  // ("the maximum total payload size (the sum of the individual lengths of all of the batched
  // messages) ... 1 MiB"): message attributes count towards a message's length.
  it('refuses a SendMessageBatch whose bodies and message attributes together pass 1 MiB (BatchRequestTooLong)', async () => {
    const QueueUrl = await world.queue('batch-size');
    const half = MIB / 2 - 1_000;
    const entry = (Id: string, attributeValue: string) => ({
      Id,
      MessageBody: 'x'.repeat(half),
      MessageAttributes: { pad: { DataType: 'String', StringValue: attributeValue } },
    });
    // Bodies alone are 2 000 bytes under the limit; the attributes take the batch past it.
    await expect(
      world.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl,
          Entries: [entry('a', 'y'.repeat(1_500)), entry('b', 'y'.repeat(1_500))],
        }),
      ),
    ).rejects.toMatchObject({ name: 'BatchRequestTooLong' });
    const within = await world.sqs.send(
      new SendMessageBatchCommand({ QueueUrl, Entries: [entry('a', 'y'), entry('b', 'y')] }),
    );
    expect(within.Successful?.map((sent) => sent.Id)).toEqual(['a', 'b']);
  });

  // https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html
  // ("A single message batch request can include a maximum of 10 messages"; batched message ids "up
  // to 80 characters ... alphanumeric characters, hyphens (-), and underscores (_)")
  it('refuses an eleventh batch entry and a batch entry id past 80 characters', async () => {
    const QueueUrl = await world.queue('batch-count');
    const send = (Entries: { Id: string; MessageBody: string }[]) =>
      world.sqs.send(new SendMessageBatchCommand({ QueueUrl, Entries }));
    const entries = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ Id: `m${index}`, MessageBody: 'x' }));
    expect((await send(entries(10))).Successful).toHaveLength(10);
    await expect(send(entries(11))).rejects.toMatchObject({ name: 'TooManyEntriesInBatchRequest' });
    expect((await send([{ Id: 'i'.repeat(80), MessageBody: 'x' }])).Successful).toHaveLength(1);
    await expect(send([{ Id: 'i'.repeat(81), MessageBody: 'x' }])).rejects.toMatchObject({
      name: 'InvalidBatchEntryId',
    });
  });

  // https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html
  // (MessageGroupId and MessageDeduplicationId: 128 characters, "alphanumeric characters and
  // punctuation (!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~)")
  it('takes FIFO group and deduplication ids of 128 alphanumerics and punctuation, and refuses longer ones or other characters', async () => {
    const QueueUrl = await world.queue('ids.fifo');
    const send = (MessageGroupId: string, MessageDeduplicationId: string) =>
      world.sqs.send(
        new SendMessageCommand({ QueueUrl, MessageBody: 'x', MessageGroupId, MessageDeduplicationId }),
      );
    const punctuation = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
    const longest = `${punctuation}${'a'.repeat(128 - punctuation.length)}`;
    expect((await send(longest, longest)).MessageId).toBeDefined();
    for (const [group, deduplication, parameter] of [
      [`${longest}b`, 'd', 'MessageGroupId'],
      ['g', `${longest}b`, 'MessageDeduplicationId'],
      ['with space', 'd', 'MessageGroupId'],
      ['g', 'naïve', 'MessageDeduplicationId'],
    ] as const) {
      await expect(send(group, deduplication)).rejects.toMatchObject({
        name: 'InvalidParameterValue',
        message: expect.stringContaining(
          `${parameter} can only include alphanumeric and punctuation characters. 1 to 128 in length.`,
        ),
      });
    }
  });
});
