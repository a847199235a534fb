/**
 * SNS topics of the runtime against a recording delivery: FIFO publish rules and deduplication,
 * message attributes in each delivery shape, filter policies, and dead-letter queues.
 */

import { AwsApiError } from '../../../../lib/local-runtime/protocol/aws-api-error';
import type { DeliveryOptions } from '../../../../lib/local-runtime/provisioning';
import { LocalSns, type TopicSubscription } from '../../../../lib/local-runtime/sns';

const TOPIC = 'arn:aws:sns:us-east-1:000000000000:plain';
const FIFO_TOPIC = 'arn:aws:sns:us-east-1:000000000000:orders.fifo';
const QUEUE = 'arn:aws:sqs:us-east-1:000000000000:inbox';
const FIFO_QUEUE = 'arn:aws:sqs:us-east-1:000000000000:inbox.fifo';
const DLQ = 'arn:aws:sqs:us-east-1:000000000000:dlq';
const FUNCTION = 'arn:aws:lambda:us-east-1:000000000000:function:consumer';

interface Sent {
  readonly queueArn: string;
  readonly body: string;
  readonly options: DeliveryOptions;
}

function world(failing: readonly string[] = []) {
  const sent: Sent[] = [];
  const invoked: Array<{ functionArn: string; event: unknown; options: DeliveryOptions }> = [];
  const problems: string[] = [];
  let now = 1_000_000;
  const sns = new LocalSns(
    {
      sendToQueue: async (queueArn, body, options) => {
        if (failing.includes(queueArn))
          throw Object.assign(new Error('no such queue'), { name: 'QueueDoesNotExist' });
        sent.push({ queueArn, body, options });
      },
      invokeAsync: async (functionArn, event, options) => {
        if (failing.includes(functionArn)) throw new Error(`No local function ${functionArn}`);
        invoked.push({ functionArn, event, options });
      },
      onProblem: (message) => problems.push(message),
    },
    'us-east-1',
    () => now,
  );
  sns.addTopic(TOPIC);
  sns.addTopic(FIFO_TOPIC, { fifo: true, contentBasedDeduplication: false });
  const subscribe = (topicArn: string, endpoint: string, extra: Partial<TopicSubscription> = {}) =>
    sns.subscribe(topicArn, {
      subscriptionArn: `${topicArn}:${endpoint.split(':').pop()}`,
      protocol: endpoint.startsWith('arn:aws:sqs:') ? 'sqs' : 'lambda',
      endpoint,
      rawMessageDelivery: false,
      ...extra,
    });
  return { sns, sent, invoked, problems, subscribe, advance: (millis: number) => (now += millis) };
}

const errorOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return `${(error as AwsApiError).errorType}: ${(error as Error).message}`;
  }
};

