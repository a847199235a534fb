import { type DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionalCheckFailed } from '../../shared/dynamodb-errors';
import { ALERT_OUTBOX_INDEX, ALERT_OUTBOX_SHARD, AlertOutboxAttr, StateAttr } from '../contracts';
import type {
  AlertOutboxStore,
  PendingOutbox,
  PendingOutboxCursor,
  PendingOutboxIndex,
  StoredOutbox,
} from '../domain/ports';

const NAMES = {
  '#outbox': StateAttr.AlertOutbox,
  '#shard': StateAttr.AlertOutboxShard,
  '#since': StateAttr.AlertOutboxSince,
} as const;

/**
 * The state record's AlertOutbox as its deliverers see it: removing delivered entries (conditional
 * on the entry being the one delivered) and finding, through the sparse AlertOutboxIndex, what the
 * stream relay left undelivered. These writes are not state transitions: they change neither
 * ProcessState nor UpdatedAt, and no lock fences them (an entry's removal is its own condition).
 */
export class DynamoAlertOutbox implements AlertOutboxStore, PendingOutboxIndex {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    if (!tableName) throw new Error('DynamoAlertOutbox: tableName is required');
  }

  async remove(orderId: string, alertId: string, at: string): Promise<'removed' | 'gone'> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [StateAttr.OrderId]: orderId },
          UpdateExpression: 'REMOVE #outbox.#alertId',
          ConditionExpression: '#outbox.#alertId.#at = :at',
          ExpressionAttributeNames: {
            '#outbox': StateAttr.AlertOutbox,
            '#alertId': alertId,
            '#at': AlertOutboxAttr.At,
          },
          ExpressionAttributeValues: { ':at': at },
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      await this.clearIndexIfEmpty(orderId);
      return 'gone';
    }
    await this.clearIndexIfEmpty(orderId);
    return 'removed';
  }

  /**
   * Takes the record out of the AlertOutboxIndex once its outbox is empty. A separate write: if it
   * is lost, the backstop finds an empty outbox in the index and clears it then.
   */
  async clearIndexIfEmpty(orderId: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [StateAttr.OrderId]: orderId },
          UpdateExpression: 'REMOVE #shard, #since',
          ConditionExpression:
            'attribute_exists(#shard) AND (attribute_not_exists(#outbox) OR size(#outbox) = :zero)',
          ExpressionAttributeNames: NAMES,
          ExpressionAttributeValues: { ':zero': 0 },
        }),
      );
    } catch (error) {
      // Not empty (a newer alert), or already out of the index: nothing to do.
      if (!isConditionalCheckFailed(error)) throw error;
    }
  }

  async queryPending(
    writtenBefore: string,
    limit: number,
    cursor?: PendingOutboxCursor,
  ): Promise<{ readonly records: readonly PendingOutbox[]; readonly next?: PendingOutboxCursor }> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: ALERT_OUTBOX_INDEX.name,
        KeyConditionExpression: '#shard = :shard AND #since < :before',
        ExpressionAttributeNames: { '#shard': NAMES['#shard'], '#since': NAMES['#since'] },
        ExpressionAttributeValues: { ':shard': ALERT_OUTBOX_SHARD, ':before': writtenBefore },
        Limit: limit,
        ...(cursor !== undefined && { ExclusiveStartKey: { ...cursor } }),
      }),
    );
    return {
      records: (result.Items ?? []).map((item) => ({
        orderId: String(item[StateAttr.OrderId]),
        outbox: (item[StateAttr.AlertOutbox] ?? {}) as StoredOutbox,
        since: String(item[StateAttr.AlertOutboxSince]),
      })),
      ...(result.LastEvaluatedKey !== undefined && { next: result.LastEvaluatedKey }),
    };
  }
}
