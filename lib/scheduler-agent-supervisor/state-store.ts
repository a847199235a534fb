import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { DUE_INDEX, StateAttr } from '../../lambdas/scheduler-agent-supervisor/contracts';
import { DataStore, type DataTableOptions } from '../platform/data-table';

export type StateStoreProps = DataTableOptions;

/**
 * The scheduler's state store: one record per order (process state, lock, deadlines, per-step
 * state) and the supervisor's sparse, write-sharded `DueIndex` (DueShard, CompleteBy). Only
 * Pending and Processing records carry DueShard, so the index holds exactly what can expire.
 */
export class StateStore extends DataStore {
  constructor(scope: Construct, id: string, props: StateStoreProps) {
    super(scope, id, {
      ...props,
      partitionKey: { name: StateAttr.OrderId, type: dynamodb.AttributeType.STRING },
      // Stream consumers compare old and new images (the status notifier: did ProcessState change?).
      stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: DUE_INDEX.name,
      partitionKey: { name: DUE_INDEX.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: DUE_INDEX.sortKey, type: dynamodb.AttributeType.NUMBER },
      // Only what the supervisor decides from (lock, state, counters): the scheduler's step and
      // plan updates then cost no index write.
      projectionType: dynamodb.ProjectionType.INCLUDE,
      nonKeyAttributes: [...DUE_INDEX.projectedAttributes],
    });
  }

  /** ARN of the supervisor index (for Query grants scoped to it alone). */
  get dueIndexArn(): string {
    return `${this.table.tableArn}/index/${DUE_INDEX.name}`;
  }

  /** Grants Query on DueIndex only: the supervisor never needs Scan nor another index. */
  grantQueryDueIndex(grantee: iam.IGrantable): void {
    iam.Grant.addToPrincipal({ grantee, actions: ['dynamodb:Query'], resourceArns: [this.dueIndexArn] });
    this.table.encryptionKey?.grantDecrypt(grantee);
  }
}
