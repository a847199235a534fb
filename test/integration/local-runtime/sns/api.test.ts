/**
 * SNS as the local runtime serves it, through its front door: the real SNSClient (and the AWS CLI)
 * against the Query protocol endpoint announced as AWS_ENDPOINT_URL_SNS, delivering to the runtime's
 * SQS service: FIFO topics, message attributes, filter policies, dead-letter queues, subscriptions
 * made at run time, and SNS's named errors.
 */

import { Sha256 } from '@aws-crypto/sha256-js';
import {
  InvalidParameterException,
  ListSubscriptionsByTopicCommand,
  ListTopicsCommand,
  NotFoundException,
  PublishBatchCommand,
  PublishCommand,
  SNSClient,
  SubscribeCommand,
  UnsubscribeCommand,
} from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { SignatureV4 } from '@smithy/signature-v4';
import { serviceSendPolicy } from '../../../../lambdas/shared/service-send-policy';
import { type MessagingRuntime, startMessagingRuntime } from '../messaging-runtime';

jest.setTimeout(120_000);

/** A local user no policy allows anything. */
const NO_POLICY_USER = 'no-policy';

describe('SNS API of the local runtime', () => {
  let world: MessagingRuntime;
  let sns: SNSClient;
  let deliveries: string;
  let alerts: string;

  beforeAll(async () => {
    world = await startMessagingRuntime({ users: { [NO_POLICY_USER]: {} } });
    sns = new SNSClient({ ...world.clientConfig, endpoint: world.runtime.target.endpoints.sns });
    deliveries = world.outputs.DeliveriesTopicArn ?? '';
    alerts = world.outputs.AlertsTopicArn ?? '';
  });

  afterAll(async () => {
    sns?.destroy();
    await world?.stop();
  });

  const drone = { kind: { DataType: 'String', StringValue: 'drone' } };

  it('lists the topics and their subscriptions, and no longer says filter policies are not applied', async () => {
    const { Topics = [] } = await sns.send(new ListTopicsCommand({}));
    expect(Topics.map(({ TopicArn }) => TopicArn).sort()).toEqual([alerts, deliveries].sort());
    expect(deliveries).toMatch(/\.fifo$/);
    const { Subscriptions = [] } = await sns.send(
      new ListSubscriptionsByTopicCommand({ TopicArn: deliveries }),
    );
    expect(Subscriptions).toHaveLength(2);
    expect(Subscriptions[0]).toMatchObject({ Protocol: 'sqs', TopicArn: deliveries, Owner: '000000000000' });
    expect(world.runtime.unsupported.filter(({ type }) => type === 'AWS::SNS::Subscription')).toEqual([]);
  });

  it('refuses a FIFO publish without a MessageGroupId, and an unknown topic, with named exceptions', async () => {
    await expect(sns.send(new PublishCommand({ TopicArn: deliveries, Message: 'x' }))).rejects.toThrow(
      InvalidParameterException,
    );
    await expect(
      sns.send(new PublishCommand({ TopicArn: `${deliveries.slice(0, -5)}-nope.fifo`, Message: 'x' })),
    ).rejects.toThrow(NotFoundException);
  });

  it('delivers a FIFO publish by filter policy: raw with attributes and group id, or in the JSON envelope; once within 5 minutes', async () => {
    const first = await sns.send(
      new PublishCommand({
        TopicArn: deliveries,
        Message: 'd1',
        MessageGroupId: 'order-1',
        MessageAttributes: drone,
      }),
    );
    expect(first.SequenceNumber).toMatch(/^\d{20}$/);
    await sns.send(
      new PublishCommand({
        TopicArn: deliveries,
        Message: 't1',
        Subject: 'truck',
        MessageGroupId: 'order-1',
        MessageAttributes: { kind: { DataType: 'String', StringValue: 'truck' } },
      }),
    );
    // The same body again: content-based deduplication drops it.
    const again = await sns.send(
      new PublishCommand({
        TopicArn: deliveries,
        Message: 'd1',
        MessageGroupId: 'order-1',
        MessageAttributes: drone,
      }),
    );
    expect(again.MessageId).toBe(first.MessageId);

    const droneMessages = await world.drain(world.outputs.DroneInboxUrl ?? '');
    expect(droneMessages.map(({ Body }) => Body)).toEqual(['d1']);
    expect(droneMessages[0]?.MessageAttributes).toEqual({
      kind: { DataType: 'String', StringValue: 'drone' },
    });
    expect(droneMessages[0]?.Attributes).toMatchObject({ MessageGroupId: 'order-1' });
    expect(droneMessages[0]?.Attributes?.MessageDeduplicationId).toMatch(/^[0-9a-f]{64}$/);

    const all = await world.drain(world.outputs.AllInboxUrl ?? '');
    const envelopes = all.map(({ Body }) => JSON.parse(Body ?? '{}') as Record<string, unknown>);
    expect(envelopes.map(({ Message }) => Message)).toEqual(['d1', 't1']);
    expect(envelopes[1]).toMatchObject({
      Type: 'Notification',
      TopicArn: deliveries,
      Subject: 'truck',
      SequenceNumber: expect.any(String),
      MessageAttributes: { kind: { Type: 'String', Value: 'truck' } },
    });
  });

  it('keeps each message group in order across a PublishBatch', async () => {
    const { Successful = [], Failed = [] } = await sns.send(
      new PublishBatchCommand({
        TopicArn: deliveries,
        PublishBatchRequestEntries: [
          { Id: '1', Message: 'a1', MessageGroupId: 'a', MessageAttributes: drone },
          { Id: '2', Message: 'b1', MessageGroupId: 'b', MessageAttributes: drone },
          { Id: '3', Message: 'a2', MessageGroupId: 'a', MessageAttributes: drone },
          { Id: '4', Message: 'no group' },
        ],
      }),
    );
    expect(Successful.map(({ Id }) => Id)).toEqual(['1', '2', '3']);
    expect(Failed).toEqual([
      expect.objectContaining({ Id: '4', Code: 'InvalidParameter', SenderFault: true }),
    ]);
    const bodies = (await world.drain(world.outputs.DroneInboxUrl ?? '')).map(({ Body }) => Body);
    expect(bodies.filter((body) => body?.startsWith('a'))).toEqual(['a1', 'a2']);
    expect(bodies).toContain('b1');
    await world.drain(world.outputs.AllInboxUrl ?? '');
  });

  it('sends a failed delivery to the subscription dead-letter queue, and the publisher never sees the failure', async () => {
    const { MessageId } = await sns.send(new PublishCommand({ TopicArn: alerts, Message: 'alarm' }));
    const [dead] = await world.drain(world.outputs.AlertsDlqUrl ?? '');
    expect(JSON.parse(dead?.Body ?? '{}')).toMatchObject({ MessageId, Message: 'alarm', TopicArn: alerts });
    expect(dead?.MessageAttributes?.ErrorCode?.StringValue).toBe('QueueDoesNotExist');
  });

  it('subscribes a queue made at run time (raw, with a filter policy), and unsubscribes it', async () => {
    const { QueueUrl = '' } = await world.sqs.send(
      new CreateQueueCommand({ QueueName: 'late-consumer.fifo', Attributes: { FifoQueue: 'true' } }),
    );
    const { Attributes = {} } = await world.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
    );
    // The queue lets SNS send for the topic, as a subscriber's queue must on AWS.
    await world.sqs.send(
      new SetQueueAttributesCommand({
        QueueUrl,
        Attributes: {
          Policy: serviceSendPolicy(Attributes.QueueArn ?? '', 'sns.amazonaws.com', deliveries),
        },
      }),
    );
    const { SubscriptionArn = '' } = await sns.send(
      new SubscribeCommand({
        TopicArn: deliveries,
        Protocol: 'sqs',
        Endpoint: Attributes.QueueArn,
        Attributes: {
          RawMessageDelivery: 'true',
          FilterPolicyScope: 'MessageBody',
          FilterPolicy: JSON.stringify({ weight: [{ numeric: ['<=', 5] }] }),
        },
      }),
    );
    expect(SubscriptionArn.startsWith(`${deliveries}:`)).toBe(true);
    const publish = (weight: number) =>
      sns.send(
        new PublishCommand({
          TopicArn: deliveries,
          Message: JSON.stringify({ weight }),
          MessageGroupId: 'late',
        }),
      );
    await publish(3);
    await publish(9);
    expect((await world.drain(QueueUrl)).map(({ Body }) => Body)).toEqual(['{"weight":3}']);
    await sns.send(new UnsubscribeCommand({ SubscriptionArn }));
    await publish(4);
    expect(await world.drain(QueueUrl)).toEqual([]);
    await world.drain(world.outputs.AllInboxUrl ?? '');
    await expect(
      sns.send(
        new SubscribeCommand({
          TopicArn: deliveries,
          Protocol: 'sqs',
          Endpoint: Attributes.QueueArn,
          Attributes: { FilterPolicy: '{"a": [{"wildcard": "*"}]}' },
        }),
      ),
    ).rejects.toThrow(InvalidParameterException);
  });

  it('delivers nothing to a queue whose policy does not let SNS send for the topic, and says so', async () => {
    const { QueueUrl = '' } = await world.sqs.send(
      new CreateQueueCommand({ QueueName: 'no-policy.fifo', Attributes: { FifoQueue: 'true' } }),
    );
    const { Attributes = {} } = await world.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
    );
    await sns.send(
      new SubscribeCommand({ TopicArn: deliveries, Protocol: 'sqs', Endpoint: Attributes.QueueArn }),
    );
    await sns.send(new PublishCommand({ TopicArn: deliveries, Message: 'refused', MessageGroupId: 'g' }));
    expect(await world.drain(QueueUrl)).toEqual([]);
    expect(
      world.logLines.some(
        (line) =>
          line.includes(`delivery to ${Attributes.QueueArn} failed`) &&
          line.includes(
            `sns.amazonaws.com is not authorized to perform: sqs:SendMessage on resource: ${Attributes.QueueArn}`,
          ),
      ),
    ).toBe(true);
  });

  it('refuses SQS and SNS requests of an identity no policy allows, with each service’s error', async () => {
    const user = world.runtime.target.identities?.[NO_POLICY_USER];
    if (!user) throw new Error(`the target lists no ${NO_POLICY_USER}`);
    const config = { ...world.clientConfig, credentials: user, maxAttempts: 1 };
    const unprivilegedSns = new SNSClient({ ...config, endpoint: world.runtime.target.endpoints.sns });
    const unprivilegedSqs = new SQSClient({ ...config, endpoint: world.runtime.target.endpoints.sqs });
    try {
      await expect(unprivilegedSns.send(new ListTopicsCommand({}))).rejects.toMatchObject({
        // SNS's Query code AuthorizationError, as the SDK names its exception.
        name: 'AuthorizationErrorException',
        $metadata: { httpStatusCode: 403 },
      });
      await expect(
        unprivilegedSqs.send(
          new SendMessageCommand({ QueueUrl: world.outputs.AlertsDlqUrl, MessageBody: 'x' }),
        ),
      ).rejects.toMatchObject({
        name: 'AccessDenied',
        message: expect.stringContaining(
          `User: ${user.userArn} is not authorized to perform: sqs:SendMessage`,
        ),
      });
      expect(await world.drain(world.outputs.AlertsDlqUrl ?? '')).toEqual([]);
    } finally {
      unprivilegedSns.destroy();
      unprivilegedSqs.destroy();
    }
  });

  it('refuses a form post from another site’s page (Origin, Sec-Fetch-Site) at the door, signed or not, and publishes nothing', async () => {
    const endpoint = new URL(world.runtime.target.endpoints.sns);
    // What earlier scenarios left there.
    await world.drain(world.outputs.AllInboxUrl ?? '');
    const body = new URLSearchParams({
      Action: 'Publish',
      Version: '2010-03-31',
      TopicArn: deliveries,
      Message: 'forged by a web page',
      MessageGroupId: 'page',
      MessageDeduplicationId: 'page-1',
    }).toString();
    /** The form post, SigV4-signed as the runtime's root (what a page could never do) when asked. */
    const post = async (browserHeaders: Record<string, string>, signed: boolean) => {
      const headers = {
        host: endpoint.host,
        'content-type': 'application/x-www-form-urlencoded',
      };
      const signing = signed
        ? await new SignatureV4({
            service: 'sns',
            region: world.clientConfig.region,
            credentials: world.clientConfig.credentials,
            sha256: Sha256,
          }).sign({
            method: 'POST',
            protocol: 'http:',
            hostname: endpoint.hostname,
            port: Number(endpoint.port),
            path: '/',
            headers,
            body,
          })
        : { headers };
      const answer = await fetch(endpoint, {
        method: 'POST',
        headers: { ...signing.headers, ...browserHeaders },
        body,
      });
      return { status: answer.status, text: await answer.text() };
    };
    for (const browserHeaders of <Record<string, string>[]>[
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: `http://localhost:${Number(endpoint.port) + 1}` },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ]) {
      for (const signed of [false, true]) {
        const refused = await post(browserHeaders, signed);
        expect([browserHeaders, signed, refused.status]).toEqual([browserHeaders, signed, 403]);
        expect(refused.text).toContain("refuses requests from another site's page");
      }
    }
    // The same signed post from no page (as the SDK and the CLI send it) publishes.
    const plain = await post({}, true);
    expect([plain.status, plain.text]).toEqual([200, expect.stringContaining('<PublishResponse')]);
    const received = await world.drain(world.outputs.AllInboxUrl ?? '');
    expect(received.map(({ Body }) => Body)).toEqual([expect.stringContaining('forged by a web page')]);
  });

  it('answers the AWS CLI (aws sns publish --endpoint-url ...)', async () => {
    const published = await world.awsCli(
      'sns',
      'publish',
      '--topic-arn',
      deliveries,
      '--message',
      'from the cli',
      '--message-group-id',
      'cli',
      '--message-attributes',
      JSON.stringify(drone),
    );
    expect(published).toEqual({ MessageId: expect.any(String), SequenceNumber: expect.any(String) });
    expect((await world.drain(world.outputs.DroneInboxUrl ?? '')).map(({ Body }) => Body)).toEqual([
      'from the cli',
    ]);
    await world.drain(world.outputs.AllInboxUrl ?? '');
  });
});
