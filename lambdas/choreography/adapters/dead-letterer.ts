/**
 * Sends a message a service refuses to its FIFO dead-letter queue, unchanged, with the reason in
 * message attributes (names.ts MessageAttribute) for remediation to read. Sending the same dead
 * letter twice is harmless: the deduplication id is derived from the message and the reason, so
 * FIFO dedup (5 minutes) and remediation's DEADLETTER# marker (after that) absorb the copy.
 */
import { createHash } from 'node:crypto';
import { type MessageAttributeValue, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { MessageAttribute, type ReasonCode, type ServiceName } from '../contracts';

/** Message group of dead letters that name no delivery (poison): they are ordered among themselves. */
export const UNATTRIBUTED_GROUP = 'unattributed';

/** SQS's limit on MessageDeduplicationId, and the characters it allows. */
const MAX_DEDUP_ID_LENGTH = 128;
const DEDUP_ID_PATTERN = /^[\x21-\x7e]+$/;

export interface DeadLetter {
  /** The original message body, sent unchanged (remediation may hand it back for a retry). */
  readonly body: string;
  readonly reasonCode: ReasonCode;
  /** Logged by the caller; not an attribute (remediation explains a code by its definition). */
  readonly detail: string;
  /** The event id when the message had one, else the SQS message id. */
  readonly messageKey: string;
  readonly attempt: number;
  readonly deliveryId?: string;
  readonly correlationId?: string;
}

export interface DeadLetterer {
  send(letter: DeadLetter, now: Date): Promise<void>;
}

/** `<message key>:<reason code>`, hashed when it would be too long or hold characters SQS refuses. */
export function deadLetterDeduplicationId(messageKey: string, reasonCode: ReasonCode): string {
  const plain = `${messageKey}:${reasonCode}`;
  if (plain.length <= MAX_DEDUP_ID_LENGTH && DEDUP_ID_PATTERN.test(plain)) return plain;
  return `${createHash('sha256').update(messageKey, 'utf8').digest('hex')}:${reasonCode}`;
}

export class SqsDeadLetterer implements DeadLetterer {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    private readonly deadLetteredBy: ServiceName,
  ) {
    if (!queueUrl) throw new Error('SqsDeadLetterer: queueUrl is required');
  }

  async send(letter: DeadLetter, now: Date): Promise<void> {
    const text = (value: string): MessageAttributeValue => ({ DataType: 'String', StringValue: value });
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: letter.body,
        MessageGroupId: letter.deliveryId ?? UNATTRIBUTED_GROUP,
        MessageDeduplicationId: deadLetterDeduplicationId(letter.messageKey, letter.reasonCode),
        MessageAttributes: {
          [MessageAttribute.ReasonCode]: text(letter.reasonCode),
          [MessageAttribute.DeadLetteredBy]: text(this.deadLetteredBy),
          [MessageAttribute.Attempt]: { DataType: 'Number', StringValue: String(letter.attempt) },
          [MessageAttribute.DeadLetteredAt]: text(now.toISOString()),
          ...(letter.correlationId ? { [MessageAttribute.CorrelationId]: text(letter.correlationId) } : {}),
        },
      }),
    );
  }
}
