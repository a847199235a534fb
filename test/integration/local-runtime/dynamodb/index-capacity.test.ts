/**
 * What DynamoDB Local charges a write on each secondary index (ReturnConsumedCapacity INDEXES),
 * checked against AWS's rules, which the local runtime's meter and the bench's figures rely on
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.ThroughputConsiderations.Writes):
 * an index is written only when a write adds, deletes or changes a key or a projected attribute of
 * its entry; a key that changes costs two writes (the old entry deleted, the new one put); an entry
 * costs 1 unit per KB of what the index projects, not of the item; and an index the item is not in
 * costs nothing.
 */
import {
  type ConsumedCapacity,
  CreateTableCommand,
  type DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { dynamoClient, type RunningEmulator, startDynamoDbLocal } from '../../../support/emulators';

jest.setTimeout(90_000);

const TABLE = 'index-capacity';
/** An attribute of about 3 KB: the item takes 3 units, an entry that projects it 3 too. */
const BIG = 'x'.repeat(3_000);

let emulator: RunningEmulator;
let client: DynamoDBClient;

beforeAll(async () => {
  emulator = await startDynamoDbLocal();
  client = dynamoClient(emulator.endpoint);
  await client.send(
    new CreateTableCommand({
      TableName: TABLE,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'id', AttributeType: 'S' },
        { AttributeName: 'part', AttributeType: 'S' },
        { AttributeName: 'since', AttributeType: 'S' },
        { AttributeName: 'owner', AttributeType: 'S' },
      ],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'IncludeIndex',
          KeySchema: [
            { AttributeName: 'part', KeyType: 'HASH' },
            { AttributeName: 'since', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['shown'] },
        },
        {
          IndexName: 'KeysIndex',
          KeySchema: [{ AttributeName: 'owner', KeyType: 'HASH' }],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
        {
          IndexName: 'AllIndex',
          KeySchema: [{ AttributeName: 'owner', KeyType: 'HASH' }],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  );
});

afterAll(async () => {
  client.destroy();
  await emulator.stop();
});

/** The units of one write: the table's own and each index's (absent: no units). */
function unitsOf(consumed: ConsumedCapacity | undefined): Record<string, number> {
  return {
    table: consumed?.Table?.CapacityUnits ?? 0,
    ...Object.fromEntries(
      Object.entries(consumed?.GlobalSecondaryIndexes ?? {}).map(([name, use]) => [name, use.CapacityUnits]),
    ),
  };
}

async function update(
  id: string,
  expression: string,
  values?: Record<string, string>,
): Promise<Record<string, number>> {
  const answer = await client.send(
    new UpdateItemCommand({
      TableName: TABLE,
      Key: { id: { S: id } },
      UpdateExpression: expression,
      ...(values && {
        ExpressionAttributeValues: Object.fromEntries(
          Object.entries(values).map(([name, value]) => [name, { S: value }]),
        ),
      }),
      ReturnConsumedCapacity: 'INDEXES',
    }),
  );
  return unitsOf(answer.ConsumedCapacity);
}

describe('DynamoDB Local, ReturnConsumedCapacity INDEXES', () => {
  it('charges each index as AWS does: what it projects, when its entry changes, twice when its key does', async () => {
    const put = await client.send(
      new PutItemCommand({
        TableName: TABLE,
        Item: {
          id: { S: 'a' },
          part: { S: '0' },
          since: { S: 't1' },
          owner: { S: 'o' },
          shown: { S: 'v1' },
          payload: { S: BIG },
        },
        ReturnConsumedCapacity: 'INDEXES',
      }),
    );
    // The total is the table's units plus every index's.
    expect(put.ConsumedCapacity?.CapacityUnits).toBe(8);
    expect(unitsOf(put.ConsumedCapacity)).toEqual({ table: 3, IncludeIndex: 1, KeysIndex: 1, AllIndex: 3 });
    // An attribute no INCLUDE or KEYS_ONLY index projects: only the table and the ALL index.
    expect(await update('a', 'SET payload = :p', { ':p': `${BIG}y` })).toEqual({ table: 3, AllIndex: 3 });
    // A projected attribute: its index's entry (small) is rewritten once.
    expect(await update('a', 'SET shown = :v', { ':v': 'v2' })).toEqual({
      table: 3,
      IncludeIndex: 1,
      AllIndex: 3,
    });
    // A sort key: delete and put in the index it keys (the ALL index projects it: one rewrite).
    expect(await update('a', 'SET since = :s', { ':s': 't2' })).toEqual({
      table: 3,
      IncludeIndex: 2,
      AllIndex: 3,
    });
    // Leaving a sparse index: its entry deleted once; then it costs nothing there.
    expect(await update('a', 'REMOVE part')).toEqual({ table: 3, IncludeIndex: 1, AllIndex: 3 });
    expect(await update('a', 'SET shown = :v', { ':v': 'v3' })).toEqual({ table: 3, AllIndex: 3 });
    // A value set to what it was changes no entry.
    expect(await update('a', 'SET shown = :v', { ':v': 'v3' })).toEqual({ table: 3 });
  });
});
