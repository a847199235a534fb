import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { IDEMPOTENCY_EXPIRY_ATTRIBUTE, IDEMPOTENCY_TABLE_KEY } from '../../lambdas/shared/idempotency';
import { DataStore, type DataTableOptions } from './data-table';

export type IdempotencyStoreProps = DataTableOptions;

/**
 * Persistence layer of Powertools idempotency for the agents (one table for all of them:
 * Powertools prefixes every key with the function name).
 */
export class IdempotencyStore extends DataStore {
  constructor(scope: Construct, id: string, props: IdempotencyStoreProps = {}) {
    super(scope, id, {
      ...props,
      partitionKey: { name: IDEMPOTENCY_TABLE_KEY, type: dynamodb.AttributeType.STRING },
      timeToLiveAttribute: IDEMPOTENCY_EXPIRY_ATTRIBUTE,
    });
  }

  /** The item operations Powertools' DynamoDBPersistenceLayer performs. */
  grantPersistence(grantee: iam.IGrantable): void {
    this.grant(grantee, 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem');
  }
}
