import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionalCheckFailed } from '../../shared/dynamodb-errors';
import { OrderAttr, type OrderItem } from '../contracts';
import { itemsToStoredJson, type StoredOrder } from '../domain/order';
import type { CreateIfAbsentResult, OrdersReader, OrdersRepository } from '../domain/ports';

/** The orders table item of an order (also written by the admission transaction). */
export function storedOrderToItem(order: StoredOrder): Record<string, unknown> {
  return {
    [OrderAttr.OrderId]: order.orderId,
    [OrderAttr.CustomerId]: order.customerId,
    [OrderAttr.Items]: itemsToStoredJson(order.items),
    [OrderAttr.TotalCents]: order.totalCents,
    [OrderAttr.Currency]: order.currency,
    [OrderAttr.Fingerprint]: order.fingerprint,
    [OrderAttr.CreatedAt]: order.createdAt,
  };
}

/** The orders table (business database). Orders are immutable once written: create when missing only. */
export class DynamoOrdersRepository implements OrdersRepository, OrdersReader {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    if (!tableName) {
      throw new Error('DynamoOrdersRepository: tableName is required');
    }
  }

  async createIfAbsent(order: StoredOrder): Promise<CreateIfAbsentResult<StoredOrder>> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: storedOrderToItem(order),
          ConditionExpression: 'attribute_not_exists(#id)',
          ExpressionAttributeNames: { '#id': OrderAttr.OrderId },
        }),
      );
      return { created: true };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) {
        throw error;
      }
    }
    const existing = await this.get(order.orderId);
    if (existing === undefined) {
      throw new Error(`Order '${order.orderId}' existed at write time but is gone now`);
    }
    return { created: false, existing };
  }

  async get(orderId: string): Promise<StoredOrder | undefined> {
    const { Item: item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [OrderAttr.OrderId]: orderId },
        ConsistentRead: true,
      }),
    );
    if (!item) {
      return undefined;
    }
    const field = <T>(attribute: string, type: 'string' | 'number'): T => {
      const value = item[attribute];
      if (typeof value !== type) {
        throw new Error(`Order '${orderId}': ${attribute} must be a ${type}, got ${JSON.stringify(value)}`);
      }
      return value as T;
    };
    return {
      orderId,
      customerId: field<string>(OrderAttr.CustomerId, 'string'),
      items: JSON.parse(field<string>(OrderAttr.Items, 'string')) as OrderItem[],
      totalCents: field<number>(OrderAttr.TotalCents, 'number'),
      currency: field<string>(OrderAttr.Currency, 'string'),
      fingerprint: field<string>(OrderAttr.Fingerprint, 'string'),
      createdAt: field<string>(OrderAttr.CreatedAt, 'string'),
    };
  }
}
