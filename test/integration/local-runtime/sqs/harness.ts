/** The runtime's SQS service on a loopback port, reached with the real SDK client as handlers reach it. */
import { CreateQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type RunningEmulator, sqsClient, startLocalSqs } from '../../../support/emulators';

export interface SqsWorld {
  readonly server: RunningEmulator;
  readonly sqs: SQSClient;
  /** Creates a queue with a name unique to the test run (`.fifo` kept at the end). */
  queue(name: string, attributes?: Record<string, string>): Promise<string>;
  stop(): Promise<void>;
}

let counter = 0;

export async function startSqsWorld(options: { dataDirectory?: string } = {}): Promise<SqsWorld> {
  const server = await startLocalSqs(options);
  const sqs = sqsClient(server.endpoint);
  return {
    server,
    sqs,
    queue: async (name, attributes = {}) => {
      counter += 1;
      const fifo = name.endsWith('.fifo');
      const base = fifo ? name.slice(0, -'.fifo'.length) : name;
      const { QueueUrl } = await sqs.send(
        new CreateQueueCommand({
          QueueName: `${base}-${counter}${fifo ? '.fifo' : ''}`,
          Attributes: fifo ? { FifoQueue: 'true', ...attributes } : attributes,
        }),
      );
      if (!QueueUrl) throw new Error('CreateQueue answered no QueueUrl');
      return QueueUrl;
    },
    stop: async () => {
      sqs.destroy();
      await server.stop();
    },
  };
}

export const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));
