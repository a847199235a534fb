/**
 * DynamoDB Local, AWS's own emulator, as the local runtime and the tests start it: the features the
 * project relies on, over the real AWS SDK (transactions with cancellation reasons, streams read
 * through the DynamoDB Streams API, time to live, AWS's name validation and quotas), persistence in a data
 * directory, a clean stop, and the error a machine without Java gets.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import {
  dynamoDbLocalBindingWarning,
  JAVA_DEBIAN_PACKAGE,
  JavaNotFoundError,
  startDynamoDbLocal as launchDynamoDbLocal,
} from '../../../../lib/local-runtime/dynamodb/dynamodb-local';
import {
  dynamoClient,
  type RunningEmulator,
  startDynamoDbLocal,
  TEST_CREDENTIALS,
  TEST_REGION,
} from '../../../support/emulators';

jest.setTimeout(90_000);

let tableCounter = 0;

async function createTable(client: DynamoDBClient, stream = false): Promise<string> {
  tableCounter += 1;
  const name = `items-${tableCounter}`;
  await client.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      ...(stream
        ? { StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } }
        : {}),
    }),
  );
  return name;
}

/** A TRIM_HORIZON iterator on the first shard of a stream. */
async function trimHorizon(streams: DynamoDBStreamsClient, streamArn: string): Promise<string | undefined> {
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  const { ShardIterator } = await streams.send(
    new GetShardIteratorCommand({
      StreamArn: streamArn,
      ShardId: StreamDescription?.Shards?.[0]?.ShardId,
      ShardIteratorType: 'TRIM_HORIZON',
    }),
  );
  return ShardIterator;
}

/** Every record of a single-shard stream so far, through the DynamoDB Streams API. */
async function streamRecords(streams: DynamoDBStreamsClient, streamArn: string): Promise<StreamRecord[]> {
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  const records: StreamRecord[] = [];
  for (const shard of StreamDescription?.Shards ?? []) {
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shard.ShardId,
        ShardIteratorType: 'TRIM_HORIZON',
      }),
    );
    let iterator = ShardIterator;
    while (iterator) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      records.push(...(page.Records ?? []));
      if ((page.Records ?? []).length === 0) break;
      iterator = page.NextShardIterator;
    }
  }
  return records;
}

