import { type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { AlertArchiveAttr, type OperatorAlertView } from '../contracts';
import type { AlertArchive, ArchivedAlert } from '../domain/ports';

/** At most this many alerts are shown per order (the most recent); an order raises only a few. */
const MAX_ALERTS_READ = 100;

/** The alert archive table: partition OrderID, sort `<time>#<event id>`. */
export class DynamoAlertArchive implements AlertArchive {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    if (!tableName) throw new Error('DynamoAlertArchive: tableName is required');
  }

  /** Idempotent: a redelivered event has the same key and overwrites itself with the same item. */
  async archive(alert: ArchivedAlert): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          [AlertArchiveAttr.OrderId]: alert.orderId,
          [AlertArchiveAttr.AlertKey]: `${alert.at}#${alert.eventId}`,
          [AlertArchiveAttr.Type]: alert.type,
          [AlertArchiveAttr.At]: alert.at,
          [AlertArchiveAttr.EventId]: alert.eventId,
          [AlertArchiveAttr.Detail]: alert.detail,
        },
      }),
    );
  }

  /** The order's alerts, oldest first. */
  async alertsOf(orderId: string): Promise<OperatorAlertView[]> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: '#id = :id',
        ExpressionAttributeNames: { '#id': AlertArchiveAttr.OrderId },
        ExpressionAttributeValues: { ':id': orderId },
        ScanIndexForward: false,
        Limit: MAX_ALERTS_READ,
      }),
    );
    return (result.Items ?? [])
      .map((item) => ({
        at: String(item[AlertArchiveAttr.At] ?? ''),
        type: String(item[AlertArchiveAttr.Type] ?? ''),
        eventId: String(item[AlertArchiveAttr.EventId] ?? ''),
        detail: (item[AlertArchiveAttr.Detail] ?? {}) as Record<string, unknown>,
      }))
      .reverse();
  }
}
