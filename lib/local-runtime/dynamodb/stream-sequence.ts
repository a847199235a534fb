/**
 * DynamoDB Local numbers the records of every stream from one counter. A new JVM on a data directory
 * resumes that counter from the records it finds, while each shard keeps the number it opened at.
 * When the last numbers went to shards still empty (tables created, nothing written to them since),
 * the resumed counter is behind them: the next records get numbers below their shard's start, and an
 * iterator positioned at TRIM_HORIZON before they were written, as every stream consumer is
 * positioned, never returns them. Found by the order campaign, whose runtime restart lost the first
 * two orders' Received statuses (test/integration/local-runtime/dynamodb/dynamodb-local.test.ts).
 *
 * `resumeStreamSequence` moves the counter past every shard's start before anything else reads or
 * writes: it writes to a table of its own until a record is numbered beyond them, then deletes it.
 */
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  PutItemCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';

/** The table it writes to; one left by an interrupted start is deleted first. */
export const SEQUENCE_TABLE = 'local-runtime-stream-sequence';
/** Rounds of writes before giving up: the gap is known after the first, so one more is the norm. */
const MAX_ROUNDS = 5;
const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** Moves DynamoDB Local's stream sequence counter past every shard's starting number. */
export async function resumeStreamSequence(endpoint: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: CREDENTIALS });
  const streams = new DynamoDBStreamsClient({ endpoint, region: 'us-east-1', credentials: CREDENTIALS });
  try {
    await deleteSequenceTable(client);
    const highestStart = await highestShardStart(client, streams);
    if (highestStart === undefined) return;
    await client.send(
      new CreateTableCommand({
        TableName: SEQUENCE_TABLE,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' },
      }),
    );
    let written = 0;
    const write = async (count: number) => {
      for (let index = 0; index < count; index += 1) {
        written += 1;
        await client.send(
          new PutItemCommand({ TableName: SEQUENCE_TABLE, Item: { id: { S: `write-${written}` } } }),
        );
      }
    };
    await write(1);
    const reader = await sequenceReader(client, streams);
    let last = await reader.lastNumber();
    for (let round = 1; last <= highestStart; round += 1) {
      if (round > MAX_ROUNDS) {
        throw new Error(
          `DynamoDB Local's stream sequence stayed at ${last} after ${written} writes, below a shard that starts at ${highestStart}`,
        );
      }
      await write(Number(highestStart - last) + 1);
      last = await reader.lastNumber();
    }
    await deleteSequenceTable(client);
  } finally {
    client.destroy();
    streams.destroy();
  }
}

async function deleteSequenceTable(client: DynamoDBClient): Promise<void> {
  try {
    await client.send(new DeleteTableCommand({ TableName: SEQUENCE_TABLE }));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
}

/** The highest StartingSequenceNumber of any shard of any table's stream, if there is a stream. */
async function highestShardStart(
  client: DynamoDBClient,
  streams: DynamoDBStreamsClient,
): Promise<bigint | undefined> {
  let highest: bigint | undefined;
  let exclusiveStartTableName: string | undefined;
  do {
    const page = await client.send(
      new ListTablesCommand({ ExclusiveStartTableName: exclusiveStartTableName }),
    );
    for (const tableName of page.TableNames ?? []) {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
      if (!Table?.LatestStreamArn) continue;
      let exclusiveStartShardId: string | undefined;
      do {
        const { StreamDescription } = await streams.send(
          new DescribeStreamCommand({
            StreamArn: Table.LatestStreamArn,
            ExclusiveStartShardId: exclusiveStartShardId,
          }),
        );
        for (const shard of StreamDescription?.Shards ?? []) {
          const start = shard.SequenceNumberRange?.StartingSequenceNumber;
          if (start !== undefined && (highest === undefined || BigInt(start) > highest))
            highest = BigInt(start);
        }
        exclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
      } while (exclusiveStartShardId);
    }
    exclusiveStartTableName = page.LastEvaluatedTableName;
  } while (exclusiveStartTableName);
  return highest;
}

/**
 * Reads the sequence table's stream from its first record (positioned once a record exists, so that
 * TRIM_HORIZON is that record) and tells the number of the last one written.
 */
async function sequenceReader(client: DynamoDBClient, streams: DynamoDBStreamsClient) {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: SEQUENCE_TABLE }));
  const streamArn = Table?.LatestStreamArn;
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  const { ShardIterator } = await streams.send(
    new GetShardIteratorCommand({
      StreamArn: streamArn,
      ShardId: StreamDescription?.Shards?.[0]?.ShardId,
      ShardIteratorType: 'TRIM_HORIZON',
    }),
  );
  let iterator = ShardIterator;
  let last = 0n;
  return {
    async lastNumber(): Promise<bigint> {
      for (;;) {
        const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
        const records = page.Records ?? [];
        for (const record of records) last = BigInt(record.dynamodb?.SequenceNumber ?? '0');
        iterator = page.NextShardIterator;
        if (records.length === 0 || !iterator) return last;
      }
    },
  };
}
