/**
 * SNS's quotas as the runtime's SNS enforces them (lib/local-runtime/sns/limits.ts), one test per
 * quota, each naming the AWS page that states it: the real SNSClient against the runtime's SNS API
 * (the Query protocol server the runtime starts), with topics whose deliveries are recorded (what is
 * delivered is beside the point here: what is refused at publish is).
 */
import {
  BatchRequestTooLongException,
  InvalidBatchEntryIdException,
  InvalidParameterException,
  PublishBatchCommand,
  type PublishBatchRequestEntry,
  PublishCommand,
  SNSClient,
} from '@aws-sdk/client-sns';
import { startAwsQueryServer } from '../../../../lib/local-runtime/protocol/aws-query-server';
import type { RunningServer } from '../../../../lib/local-runtime/protocol/http-server';
import { LocalSns } from '../../../../lib/local-runtime/sns';
import { snsApiOperations } from '../../../../lib/local-runtime/sns/api';
import { TEST_CREDENTIALS, TEST_REGION } from '../../../support/emulators';

const KIB_256 = 262_144;
const TOPIC = 'arn:aws:sns:us-east-1:000000000000:plain';
const FIFO_TOPIC = 'arn:aws:sns:us-east-1:000000000000:orders.fifo';
const QUEUE = 'arn:aws:sqs:us-east-1:000000000000:inbox';
const FIFO_QUEUE = 'arn:aws:sqs:us-east-1:000000000000:inbox.fifo';

