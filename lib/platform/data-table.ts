import { Aws } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as eventSources from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import { DataSettings } from './data-settings';

/** Settings every table of this application shares. */
export interface DataTableOptions {
  /**
   * Customer-managed key for encryption at rest.
   * @default - the AWS managed key `aws/dynamodb`. Encryption at rest is always on; a customer
   * key adds key-policy control and per-key audit at the price of a KMS grant for every reader
   * and writer (including the state machine's direct integrations). The access boundary of this
   * application is its least-privilege IAM grants, so the AWS managed key is the default.
   */
  readonly encryptionKey?: kms.IKey;
}

export interface DataTableProps extends DataTableOptions {
  /** The table's partition key. */
  readonly partitionKey: dynamodb.Attribute;
  /** @default - no sort key */
  readonly sortKey?: dynamodb.Attribute;
  /** @default - no TTL attribute */
  readonly timeToLiveAttribute?: string;
  /**
   * What the table's DynamoDB stream records of each change (e.g. for a transactional outbox relay).
   * @default - no stream
   */
  readonly stream?: dynamodb.StreamViewType;
}

/**
 * A DynamoDB table with the application's defaults: on-demand capacity, generated name,
 * encryption at rest, point-in-time recovery, removal policy from the configuration, and deletion
 * protection wherever the data is kept (retainData: the default profile). The local profile's tables
 * go with their stack (RemovalPolicy.DESTROY): protection there would make every stack deletion (the
 * local runtime's, LocalStack's, `cdk destroy` of a local-profile test stack) fail on the table.
 */
export function createDataTable(scope: Construct, id: string, props: DataTableProps): dynamodb.Table {
  return new dynamodb.Table(scope, id, {
    partitionKey: props.partitionKey,
    sortKey: props.sortKey,
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    encryption: props.encryptionKey
      ? dynamodb.TableEncryption.CUSTOMER_MANAGED
      : dynamodb.TableEncryption.AWS_MANAGED,
    encryptionKey: props.encryptionKey,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    timeToLiveAttribute: props.timeToLiveAttribute,
    stream: props.stream,
    removalPolicy: DataSettings.of(scope).removalPolicy,
    deletionProtection: DataSettings.of(scope).retainData,
  });
}

/**
 * Grants exactly `actions` on the table itself (never on its indexes) plus use of its key, if
 * customer-managed: only Decrypt (and DescribeKey) when every action only reads (TABLE_READ_ACTIONS), the writer's
 * set otherwise. `Table.grant` would also add `<table>/index/*` once the table has an index.
 */
export function grantTableActions(
  table: dynamodb.Table,
  grantee: iam.IGrantable,
  ...actions: string[]
): void {
  iam.Grant.addToPrincipal({ grantee, actions, resourceArns: [table.tableArn] });
  grantTableKeyUse(table, grantee, keyAccessOf(actions));
}

/** DynamoDB actions that read and never write: a caller holding only these needs only kms:Decrypt (and DescribeKey). */
const TABLE_READ_ACTIONS: readonly string[] = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
  'dynamodb:DescribeStream',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
];

/** 'read' when every action only reads, 'readWrite' otherwise. */
export function keyAccessOf(actions: readonly string[]): keyof typeof TABLE_KEY_ACTIONS {
  return actions.every((action) => TABLE_READ_ACTIONS.includes(action)) ? 'read' : 'readWrite';
}

/**
 * What a reader or writer of a table encrypted with a customer-managed key needs on that key, and
 * nothing more: the exact actions DynamoDB uses on the caller's behalf, without the
 * `kms:ReEncrypt*` and `kms:GenerateDataKey*` wildcards of `grantEncryptDecrypt`. A reader gets
 * Decrypt only (DescribeKey is what DescribeTable needs on such a table, and reveals no data).
 */
export const TABLE_KEY_ACTIONS = {
  read: ['kms:Decrypt', 'kms:DescribeKey'],
  readWrite: ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey', 'kms:DescribeKey'],
} as const;

/**
 * Grants TABLE_KEY_ACTIONS on the table's key, when it has a customer-managed one, and only through
 * DynamoDB (`kms:ViaService`): the table's key is used by DynamoDB on the caller's behalf and by
 * nothing else, so the grantee cannot call KMS with it directly (decrypt a copied ciphertext,
 * encrypt data of its own).
 */