describe('SNS FIFO topics', () => {
  it('requires a MessageGroupId, and a MessageDeduplicationId without content-based deduplication', async () => {
    const { sns } = world();
    expect(await errorOf(sns.publish({ topicArn: FIFO_TOPIC, message: 'm' }))).toBe(
      'InvalidParameter: Invalid parameter: The MessageGroupId parameter is required for FIFO topics',
    );
    expect(await errorOf(sns.publish({ topicArn: FIFO_TOPIC, message: 'm', messageGroupId: 'g' }))).toMatch(
      /^InvalidParameter: .*ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly/,
    );
    expect(
      await errorOf(sns.publish({ topicArn: TOPIC, message: 'm', messageDeduplicationId: 'd' })),
    ).toMatch(/^InvalidParameter: .*MessageDeduplicationId/);
  });

  it('delivers to a FIFO queue with the group and deduplication ids, and sequence numbers in order', async () => {
    const { sns, sent, subscribe } = world();
    subscribe(FIFO_TOPIC, FIFO_QUEUE, { rawMessageDelivery: true });
    const first = await sns.publish({
      topicArn: FIFO_TOPIC,
      message: 'a',
      messageGroupId: 'g1',
      messageDeduplicationId: 'd1',
    });
    const second = await sns.publish({
      topicArn: FIFO_TOPIC,
      message: 'b',
      messageGroupId: 'g1',
      messageDeduplicationId: 'd2',
    });
    expect(
      sent.map(({ body, options }) => [body, options.messageGroupId, options.messageDeduplicationId]),
    ).toEqual([
      ['a', 'g1', 'd1'],
      ['b', 'g1', 'd2'],
    ]);
    expect(first.sequenceNumber).toMatch(/^\d{20}$/);
    expect(BigInt(second.sequenceNumber ?? '0')).toBeGreaterThan(BigInt(first.sequenceNumber ?? '0'));
  });

  it('de-duplicates within 5 minutes (by id, or by the body hash with content-based deduplication)', async () => {
    const { sns, sent, subscribe, advance } = world();
    sns.addTopic('arn:aws:sns:us-east-1:000000000000:hashed.fifo', {
      fifo: true,
      contentBasedDeduplication: true,
    });
    subscribe(FIFO_TOPIC, FIFO_QUEUE);
    subscribe('arn:aws:sns:us-east-1:000000000000:hashed.fifo', FIFO_QUEUE);
    const publish = (topicArn: string, message: string, messageDeduplicationId?: string) =>
      sns.publish({
        topicArn,
        message,
        messageGroupId: 'g',
        ...(messageDeduplicationId ? { messageDeduplicationId } : {}),
      });
    const original = await publish(FIFO_TOPIC, 'a', 'same');
    expect(await publish(FIFO_TOPIC, 'other body', 'same')).toEqual(original);
    await publish('arn:aws:sns:us-east-1:000000000000:hashed.fifo', 'hashed');
    await publish('arn:aws:sns:us-east-1:000000000000:hashed.fifo', 'hashed');
    expect(sent).toHaveLength(2);
    expect(sent[1]?.options.messageDeduplicationId).toMatch(/^[0-9a-f]{64}$/);
    advance(5 * 60_000);
    await publish(FIFO_TOPIC, 'a', 'same');
    expect(sent).toHaveLength(3);
  });

  it('subscribes SQS queues only', () => {
    const { subscribe } = world();
    expect(() => subscribe(FIFO_TOPIC, FUNCTION)).toThrow(/Invalid protocol type: lambda/);
  });

  it('leaves the ids off deliveries to a standard queue', async () => {
    const { sns, sent, subscribe } = world();
    subscribe(FIFO_TOPIC, QUEUE);
    await sns.publish({
      topicArn: FIFO_TOPIC,
      message: 'a',
      messageGroupId: 'g',
      messageDeduplicationId: 'd',
    });
    // Only the delivery's origin (for the metering), no FIFO ids: a standard queue refuses them.
    expect(sent[0]?.options).toEqual({
      deliveredBy: 'SNS',
      // Who delivers, for the queue's policy: SNS for the topic.
      deliveredAs: {
        kind: 'service',
        service: 'sns.amazonaws.com',
        sourceArn: expect.stringMatching(/:orders\.fifo$/),
      },
    });
    expect(JSON.parse(sent[0]?.body ?? '{}')).toMatchObject({
      Message: 'a',
      SequenceNumber: expect.any(String),
    });
  });
});

