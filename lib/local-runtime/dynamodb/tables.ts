/**
 * Table settings of the local runtime beyond CreateTable's: time to live, what CreateTable needs
 * from StreamSpecification, and the real ARN of each table's stream. DynamoDB Local names a stream after its creation time (and its
 * own pseudo-region `ddblocal`), so `Fn::GetAtt Table.StreamArn` can only be answered once the table
 * exists: the runtime registers each table after creating it, and resolves StreamArn from here.
 */
import {
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
  type StreamSpecification,
  type TableDescription,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';

/** CreateTable's StreamSpecification from the template's (CloudFormation has no StreamEnabled). */
export function streamSpecification(properties: Record<string, unknown>): StreamSpecification | undefined {
  const viewType = (properties.StreamSpecification as { StreamViewType?: unknown } | undefined)
    ?.StreamViewType;
  return typeof viewType === 'string'
    ? { StreamEnabled: true, StreamViewType: viewType as StreamSpecification['StreamViewType'] }
    : undefined;
}

/**
 * Applies the template's TimeToLiveSpecification. DynamoDB Local enforces TTL: it deletes expired
 * items within about half a minute (AWS: usually within days), writing a REMOVE stream record.
 * A persisted table is brought to what the template says now.
 */
export async function applyTimeToLive(
  dynamodb: DynamoDBClient,
  tableName: string,
  properties: Record<string, unknown>,
): Promise<void> {
  const specification = properties.TimeToLiveSpecification as
    | { AttributeName?: unknown; Enabled?: unknown }
    | undefined;
  const wanted =
    specification?.Enabled === true && typeof specification.AttributeName === 'string'
      ? specification.AttributeName
      : undefined;
  const { TimeToLiveDescription: description } = await dynamodb.send(
    new DescribeTimeToLiveCommand({ TableName: tableName }),
  );
  const current = description?.TimeToLiveStatus === 'ENABLED' ? description.AttributeName : undefined;
  if (current === wanted) return;
  if (current) {
    await dynamodb.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: current, Enabled: false },
      }),
    );
  }
  if (wanted) {
    await dynamodb.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: wanted, Enabled: true },
      }),
    );
  }
}

/** Whether an ARN names a DynamoDB stream (of any table, local or not). */
export function isDynamoDbStreamArn(arn: string): boolean {
  return /^arn:aws[a-z-]*:dynamodb:[^:]*:[^:]*:table\/[^/]+\/stream\/.+$/.test(arn);
}

/** The name of the table a stream belongs to (`…:table/<name>/stream/<label>`), if it is a stream ARN. */
export function tableOfStreamArn(streamArn: string): string | undefined {
  return /:table\/([^/]+)\/stream\//.exec(streamArn)?.[1];
}

export class LocalTableStreams {
  private readonly byTable = new Map<string, string>();
  private readonly arns = new Set<string>();

  constructor(private readonly dynamodb: DynamoDBClient) {}

  /**
   * Reads the stream of a table the runtime has just created (or found in a data directory). A
   * persisted table keeps the stream it was created with: if the template now asks for another
   * view type, or for none, the stream is replaced or disabled, as a CloudFormation update would.
   */
  async register(
    stackName: string,
    logicalId: string,
    tableName: string,
    wanted: StreamSpecification | undefined,
  ): Promise<void> {
    let table = await this.describe(tableName);
    const current = table.StreamSpecification?.StreamEnabled ? table.StreamSpecification : undefined;
    if (current?.StreamViewType !== wanted?.StreamViewType) {
      if (current) {
        await this.dynamodb.send(
          new UpdateTableCommand({ TableName: tableName, StreamSpecification: { StreamEnabled: false } }),
        );
      }
      if (wanted) {
        await this.dynamodb.send(
          new UpdateTableCommand({ TableName: tableName, StreamSpecification: wanted }),
        );
      }
      table = await this.describe(tableName);
    }
    const key = `${stackName}/${logicalId}`;
    this.byTable.delete(key);
    if (wanted && table.LatestStreamArn) {
      this.byTable.set(key, table.LatestStreamArn);
      this.arns.add(table.LatestStreamArn);
    }
  }

  private async describe(tableName: string): Promise<TableDescription> {
    const { Table } = await this.dynamodb.send(new DescribeTableCommand({ TableName: tableName }));
    if (!Table) throw new Error(`DynamoDB Local did not describe table ${tableName}`);
    return Table;
  }

  /** `Fn::GetAtt <table>.StreamArn`: the stream of the local table. */
  streamArn(stackName: string, logicalId: string): string {
    const arn = this.byTable.get(`${stackName}/${logicalId}`);
    if (!arn) {
      throw new Error(
        `StreamArn of ${logicalId}: the table has no stream (no StreamSpecification), or is not created yet`,
      );
    }
    return arn;
  }

  /** Whether the ARN is the stream of a table this runtime created. */
  isLocalStream(arn: string): boolean {
    return this.arns.has(arn);
  }
}
