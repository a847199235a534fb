import { type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionalCheckFailed } from '../../shared/dynamodb-errors';
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

  /**
   * One item per alert: an outbox alert is keyed on its AlertId (and its own time), so a
   * redelivery, a new event with a new event id, is refused by the condition and reported as a
   * duplicate; any other alert is keyed on its event, so EventBridge's retry of the same event
   * finds its own item.
   */
  async archive(alert: ArchivedAlert): Promise<'archived' | 'duplicate'> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            [AlertArchiveAttr.OrderId]: alert.orderId,
            [AlertArchiveAttr.AlertKey]: `${alert.at}#${alert.alertId ?? alert.eventId}`,
            [AlertArchiveAttr.Type]: alert.type,
            [AlertArchiveAttr.At]: alert.at,
            [AlertArchiveAttr.EventId]: alert.eventId,
            ...(alert.alertId !== undefined && { [AlertArchiveAttr.AlertId]: alert.alertId }),
            [AlertArchiveAttr.Detail]: alert.detail,
          },
          ConditionExpression: 'attribute_not_exists(#key)',
          ExpressionAttributeNames: { '#key': AlertArchiveAttr.AlertKey },
        }),
      );
      return 'archived';
    } catch (error) {
      if (isConditionalCheckFailed(error)) return 'duplicate';
      throw error;
    }
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