describe('SNS message attributes', () => {
  const attributes = {
    kind: { DataType: 'String', StringValue: 'drone' },
    weight: { DataType: 'Number', StringValue: '2.5' },
  };

  const bySns = { kind: 'service', service: 'sns.amazonaws.com', sourceArn: TOPIC };

  it('are SQS message attributes with raw delivery, and in the notification JSON otherwise', async () => {
    const { sns, sent, subscribe } = world();
    subscribe(TOPIC, QUEUE, { rawMessageDelivery: true });
    subscribe(TOPIC, `${QUEUE}-envelope`);
    await sns.publish({
      topicArn: TOPIC,
      message: 'hello',
      subject: 'greeting',
      messageAttributes: attributes,
    });
    expect(sent[0]).toEqual({
      queueArn: QUEUE,
      body: 'hello',
      options: { deliveredBy: 'SNS', deliveredAs: bySns, messageAttributes: attributes },
    });
    expect(sent[1]?.options).toEqual({ deliveredBy: 'SNS', deliveredAs: bySns });
    expect(JSON.parse(sent[1]?.body ?? '{}')).toMatchObject({
      Type: 'Notification',
      Message: 'hello',
      Subject: 'greeting',
      MessageAttributes: {
        kind: { Type: 'String', Value: 'drone' },
        weight: { Type: 'Number', Value: '2.5' },
      },
    });
  });

  it('reach a Lambda subscription in Sns.MessageAttributes', async () => {
    const { sns, invoked, subscribe } = world();
    subscribe(TOPIC, FUNCTION);
    await sns.publish({ topicArn: TOPIC, message: 'hello', messageAttributes: attributes });
    expect(invoked[0]?.event).toMatchObject({
      Records: [
        {
          EventSource: 'aws:sns',
          Sns: { Message: 'hello', MessageAttributes: { kind: { Type: 'String', Value: 'drone' } } },
        },
      ],
    });
  });

  it('are validated as SNS validates them', async () => {
    const { sns } = world();
    const publish = (messageAttributes: unknown) =>
      errorOf(sns.publish({ topicArn: TOPIC, message: 'm', messageAttributes }));
    expect(await publish({ n: { DataType: 'Number', StringValue: 'many' } })).toMatch(
      /^ParameterValueInvalid: /,
    );
    expect(await publish({ n: { DataType: 'Decimal', StringValue: '1' } })).toMatch(
      /^ParameterValueInvalid: /,
    );
    expect(await publish({ n: { DataType: 'String.Array', StringValue: 'a,b' } })).toMatch(
      /^ParameterValueInvalid: /,
    );
  });
});

describe('SNS subscription filter policies and dead-letter queues', () => {
  it('delivers a message only to the subscriptions whose filter policy it passes', async () => {
    const { sns, sent, subscribe } = world();
    subscribe(TOPIC, `${QUEUE}-drones`, {
      filterPolicy: { policy: { kind: ['drone'] }, scope: 'MessageAttributes' },
    });
    subscribe(TOPIC, `${QUEUE}-heavy`, {
      filterPolicy: { policy: { weight: [{ numeric: ['>', 10] }] }, scope: 'MessageBody' },
    });
    await sns.publish({
      topicArn: TOPIC,
      message: JSON.stringify({ weight: 12 }),
      messageAttributes: { kind: { DataType: 'String', StringValue: 'truck' } },
    });
    expect(sent.map(({ queueArn }) => queueArn)).toEqual([`${QUEUE}-heavy`]);
  });

  it('sends a failed delivery to the dead-letter queue with the error, and never fails the publisher', async () => {
    const { sns, sent, problems, subscribe } = world([QUEUE, FUNCTION]);
    subscribe(TOPIC, QUEUE, { deadLetterTargetArn: DLQ, rawMessageDelivery: true });
    subscribe(TOPIC, FUNCTION, { deadLetterTargetArn: DLQ });
    subscribe(TOPIC, `${QUEUE}-ok`);
    await expect(sns.publish({ topicArn: TOPIC, message: 'm' })).resolves.toEqual({
      messageId: expect.any(String),
    });
    expect(sent.map(({ queueArn }) => queueArn)).toEqual([DLQ, DLQ, `${QUEUE}-ok`]);
    expect(sent[0]).toMatchObject({
      body: 'm',
      options: {
        messageAttributes: {
          ErrorCode: { StringValue: 'QueueDoesNotExist' },
          ErrorMessage: { StringValue: 'no such queue' },
        },
      },
    });
    expect(JSON.parse(sent[1]?.body ?? '{}')).toMatchObject({ Type: 'Notification', Message: 'm' });
    expect(problems).toEqual([]);
  });

  it('names a failed delivery without a dead-letter queue as lost, and still accepts the publish', async () => {
    const { sns, problems, subscribe } = world([QUEUE]);
    subscribe(TOPIC, QUEUE);
    await expect(sns.publish({ topicArn: TOPIC, message: 'm' })).resolves.toBeDefined();
    expect(problems).toEqual([expect.stringMatching(/no dead-letter queue: the message is lost/)]);
  });
});