describe('SNS API: AWS quotas', () => {
  let server: RunningServer;
  let sns: SNSClient;
  const delivered: string[] = [];

  beforeAll(async () => {
    const topics = new LocalSns(
      {
        sendToQueue: async (_queueArn, body) => {
          delivered.push(body);
        },
        invokeAsync: async () => undefined,
        onProblem: (message) => {
          throw new Error(message);
        },
      },
      TEST_REGION,
    );
    topics.addTopic(TOPIC);
    topics.addTopic(FIFO_TOPIC, { fifo: true, contentBasedDeduplication: true });
    const subscription = { protocol: 'sqs', rawMessageDelivery: true } as const;
    topics.subscribe(TOPIC, { ...subscription, subscriptionArn: `${TOPIC}:s`, endpoint: QUEUE });
    topics.subscribe(FIFO_TOPIC, {
      ...subscription,
      subscriptionArn: `${FIFO_TOPIC}:s`,
      endpoint: FIFO_QUEUE,
    });
    server = await startAwsQueryServer('SNS', snsApiOperations(topics, { accountId: '000000000000' }), {
      xmlNamespace: 'http://sns.amazonaws.com/doc/2010-03-31/',
    });
    sns = new SNSClient({
      endpoint: server.endpoint,
      region: TEST_REGION,
      credentials: TEST_CREDENTIALS,
      maxAttempts: 1,
    });
  });
  afterAll(async () => {
    sns.destroy();
    await server.stop();
  });

  // https://docs.aws.amazon.com/sns/latest/dg/large-message-payloads.html ("By default, topics
  // accept messages up to 256 KiB"; "Amazon SNS validates the combined size of the message body and
  // message attributes ... returns an InvalidParameter error")
  it('takes a publish of 256 KiB, message and attributes together, and refuses one byte more with InvalidParameter', async () => {
    const attribute = { DataType: 'String', StringValue: 'v' };
    // "kind" + "String" + "v": 11 bytes of attributes.
    const within = 'x'.repeat(KIB_256 - 11);
    await sns.send(
      new PublishCommand({ TopicArn: TOPIC, Message: within, MessageAttributes: { kind: attribute } }),
    );
    expect(delivered.at(-1)).toBe(within);
    const refused = sns.send(
      new PublishCommand({ TopicArn: TOPIC, Message: `${within}x`, MessageAttributes: { kind: attribute } }),
    );
    await expect(refused).rejects.toThrow(InvalidParameterException);
    await expect(refused).rejects.toMatchObject({ message: 'Invalid parameter: Message too long' });
  });

  // https://docs.aws.amazon.com/sns/latest/api/API_PublishBatch.html ("the maximum total payload
  // size (the sum of the individual lengths of all of the batched messages) ... 256 KiB (262,144
  // bytes)")
  it('refuses a PublishBatch whose messages together pass 256 KiB with BatchRequestTooLong', async () => {
    const entries = (sizes: number[]): PublishBatchRequestEntry[] =>
      sizes.map((size, index) => ({ Id: `m${index}`, Message: 'x'.repeat(size) }));
    const within = await sns.send(
      new PublishBatchCommand({
        TopicArn: TOPIC,
        PublishBatchRequestEntries: entries([KIB_256 / 2, KIB_256 / 2]),
      }),
    );
    expect(within.Successful).toHaveLength(2);
    await expect(
      sns.send(
        new PublishBatchCommand({
          TopicArn: TOPIC,
          PublishBatchRequestEntries: entries([KIB_256 / 2, KIB_256 / 2 + 1]),
        }),
      ),
    ).rejects.toThrow(BatchRequestTooLongException);
  });

  // https://docs.aws.amazon.com/sns/latest/api/API_PublishBatchRequestEntry.html (Id: "up to 80
  // characters ... alphanumeric characters, hyphens(-), and underscores (_)")
  it('refuses a PublishBatch entry Id past 80 characters or with other characters with InvalidBatchEntryId', async () => {
    const publish = (Id: string) =>
      sns.send(
        new PublishBatchCommand({ TopicArn: TOPIC, PublishBatchRequestEntries: [{ Id, Message: 'x' }] }),
      );
    expect((await publish(`a-_${'b'.repeat(77)}`)).Successful).toHaveLength(1);
    await expect(publish('b'.repeat(81))).rejects.toThrow(InvalidBatchEntryIdException);
    await expect(publish('not valid!')).rejects.toThrow(InvalidBatchEntryIdException);
  });

  // https://docs.aws.amazon.com/sns/latest/api/API_Publish.html (MessageGroupId and
  // MessageDeduplicationId: "up to 128 alphanumeric characters (a-z, A-Z, 0-9) and punctuation")
  it('takes FIFO group and deduplication ids of 128 alphanumerics and punctuation, and refuses longer ones or other characters', async () => {
    const publish = (MessageGroupId: string, MessageDeduplicationId: string) =>
      sns.send(
        new PublishCommand({ TopicArn: FIFO_TOPIC, Message: 'x', MessageGroupId, MessageDeduplicationId }),
      );
    const punctuation = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
    const longest = `${punctuation}${'a'.repeat(128 - punctuation.length)}`;
    expect((await publish(longest, longest)).SequenceNumber).toBeDefined();
    for (const [group, deduplication, parameter] of [
      [`${longest}b`, 'd1', 'MessageGroupId'],
      ['g', `${longest}b`, 'MessageDeduplicationId'],
      ['with space', 'd2', 'MessageGroupId'],
      ['g', 'naïve', 'MessageDeduplicationId'],
    ] as const) {
      const refused = publish(group, deduplication);
      await expect(refused).rejects.toThrow(InvalidParameterException);
      await expect(refused).rejects.toMatchObject({
        message: expect.stringContaining(`Invalid parameter: ${parameter} Reason:`),
      });
    }
  });

  // https://docs.aws.amazon.com/sns/latest/api/API_PublishBatch.html ("Publishes up to 10 messages")
  it('refuses an eleventh PublishBatch entry with TooManyEntriesInBatchRequest', async () => {
    const entries = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ Id: `m${index}`, Message: 'x' }));
    expect(
      (await sns.send(new PublishBatchCommand({ TopicArn: TOPIC, PublishBatchRequestEntries: entries(10) })))
        .Successful,
    ).toHaveLength(10);
    await expect(
      sns.send(new PublishBatchCommand({ TopicArn: TOPIC, PublishBatchRequestEntries: entries(11) })),
    ).rejects.toMatchObject({ name: 'TooManyEntriesInBatchRequestException' });
  });
});
