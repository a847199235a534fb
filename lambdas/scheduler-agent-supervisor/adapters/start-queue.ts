import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type StartOrderMessage, StartOrderMessageSchema } from '../contracts';
import type { StartQueue } from '../domain/ports';
import { MAX_SQS_DELAY_SECONDS } from '../domain/supervision-rules';

/** The start queue: "please claim and start this order" messages for the starter. */
export class SqsStartQueue implements StartQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {
    if (!queueUrl) {
      throw new Error('SqsStartQueue: queueUrl is required');
    }
  }

  async send(message: StartOrderMessage, delaySeconds = 0): Promise<void> {
    // Validate on the way out too: a malformed message would only fail later, in the starter.
    const body = StartOrderMessageSchema.parse(message);
    const delay = Math.max(0, Math.min(MAX_SQS_DELAY_SECONDS, Math.ceil(delaySeconds)));
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(body),
        ...(delay > 0 && { DelaySeconds: delay }),
      }),
    );
  }
}
