import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type ClientStatusMessage, ClientStatusMessageSchema } from '../contracts';
import type { ClientReplySender } from '../domain/ports';

/**
 * The clients' FIFO reply queues. One message group per order keeps an order's statuses in order
 * while orders do not wait for each other; the message key is the deduplication id, so a stream
 * batch delivered again within SQS's 5-minute window sends nothing new (beyond it, the client
 * de-duplicates on the same key, which is in the body).
 */
export class SqsClientReplies implements ClientReplySender {
  constructor(private readonly client: SQSClient) {}

  async send(queueUrl: string, message: ClientStatusMessage): Promise<void> {
    // Validate on the way out: a client must never receive a body its documented schema refuses.
    const body = ClientStatusMessageSchema.parse(message);
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: JSON.stringify(body),
        MessageGroupId: body.orderId,
        MessageDeduplicationId: dedupIdOf(body.messageKey),
      }),
    );
  }
}

/**
 * SQS allows 128 characters of [A-Za-z0-9!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~] in a deduplication id.
 * The key (64-character order id, status, ISO time) fits and uses only those characters; checked
 * anyway, because a refused id would fail the record on every retry.
 */
function dedupIdOf(messageKey: string): string {
  if (messageKey.length > 128 || !/^[\x21-\x7e]+$/.test(messageKey)) {
    throw new Error(`Message key '${messageKey}' cannot be an SQS deduplication id`);
  }
  return messageKey;
}
