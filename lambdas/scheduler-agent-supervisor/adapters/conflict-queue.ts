import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { ConflictQueue, SubmissionConflictReport } from '../domain/ports';

/** Dead-letter queue of conflicting resubmissions, kept for an operator to inspect or replay. */
export class SqsConflictQueue implements ConflictQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {
    if (!queueUrl) {
      throw new Error('SqsConflictQueue: queueUrl is required');
    }
  }

  async send(report: SubmissionConflictReport): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(report),
        MessageAttributes: {
          orderId: { DataType: 'String', StringValue: report.orderId },
          correlationId: { DataType: 'String', StringValue: report.correlationId },
        },
      }),
    );
  }
}
