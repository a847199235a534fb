import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { OrderAttr } from '../../lambdas/scheduler-agent-supervisor/contracts';
import { createDataTable, type DataTableOptions, grantTableActions } from '../platform/data-table';

export type OrdersDatabaseProps = DataTableOptions;

/**
 * The business database: the immutable order as submitted (customer, items, total). Kept apart
 * from the state store on purpose: the pattern's scheduler state and the business data have
 * different owners and lifecycles, and the submission writes both without a transaction.
 */
export class OrdersDatabase extends Construct {
  readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, props: OrdersDatabaseProps) {
    super(scope, id);
    this.table = createDataTable(this, 'Table', {
      ...props,
      partitionKey: { name: OrderAttr.OrderId, type: dynamodb.AttributeType.STRING },
    });
  }

  grant(grantee: iam.IGrantable, ...actions: string[]): void {
    grantTableActions(this.table, grantee, ...actions);
  }
}