describe('DynamoDB Local (the emulator behind tests and the local runtime)', () => {
  let emulator: RunningEmulator;
  let client: DynamoDBClient;
  let streams: DynamoDBStreamsClient;

  beforeAll(async () => {
    emulator = await startDynamoDbLocal();
    client = dynamoClient(emulator.endpoint);
    streams = new DynamoDBStreamsClient({
      endpoint: emulator.endpoint,
      region: TEST_REGION,
      credentials: TEST_CREDENTIALS,
    });
  });
  afterAll(async () => {
    client.destroy();
    streams.destroy();
    await emulator.stop();
  });

  const item = (table: string, id: string) =>
    client.send(new GetItemCommand({ TableName: table, Key: { id: { S: id } }, ConsistentRead: true }));

  it('grants no web page CORS, its own origin included (a preflight and a request get no Access-Control-Allow-Origin)', async () => {
    const port = new URL(emulator.endpoint).port;
    for (const origin of [
      'https://evil.example',
      `http://127.0.0.1:${port}`,
      `http://localhost:${port}`,
      'null',
    ]) {
      const preflight = await fetch(emulator.endpoint, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'x-amz-target,content-type',
        },
      });
      expect([origin, preflight.headers.get('access-control-allow-origin')]).toEqual([origin, null]);
      const request = await fetch(emulator.endpoint, {
        method: 'POST',
        headers: {
          origin,
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'DynamoDB_20120810.ListTables',
          authorization: `AWS4-HMAC-SHA256 Credential=${TEST_CREDENTIALS.accessKeyId}/20260101/${TEST_REGION}/dynamodb/aws4_request, SignedHeaders=host, Signature=0`,
        },
        body: '{}',
      });
      expect([origin, request.headers.get('access-control-allow-origin')]).toEqual([origin, null]);
    }
  });

  it('listens on every interface, as the start warning says (no option binds it to loopback)', async () => {
    const port = Number(new URL(emulator.endpoint).port);
    // This machine's addresses that are not loopback: DynamoDB Local answers on them too.
    const external = Object.values(networkInterfaces())
      .flat()
      .filter((address) => address !== undefined && !address.internal && address.family === 'IPv4')
      .map((address) => address?.address as string);
    for (const host of [...external, '127.0.0.1']) {
      const reached = await new Promise<boolean>((resolve) => {
        const socket = connect({ host, port }, () => {
          socket.destroy();
          resolve(true);
        });
        socket.on('error', () => resolve(false));
      });
      expect([host, reached]).toEqual([host, true]);
    }
    expect(dynamoDbLocalBindingWarning(port)).toContain(
      `DynamoDB Local listens on every network interface (port ${port}): neither it nor its JVM has an option to bind it to 127.0.0.1`,
    );
  });

  it('commits two items atomically with TransactWriteItems', async () => {
    const table = await createTable(client);
    await client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: table, Item: { id: { S: 'order' }, state: { S: 'Shipped' } } } },
          { Put: { TableName: table, Item: { id: { S: 'outbox#1' }, event: { S: 'OrderShipped' } } } },
        ],
      }),
    );
    expect((await item(table, 'order')).Item).toEqual({ id: { S: 'order' }, state: { S: 'Shipped' } });
    expect((await item(table, 'outbox#1')).Item).toEqual({
      id: { S: 'outbox#1' },
      event: { S: 'OrderShipped' },
    });
  });

  it('cancels every write of a transaction when one condition fails, with the reasons and the item', async () => {
    const table = await createTable(client);
    await client.send(
      new PutItemCommand({ TableName: table, Item: { id: { S: 'order' }, version: { N: '2' } } }),
    );
    const failed = client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          {
            Update: {
              TableName: table,
              Key: { id: { S: 'order' } },
              UpdateExpression: 'SET version = :next',
              ConditionExpression: 'version = :expected',
              ExpressionAttributeValues: { ':expected': { N: '1' }, ':next': { N: '3' } },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
          { Put: { TableName: table, Item: { id: { S: 'outbox#2' }, event: { S: 'OrderChanged' } } } },
        ],
      }),
    );
    const error = await failed.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect((error as TransactionCanceledException).CancellationReasons).toEqual([
      {
        Code: 'ConditionalCheckFailed',
        Message: 'The conditional request failed',
        Item: { id: { S: 'order' }, version: { N: '2' } },
      },
      { Code: 'None' },
    ]);
    expect((await item(table, 'order')).Item).toEqual({ id: { S: 'order' }, version: { N: '2' } });
    expect((await item(table, 'outbox#2')).Item).toBeUndefined();
  });

  it('streams INSERT, MODIFY and REMOVE with both images, read through the DynamoDB Streams API', async () => {
    const table = await createTable(client, true);
    const key = { id: { S: 'a' } };
    await client.send(new PutItemCommand({ TableName: table, Item: { ...key, n: { N: '1' } } }));
    await client.send(
      new UpdateItemCommand({
        TableName: table,
        Key: key,
        UpdateExpression: 'SET n = :n',
        ExpressionAttributeValues: { ':n': { N: '2' } },
      }),
    );
    await client.send(new DeleteItemCommand({ TableName: table, Key: key }));
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
    const records = await streamRecords(streams, Table?.LatestStreamArn ?? '');
    expect(
      records.map((record) => [record.eventName, record.dynamodb?.OldImage, record.dynamodb?.NewImage]),
    ).toEqual([
      ['INSERT', undefined, { ...key, n: { N: '1' } }],
      ['MODIFY', { ...key, n: { N: '1' } }, { ...key, n: { N: '2' } }],
      ['REMOVE', { ...key, n: { N: '2' } }, undefined],
    ]);
    const sequence = records.map((record) => BigInt(record.dynamodb?.SequenceNumber ?? '0'));
    expect([...sequence].sort((a, b) => (a < b ? -1 : 1))).toEqual(sequence);
  });

  it('enforces time to live: an expired item is deleted, and the deletion is in the stream', async () => {
    const table = await createTable(client, true);
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: table,
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      }),
    );
    const past = String(Math.floor(Date.now() / 1000) - 60);
    await client.send(
      new PutItemCommand({ TableName: table, Item: { id: { S: 'old' }, expiresAt: { N: past } } }),
    );
    await client.send(new PutItemCommand({ TableName: table, Item: { id: { S: 'kept' } } }));
    const deadline = Date.now() + 60_000;
    while ((await item(table, 'old')).Item && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect((await item(table, 'old')).Item).toBeUndefined();
    expect((await item(table, 'kept')).Item).toEqual({ id: { S: 'kept' } });
  });

  it("applies AWS's own name validation (table names of 3 to 255 characters)", async () => {
    await expect(
      client.send(
        new CreateTableCommand({
          TableName: 'ab',
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException' });
  });

  // AWS's DynamoDB quotas are DynamoDB Local's own: the runtime does not re-implement them, and these
  // tests prove the emulator holds to them, each naming the page that states it.

  // https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-items
  // ("The maximum item size in DynamoDB is 400 KB")
  it('refuses an item over 400 KB (ValidationException) and takes one under it', async () => {
    const table = await createTable(client);
    const put = (bytes: number) =>
      client.send(
        new PutItemCommand({ TableName: table, Item: { id: { S: 'big' }, v: { S: 'x'.repeat(bytes) } } }),
      );
    await put(399 * 1024);
    await expect(put(400 * 1024)).rejects.toMatchObject({
      name: 'ValidationException',
      message: 'Item size has exceeded the maximum allowed size',
    });
  });

  // https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-dynamodb-transactions
  // ("Transactions can't contain more than 100 unique items")
  it('refuses a TransactWriteItems of 101 actions and takes 100', async () => {
    const table = await createTable(client);
    const transaction = (count: number) =>
      client.send(
        new TransactWriteItemsCommand({
          TransactItems: Array.from({ length: count }, (_, index) => ({
            Put: { TableName: table, Item: { id: { S: `t${index}` } } },
          })),
        }),
      );
    await transaction(100);
    await expect(transaction(101)).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringContaining('Member must have length less than or equal to 100'),
    });
  });

  // https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-dynamodb-transactions
  // ("Transactions can't contain more than 4 MB of data")
  it('refuses a transaction of more than 4 MB', async () => {
    const table = await createTable(client);
    await expect(
      client.send(
        new TransactWriteItemsCommand({
          TransactItems: Array.from({ length: 11 }, (_, index) => ({
            Put: { TableName: table, Item: { id: { S: `b${index}` }, v: { S: 'x'.repeat(390 * 1024) } } },
          })),
        }),
      ),
    ).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringContaining('Transaction payload size cannot exceed 4MB'),
    });
  });

  // https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html ("as many
  // as 25 put or delete requests") and API_BatchGetItem.html ("as many as 100 items")
  it('refuses a BatchWriteItem of 26 requests and a BatchGetItem of 101 keys, and takes 25 and 100', async () => {
    const table = await createTable(client);
    const write = (count: number) =>
      client.send(
        new BatchWriteItemCommand({
          RequestItems: {
            [table]: Array.from({ length: count }, (_, index) => ({
              PutRequest: { Item: { id: { S: `w${index}` } } },
            })),
          },
        }),
      );
    const read = (count: number) =>
      client.send(
        new BatchGetItemCommand({
          RequestItems: {
            [table]: { Keys: Array.from({ length: count }, (_, index) => ({ id: { S: `w${index}` } })) },
          },
        }),
      );
    await write(25);
    await expect(write(26)).rejects.toMatchObject({
      name: 'ValidationException',
      message: 'Too many items requested for the BatchWriteItem call',
    });
    expect((await read(100)).Responses?.[table]).toHaveLength(25);
    await expect(read(101)).rejects.toMatchObject({
      name: 'ValidationException',
      message: 'Too many items requested for the BatchGetItem call',
    });
  });
});

