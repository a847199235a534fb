import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import {
  type ServiceTableIndex,
  TABLE_PARTITION_KEY,
  TABLE_TTL_ATTRIBUTE,
} from '../../lambdas/choreography/contracts';
import { DataStore, type DataTableOptions } from '../platform/data-table';

export interface ServiceTableProps extends DataTableOptions {
  /**
   * Global secondary indexes (string keys, INCLUDE projection), e.g. the ingestion read model's
   * DELIVERIES_BY_STATUS_INDEX.
   * @default - none
   */
  readonly indexes?: readonly ServiceTableIndex[];
}

/**
 * The table of one choreography service, in the layout every service shares
 * (lambdas/choreography/contracts/tables.ts): string partition key, TTL attribute for the
 * processed-message markers, and a NEW_AND_OLD_IMAGES stream that its outbox relay reads.
 * The platform's table defaults hold (on-demand, encryption at rest, point-in-time recovery).
 */
export class ServiceTable extends DataStore {
  constructor(scope: Construct, id: string, props: ServiceTableProps) {
    const { indexes = [], ...options } = props;
    super(scope, id, {
      ...options,
      partitionKey: { name: TABLE_PARTITION_KEY, type: dynamodb.AttributeType.STRING },
      timeToLiveAttribute: TABLE_TTL_ATTRIBUTE,
      stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
    });
    for (const index of indexes) this.addIncludeIndex(index);
  }
}