export function grantTableKeyUse(
  table: dynamodb.ITable,
  grantee: iam.IGrantable,
  access: keyof typeof TABLE_KEY_ACTIONS = 'readWrite',
): void {
  if (!table.encryptionKey) return;
  grantKeyViaService(table.encryptionKey, grantee, 'dynamodb', TABLE_KEY_ACTIONS[access]);
}

/**
 * Grants `actions` on `key` only when `service` (dynamodb, sqs, sns) calls KMS on the grantee's
 * behalf (`kms:ViaService` = `<service>.<region>.amazonaws.com`), in the grantee's identity policy.
 * The key policy needs no change: a CDK key's default policy lets the account's IAM policies grant it.
 */
export function grantKeyViaService(
  key: kms.IKey,
  grantee: iam.IGrantable,
  service: 'dynamodb' | 'sqs' | 'sns',
  actions: readonly string[],
): void {
  iam.Grant.addToPrincipal({
    grantee,
    actions: [...actions],
    resourceArns: [key.keyArn],
    conditions: { StringEquals: { 'kms:ViaService': `${service}.${Aws.REGION}.amazonaws.com` } },
  });
}

/**
 * Makes `consumer` read the table's stream through a DynamoDB event source, granted what it reads
 * and no more. CDK's event source calls the table's `grantStreamRead`, which on a table with a
 * customer-managed key grants kms:Decrypt without `kms:ViaService`; so the event source is given
 * a view of the table (the same construct node, hence the same mapping logical id, and the same
 * stream) whose `grantStreamRead` is grantTableStreamRead.
 */
export function addTableStreamSource(
  consumer: lambda.IFunction,
  table: dynamodb.Table,
  props: eventSources.DynamoEventSourceProps,
): void {
  const view: dynamodb.Table = Object.create(table, {
    grantStreamRead: {
      value: (grantee: iam.IGrantable) => {
        grantTableStreamRead(table, grantee);
        return iam.Grant.drop(grantee, 'granted by grantTableStreamRead');
      },
    },
  });
  consumer.addEventSource(new eventSources.DynamoEventSource(view, props));
}

/**
 * Reading the table's stream: the stream actions on its stream only, ListStreams (no
 * resource-level permissions), and kms:Decrypt through DynamoDB on a customer-managed key.
 */
function grantTableStreamRead(table: dynamodb.Table, grantee: iam.IGrantable): void {
  if (!table.tableStreamArn) {
    throw new Error(`${table.node.path}: the table has no stream to grant reading of`);
  }
  iam.Grant.addToPrincipal({ grantee, actions: ['dynamodb:ListStreams'], resourceArns: ['*'] });
  iam.Grant.addToPrincipal({
    grantee,
    actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
    resourceArns: [table.tableStreamArn],
  });
  grantTableKeyUse(table, grantee, 'read');
}

/**
 * A global secondary index that projects only what its readers use besides the keys (INCLUDE): a
 * write touching none of its attributes costs no index write.
 */
export interface IncludeIndexSpec {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey: string;
  readonly projectedAttributes: readonly string[];
}

/**
 * A construct owning one data table (`<id>/Table`, the application's defaults), through which
 * callers get exactly the item actions they need on it, or Query on the one index they read.
 */
export class DataStore extends Construct {
  readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, props: DataTableProps) {
    super(scope, id);
    this.table = createDataTable(this, 'Table', props);
  }

  /** Grants `actions` on the table's items (table only, no index) and the use of its key. */
  grant(grantee: iam.IGrantable, ...actions: string[]): void {
    grantTableActions(this.table, grantee, ...actions);
  }

  /** Adds an IncludeIndexSpec index: a string partition key, a sort key of the given type. */
  protected addIncludeIndex(
    index: IncludeIndexSpec,
    sortKeyType: dynamodb.AttributeType = dynamodb.AttributeType.STRING,
  ): void {
    this.table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: index.sortKey, type: sortKeyType },
      projectionType: dynamodb.ProjectionType.INCLUDE,
      nonKeyAttributes: [...index.projectedAttributes],
    });
  }

  /** Query on one index of the table (never Scan, never the table itself), and the key to read it. */
  grantQueryIndex(grantee: iam.IGrantable, indexName: string): void {
    iam.Grant.addToPrincipal({
      grantee,
      actions: ['dynamodb:Query'],
      resourceArns: [`${this.table.tableArn}/index/${indexName}`],
    });
    grantTableKeyUse(this.table, grantee, 'read');
  }

  /** Name for CfnOutputs and environment variables. */
  get tableName(): string {
    return this.table.tableName;
  }
}