describe('DynamoDB Local process', () => {
  let workDir: string;
  beforeAll(() => {
    workDir = mkdtempSync(join(tmpdir(), 'dynamodb-local-it-'));
  });
  afterAll(() => {
    rmSync(workDir, { recursive: true, force: true });
  });

  const groupIsGone = (pid: number) => {
    try {
      process.kill(-pid, 0);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ESRCH';
    }
  };

  it('keeps tables in a data directory across a restart, and leaves no JVM behind when stopped', async () => {
    const dataDirectory = join(workDir, 'data');
    const first = await launchDynamoDbLocal({ dataDirectory });
    const firstClient = dynamoClient(first.endpoint);
    const table = await createTable(firstClient);
    await firstClient.send(new PutItemCommand({ TableName: table, Item: { id: { S: 'kept' } } }));
    firstClient.destroy();
    await first.stop();
    expect(groupIsGone(first.pid)).toBe(true);

    const second = await launchDynamoDbLocal({ dataDirectory });
    const secondClient = dynamoClient(second.endpoint);
    try {
      expect(second.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const { Item } = await secondClient.send(
        new GetItemCommand({ TableName: table, Key: { id: { S: 'kept' } }, ConsistentRead: true }),
      );
      expect(Item).toEqual({ id: { S: 'kept' } });
    } finally {
      secondClient.destroy();
      await second.stop();
    }
    expect(groupIsGone(second.pid)).toBe(true);
  });

  it('reads from TRIM_HORIZON the first records written after a restart into streams that were empty', async () => {
    // DynamoDB Local numbers stream records with one counter that a new JVM resumes from the records
    // it finds, while each shard keeps the number it started at: with streams still empty, the
    // numbers went backwards and TRIM_HORIZON skipped the first records (the chaos campaign's
    // missing Received statuses after its runtime restart).
    const dataDirectory = join(workDir, 'empty-streams');
    const first = await launchDynamoDbLocal({ dataDirectory });
    const firstClient = dynamoClient(first.endpoint);
    const tables: string[] = [];
    const firstStreams = new DynamoDBStreamsClient({
      endpoint: first.endpoint,
      region: TEST_REGION,
      credentials: TEST_CREDENTIALS,
    });
    for (let index = 0; index < 4; index += 1) {
      const table = await createTable(firstClient, true);
      tables.push(table);
      // Read as a consumer does (nothing yet): the shard is opened at the counter's number.
      const { Table } = await firstClient.send(new DescribeTableCommand({ TableName: table }));
      expect(await streamRecords(firstStreams, Table?.LatestStreamArn ?? '')).toEqual([]);
    }
    firstClient.destroy();
    firstStreams.destroy();
    await first.stop();

    const second = await launchDynamoDbLocal({ dataDirectory });
    const secondClient = dynamoClient(second.endpoint);
    const secondStreams = new DynamoDBStreamsClient({
      endpoint: second.endpoint,
      region: TEST_REGION,
      credentials: TEST_CREDENTIALS,
    });
    try {
      // A consumer positions itself before anything is written, as the runtime's readers do.
      const positioned = new Map<string, { streamArn: string; iterator: string | undefined }>();
      for (const table of tables) {
        const { Table } = await secondClient.send(new DescribeTableCommand({ TableName: table }));
        const streamArn = Table?.LatestStreamArn ?? '';
        positioned.set(table, { streamArn, iterator: await trimHorizon(secondStreams, streamArn) });
      }
      // Last table first: on the resumed counter its record got a number below its shard's start.
      for (const table of [...tables].reverse()) {
        await secondClient.send(new PutItemCommand({ TableName: table, Item: { id: { S: `in-${table}` } } }));
      }
      for (const table of tables) {
        const { streamArn, iterator } = positioned.get(table) ?? { streamArn: '', iterator: undefined };
        let page: GetRecordsCommandOutput;
        try {
          page = await secondStreams.send(new GetRecordsCommand({ ShardIterator: iterator }));
        } catch (error) {
          // An iterator taken on an empty shard: DynamoDB Local says trimmed; read from the start again.
          expect(error).toBeInstanceOf(TrimmedDataAccessException);
          const again = await trimHorizon(secondStreams, streamArn);
          page = await secondStreams.send(new GetRecordsCommand({ ShardIterator: again }));
        }
        expect((page.Records ?? []).map((record) => record.dynamodb?.Keys?.id?.S)).toEqual([`in-${table}`]);
      }
      // The runtime's own table for this is gone: a user's listing holds only the user's tables.
      const { TableNames } = await secondClient.send(new ListTablesCommand({}));
      expect(TableNames).toEqual([...tables].sort());
    } finally {
      secondClient.destroy();
      secondStreams.destroy();
      await second.stop();
    }
  });

  it('names the Debian package to install when there is no java on PATH', async () => {
    const emptyPath = mkdtempSync(join(workDir, 'no-java-'));
    const started = launchDynamoDbLocal({ env: { ...process.env, PATH: emptyPath } });
    await expect(started).rejects.toBeInstanceOf(JavaNotFoundError);
    await expect(started).rejects.toThrow(`apt-get install ${JAVA_DEBIAN_PACKAGE}`);
    expect(JAVA_DEBIAN_PACKAGE).toBe('openjdk-17-jre-headless');
  });
});
