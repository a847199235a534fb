/**
 * The SQS service on the runtime's virtual clock, over real HTTP with the real SDK: a 15-minute
 * delay and a 1-hour visibility timeout pass as soon as nothing else is happening (a long poll
 * parks its request, so the clock jumps to the moment the message becomes available), and the
 * times the service answers are the clock's.
 */
import {
  CreateQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { VirtualClock } from '../../../../lib/local-runtime/clock';
import type { RunningSqsService } from '../../../../lib/local-runtime/sqs';
import { sqsClient, startLocalSqs } from '../../../support/emulators';

const START = Date.UTC(2026, 0, 1);

describe('SQS service on a virtual clock', () => {
  let clock: VirtualClock;
  let server: RunningSqsService;
  let sqs: SQSClient;

  beforeAll(async () => {
    clock = new VirtualClock({ startMillis: START });
    server = await startLocalSqs({ clock });
    sqs = sqsClient(server.endpoint);
  });
  afterAll(async () => {
    sqs.destroy();
    await server.stop();
    clock.stop();
  });

  /** Long polls until a message comes (each poll 20 s of the clock's time). */
  async function receiveOne(queueUrl: string, visibilityTimeout?: number) {
    for (let poll = 0; poll < 5_000; poll += 1) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          WaitTimeSeconds: 20,
          MessageSystemAttributeNames: ['All'],
          ...(visibilityTimeout !== undefined ? { VisibilityTimeout: visibilityTimeout } : {}),
        }),
      );
      if (Messages[0]) return Messages[0];
    }
    throw new Error('no message');
  }

  it('delivers a message delayed 15 minutes once 15 minutes have passed on the clock', async () => {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'delayed' }));
    const sentAt = clock.now();
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'later', DelaySeconds: 900 }));
    const message = await receiveOne(QueueUrl as string);
    expect(message.Body).toBe('later');
    expect(clock.now() - sentAt).toBeGreaterThanOrEqual(900_000);
    expect(clock.now() - sentAt).toBeLessThan(900_000 + 20_000);
    expect(Number(message.Attributes?.SentTimestamp)).toBe(sentAt);
  });

  it('makes a message received and not deleted visible again after its 1-hour visibility timeout', async () => {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'kept' }));
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'again' }));
    const first = await receiveOne(QueueUrl as string, 3_600);
    const firstAt = clock.now();
    const second = await receiveOne(QueueUrl as string);
    expect(second.MessageId).toBe(first.MessageId);
    expect(second.Attributes?.ApproximateReceiveCount).toBe('2');
    expect(clock.now() - firstAt).toBeGreaterThanOrEqual(3_600_000);
  });
});
