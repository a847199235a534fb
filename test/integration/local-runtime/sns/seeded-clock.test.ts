/**
 * SNS on a seeded clock: a publish is answered once each delivery has reached its queue, and each
 * delivery's SQS call waits its turn on the clock, so the publish is parked while it waits, and on
 * a FIFO topic while it waits for the previous publish's deliveries. Found by a traced delivery
 * campaign (issue 22): its first relayed publish held the clock, its delivery waited for a turn that
 * never came, and the run stood still; then a publish waiting behind another's did the same.
 */
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { VirtualClock } from '../../../../lib/local-runtime';
import { type MessagingRuntime, startMessagingRuntime } from '../messaging-runtime';

jest.setTimeout(120_000);

describe('SNS on a seeded clock', () => {
  const clock = new VirtualClock({ seed: 7 });
  let world: MessagingRuntime;
  let sns: SNSClient;

  beforeAll(async () => {
    world = await startMessagingRuntime({ clock });
    sns = new SNSClient({ ...world.clientConfig, endpoint: world.runtime.target.endpoints.sns });
  });

  afterAll(async () => {
    sns?.destroy();
    await world?.stop();
    clock.stop();
  });

  it('answers a publish once its deliveries reached their queues', async () => {
    const published = await sns.send(
      new PublishCommand({
        TopicArn: world.outputs.DeliveriesTopicArn ?? '',
        Message: 'seeded',
        MessageGroupId: 'order-1',
        MessageAttributes: { kind: { DataType: 'String', StringValue: 'drone' } },
      }),
    );
    expect(published.SequenceNumber).toMatch(/^\d{20}$/);
    const delivered = await world.drain(world.outputs.DroneInboxUrl ?? '');
    expect(delivered.map(({ Body }) => Body)).toEqual(['seeded']);
  });

  it('answers publishes to one FIFO topic sent together, each once its deliveries and those before it are done', async () => {
    const publish = (message: string) =>
      sns.send(
        new PublishCommand({
          TopicArn: world.outputs.DeliveriesTopicArn ?? '',
          Message: message,
          MessageGroupId: 'order-2',
          MessageAttributes: { kind: { DataType: 'String', StringValue: 'drone' } },
        }),
      );
    const sequences = await Promise.all(['a', 'b', 'c'].map(publish));
    expect(sequences.every((answer) => /^\d{20}$/.test(answer.SequenceNumber ?? ''))).toBe(true);
    const delivered = await world.drain(world.outputs.DroneInboxUrl ?? '');
    expect(delivered.map(({ Body }) => Body).sort()).toEqual(['a', 'b', 'c']);
  });
});
