import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { OrderAttr } from '../../lambdas/scheduler-agent-supervisor/contracts';
import { DataStore, type DataTableOptions } from '../platform/data-table';

export type OrdersDatabaseProps = DataTableOptions;

/**
 * The business database: the immutable order as submitted (customer, items, total). Kept apart
 * from the state store on purpose: the pattern's scheduler state and the business data have
 * different owners and lifecycles, and the submission writes both without a transaction.
 */
export class OrdersDatabase extends DataStore {
  constructor(scope: Construct, id: string, props: OrdersDatabaseProps = {}) {
    super(scope, id, {
      ...props,
      partitionKey: { name: OrderAttr.OrderId, type: dynamodb.AttributeType.STRING },
    });
  }
}
