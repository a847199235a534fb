/**
 * The DynamoDB gateway (lib/local-runtime/dynamodb/gateway.ts) in front of DynamoDB Local: every
 * request authenticated as DynamoDB authenticates it, and authorized as IAM authorizes it (actions
 * per operation, index ARNs, fine-grained condition keys, transactions item by item, the KMS key of
 * an encrypted table), with the real AWS SDK and the evaluator the runtime uses. A denied request
 * never reaches DynamoDB Local.
 */
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DynamoDBClient,
  ExecuteStatementCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { startDynamoDbGateway } from '../../../../lib/local-runtime/dynamodb/gateway';
import type { TableInfo } from '../../../../lib/local-runtime/dynamodb/iam-requests';
import type { CallerCredentials } from '../../../../lib/local-runtime/iam';
import { compilePolicy } from '../../../../lib/local-runtime/iam';
import type { RunningServer } from '../../../../lib/local-runtime/protocol/http-server';
import {
  dynamoClient,
  type RunningEmulator,
  startDynamoDbLocal,
  TEST_CREDENTIALS,
} from '../../../support/emulators';
import {
  TEST_ACCOUNT,
  TEST_REGION,
  TEST_ROOT,
  type TestAccount,
  testAccount,
} from '../../../support/local-iam';

const arn = (name: string) => `arn:aws:dynamodb:${TEST_REGION}:${TEST_ACCOUNT}:table/${name}`;
const KEY_ARN = `arn:aws:kms:${TEST_REGION}:${TEST_ACCOUNT}:key/state-key`;
const TABLES: Record<string, TableInfo> = {
  GwState: {
    name: 'GwState',
    arn: arn('GwState'),
    partitionKey: 'OrderID',
    indexPartitionKeys: { ByState: 'ProcessState' },
  },
  GwOther: { name: 'GwOther', arn: arn('GwOther'), partitionKey: 'pk', indexPartitionKeys: {} },
  GwSecret: {
    name: 'GwSecret',
    arn: arn('GwSecret'),
    partitionKey: 'pk',
    indexPartitionKeys: {},
    kmsKey: KEY_ARN,
  },
};

let dynamodb: RunningEmulator;
let account: TestAccount;
let gateway: RunningServer;
const problems: string[] = [];
/** What the gateway told of each successful write: the tables written to. */
const written: Array<readonly string[] | undefined> = [];

function clientAs(caller: {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}): DynamoDBClient {
  return new DynamoDBClient({
    endpoint: gateway.endpoint,
    region: TEST_REGION,
    credentials: caller,
    maxAttempts: 1,
  });
}
const sdk = (caller: CallerCredentials) => clientAs(account.sdkCredentials(caller));

async function refusal(promise: Promise<unknown>): Promise<{ name: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return { name: (error as Error).name, message: (error as Error).message };
  }
  throw new Error('expected the request to be refused');
}

beforeAll(async () => {
  dynamodb = await startDynamoDbLocal();
  const direct = dynamoClient(dynamodb.endpoint);
  await direct.send(
    new CreateTableCommand({
      TableName: 'GwState',
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'OrderID', KeyType: 'HASH' }],
      AttributeDefinitions: [
        { AttributeName: 'OrderID', AttributeType: 'S' },
        { AttributeName: 'ProcessState', AttributeType: 'S' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'ByState',
          KeySchema: [{ AttributeName: 'ProcessState', KeyType: 'HASH' }],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
      ],
    }),
  );
  for (const name of ['GwOther', 'GwSecret']) {
    await direct.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      }),
    );
  }
  direct.destroy();
  account = testAccount();
  account.iam.keys.define({
    arn: KEY_ARN,
    keyId: 'state-key',
    declaredAt: 'test',
    // The default key policy: the account's identity policies decide.
    policy: compilePolicy('key policy', 'resource', {
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Principal: { AWS: `arn:aws:iam::${TEST_ACCOUNT}:root` },
          Action: 'kms:*',
          Resource: '*',
        },
      ],
    }),
  });
  gateway = await startDynamoDbGateway({
    target: dynamodb.endpoint,
    iam: account.iam,
    region: TEST_REGION,
    accountId: TEST_ACCOUNT,
    tableOf: (name) => TABLES[name],
    onProblem: (message) => problems.push(message),
    backendAccessKeyId: TEST_CREDENTIALS.accessKeyId,
    onWrite: (tables) => written.push(tables),
  });
});

afterAll(async () => {
  await gateway?.stop();
  await dynamodb?.stop();
});

afterEach(() => expect(problems).toEqual([]));

describe('authentication', () => {
  it('refuses an unsigned request, an unknown key, a wrong secret and a session without its token', async () => {
    const unsigned = await fetch(gateway.endpoint, {
      method: 'POST',
      headers: {
        'x-amz-target': 'DynamoDB_20120810.ListTables',
        'content-type': 'application/x-amz-json-1.0',
      },
      body: '{}',
    });
    expect(unsigned.status).toBe(400);
    expect(await unsigned.json()).toMatchObject({
      __type: expect.stringMatching(/#MissingAuthenticationTokenException$/),
    });
    const get = new GetItemCommand({ TableName: 'GwState', Key: { OrderID: { S: 'o-1' } } });
    expect((await refusal(clientAs({ accessKeyId: 'nobody', secretAccessKey: 'x' }).send(get))).name).toBe(
      'UnrecognizedClientException',
    );
    expect((await refusal(clientAs({ ...TEST_ROOT, secretAccessKey: 'wrong' }).send(get))).name).toBe(
      'InvalidSignatureException',
    );
    const session = account.role('gw-tokenless', [{ Effect: 'Allow', Action: 'dynamodb:*', Resource: '*' }]);
    const { sessionToken: _token, ...withoutToken } = account.sdkCredentials(session);
    expect((await refusal(clientAs(withoutToken).send(get))).name).toBe('UnrecognizedClientException');
  });

  it('lets the root (the developer) do anything', async () => {
    const root = clientAs(TEST_ROOT);
    await root.send(new PutItemCommand({ TableName: 'GwOther', Item: { pk: { S: 'root' } } }));
    expect(
      (await root.send(new GetItemCommand({ TableName: 'GwOther', Key: { pk: { S: 'root' } } }))).Item,
    ).toEqual({
      pk: { S: 'root' },
    });
  });
});

describe('stream reads', () => {
  it('serves every reader of a shard, each reading on from its own iterators, on the stream the iterator names', async () => {
    // Two event sources on one table's stream (the state store's notifier and admission releaser)
    // read the same shard from the same checkpoint; the gateway used to refuse one of them once it
    // lost track of the iterators it had handed out.
    const direct = dynamoClient(dynamodb.endpoint);
    const { TableDescription } = await direct.send(
      new CreateTableCommand({
        TableName: 'GwStreamed',
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
      }),
    );
    await direct.send(new PutItemCommand({ TableName: 'GwStreamed', Item: { pk: { S: 'one' } } }));
    direct.destroy();
    const streamArn = TableDescription?.LatestStreamArn as string;
    const readers = [0, 1].map(
      () =>
        new DynamoDBStreamsClient({
          endpoint: gateway.endpoint,
          region: TEST_REGION,
          credentials: TEST_ROOT,
          maxAttempts: 1,
        }),
    );
    const [first, second] = readers as [DynamoDBStreamsClient, DynamoDBStreamsClient];
    const { StreamDescription } = await first.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    const shardId = StreamDescription?.Shards?.[0]?.ShardId;
    const iteratorOf = async (reader: DynamoDBStreamsClient, SequenceNumber?: string) =>
      (
        await reader.send(
          new GetShardIteratorCommand({
            StreamArn: streamArn,
            ShardId: shardId,
            ...(SequenceNumber === undefined
              ? { ShardIteratorType: 'TRIM_HORIZON' }
              : { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber }),
          }),
        )
      ).ShardIterator as string;
    const { Records: before } = await first.send(
      new GetRecordsCommand({ ShardIterator: await iteratorOf(first) }),
    );
    // Both resume after the same record (their checkpoints), as two event sources do at start.
    const checkpoint = before?.[0]?.dynamodb?.SequenceNumber;
    const iterators = [await iteratorOf(first, checkpoint), await iteratorOf(second, checkpoint)];
    const again = dynamoClient(dynamodb.endpoint);
    await again.send(new PutItemCommand({ TableName: 'GwStreamed', Item: { pk: { S: 'two' } } }));
    again.destroy();
    // Each reader reads on, in turn, from the iterator its last read handed it.
    for (const expected of [['two'], []]) {
      for (const [index, reader] of readers.entries()) {
        const { Records, NextShardIterator } = await reader.send(
          new GetRecordsCommand({ ShardIterator: iterators[index] }),
        );
        expect(Records?.map((record) => record.dynamodb?.Keys?.pk?.S)).toEqual(expected);
        iterators[index] = NextShardIterator as string;
      }
    }
    // GetRecords is authorized on the stream its iterator names; one that names none is refused.
    expect(
      (await refusal(first.send(new GetRecordsCommand({ ShardIterator: `forged|${iterators[0]}` })))).message,
    ).toMatch(/names no stream/);
    // And on that stream: a role that may read it reads on; one that may read another stream only is denied.
    const streamsAs = (roleName: string, resource: string) =>
      new DynamoDBStreamsClient({
        endpoint: gateway.endpoint,
        region: TEST_REGION,
        credentials: account.sdkCredentials(
          account.role(roleName, [{ Effect: 'Allow', Action: 'dynamodb:GetRecords', Resource: resource }]),
        ),
        maxAttempts: 1,
      });
    const allowed = streamsAs('gw-this-stream', streamArn);
    const stranger = streamsAs('gw-other-stream', streamArn.replace('/GwStreamed/', '/GwOther/'));
    expect((await allowed.send(new GetRecordsCommand({ ShardIterator: iterators[0] }))).Records).toEqual([]);
    expect((await refusal(stranger.send(new GetRecordsCommand({ ShardIterator: iterators[0] })))).name).toBe(
      'AccessDeniedException',
    );
    allowed.destroy();
    stranger.destroy();
    for (const reader of readers) reader.destroy();
  });
});

describe('authorization', () => {
  it('allows what the role grants, and refuses the rest with AWS error, writing nothing', async () => {
    const reader = sdk(
      account.role('gw-reader', [{ Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: arn('GwOther') }]),
    );
    await reader.send(new GetItemCommand({ TableName: 'GwOther', Key: { pk: { S: 'x' } } }));
    const denied = await refusal(
      reader.send(new PutItemCommand({ TableName: 'GwOther', Item: { pk: { S: 'sneaky' } } })),
    );
    expect(denied).toEqual({
      name: 'AccessDeniedException',
      message: `User: arn:aws:sts::${TEST_ACCOUNT}:assumed-role/gw-reader/gw-reader is not authorized to perform: dynamodb:PutItem on resource: ${arn('GwOther')} because no identity-based policy allows the dynamodb:PutItem action`,
    });
    const root = clientAs(TEST_ROOT);
    expect(
      (await root.send(new GetItemCommand({ TableName: 'GwOther', Key: { pk: { S: 'sneaky' } } }))).Item,
    ).toBeUndefined();
  });

  it('checks a Query on an index against the index ARN, not the table', async () => {
    const indexOnly = sdk(
      account.role('gw-index', [
        { Effect: 'Allow', Action: 'dynamodb:Query', Resource: `${arn('GwState')}/index/ByState` },
      ]),
    );
    const query = (IndexName?: string) =>
      new QueryCommand({
        TableName: 'GwState',
        ...(IndexName ? { IndexName } : {}),
        KeyConditionExpression: IndexName ? 'ProcessState = :s' : 'OrderID = :s',
        ExpressionAttributeValues: { ':s': { S: 'Pending' } },
      });
    await indexOnly.send(query('ByState'));
    expect((await refusal(indexOnly.send(query()))).name).toBe('AccessDeniedException');
  });

  it('evaluates fine-grained access: dynamodb:Attributes (conditions count), Select and ReturnValues', async () => {
    // The pattern of the agents' call reservation grant (lib/scheduler-agent-supervisor/state-store.ts).
    const counter = sdk(
      account.role('gw-counter', [
        {
          Effect: 'Allow',
          Action: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
          Resource: arn('GwState'),
          Condition: {
            'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['OrderID', 'CallsMade', 'RetryBudget'] },
            StringEqualsIfExists: {
              'dynamodb:Select': 'SPECIFIC_ATTRIBUTES',
              'dynamodb:ReturnValues': ['NONE', 'UPDATED_OLD', 'UPDATED_NEW'],
            },
          },
        },
      ]),
    );
    const key = { OrderID: { S: 'o-fine' } };
    await counter.send(
      new UpdateItemCommand({
        TableName: 'GwState',
        Key: key,
        UpdateExpression: 'ADD #calls :one',
        ConditionExpression: 'attribute_not_exists(#calls) OR #calls < #budget',
        ExpressionAttributeNames: { '#calls': 'CallsMade', '#budget': 'RetryBudget' },
        ExpressionAttributeValues: { ':one': { N: '1' } },
      }),
    );
    // A condition on an attribute the grant does not name: "it cannot perform conditional write
    // operations based on any other attributes" (specifying-conditions.html).
    const conditioned = await refusal(
      counter.send(
        new UpdateItemCommand({
          TableName: 'GwState',
          Key: key,
          UpdateExpression: 'ADD #calls :one',
          ConditionExpression: '#lock = :me',
          ExpressionAttributeNames: { '#calls': 'CallsMade', '#lock': 'LockedBy' },
          ExpressionAttributeValues: { ':one': { N: '1' }, ':me': { S: 'x' } },
        }),
      ),
    );
    expect(conditioned.name).toBe('AccessDeniedException');
    const returningAll = await refusal(
      counter.send(
        new UpdateItemCommand({
          TableName: 'GwState',
          Key: key,
          UpdateExpression: 'ADD CallsMade :one',
          ExpressionAttributeValues: { ':one': { N: '1' } },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    expect(returningAll.name).toBe('AccessDeniedException');
    // A read of the whole item (Select ALL_ATTRIBUTES) is refused; a projection of granted attributes is not.
    expect((await refusal(counter.send(new GetItemCommand({ TableName: 'GwState', Key: key })))).name).toBe(
      'AccessDeniedException',
    );
    const { Item } = await counter.send(
      new GetItemCommand({ TableName: 'GwState', Key: key, ProjectionExpression: 'OrderID, CallsMade' }),
    );
    expect(Item).toEqual({ OrderID: { S: 'o-fine' }, CallsMade: { N: '1' } });
  });

  it('checks each item of a transaction as its own action, and a refused transaction writes nothing', async () => {
    const putter = sdk(
      account.role('gw-putter', [
        { Effect: 'Allow', Action: 'dynamodb:PutItem', Resource: [arn('GwOther'), arn('GwState')] },
      ]),
    );
    const transaction = (second: 'Put' | 'Update') =>
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: 'GwOther', Item: { pk: { S: `tx-${second}` } } } },
          second === 'Put'
            ? { Put: { TableName: 'GwState', Item: { OrderID: { S: `tx-${second}` } } } }
            : {
                Update: {
                  TableName: 'GwState',
                  Key: { OrderID: { S: 'tx-update' } },
                  UpdateExpression: 'SET A = :a',
                  ExpressionAttributeValues: { ':a': { S: 'a' } },
                },
              },
        ],
      });
    await putter.send(transaction('Put'));
    const denied = await refusal(putter.send(transaction('Update')));
    expect(denied.message).toContain('dynamodb:UpdateItem');
    const root = clientAs(TEST_ROOT);
    expect(
      (await root.send(new GetItemCommand({ TableName: 'GwOther', Key: { pk: { S: 'tx-Update' } } }))).Item,
    ).toBeUndefined();
  });

  it('needs kms:Decrypt of the key of a table encrypted with a customer-managed key, through DynamoDB', async () => {
    const tableOnly = sdk(
      account.role('gw-no-key', [{ Effect: 'Allow', Action: 'dynamodb:PutItem', Resource: arn('GwSecret') }]),
    );
    const put = new PutItemCommand({ TableName: 'GwSecret', Item: { pk: { S: 'secret' } } });
    const denied = await refusal(tableOnly.send(put));
    expect(denied.name).toBe('AccessDeniedException');
    expect(denied.message).toContain(`kms:Decrypt on resource: ${KEY_ARN}`);
    const withKey = sdk(
      account.role('gw-key', [
        { Effect: 'Allow', Action: 'dynamodb:PutItem', Resource: arn('GwSecret') },
        {
          Effect: 'Allow',
          Action: 'kms:Decrypt',
          Resource: KEY_ARN,
          Condition: { StringEquals: { 'kms:ViaService': `dynamodb.${TEST_REGION}.amazonaws.com` } },
        },
      ]),
    );
    await withKey.send(put);
  });
});

describe('writes told', () => {
  it('tells each successful write with the tables it wrote to, and no read or refused write', async () => {
    const root = clientAs(TEST_ROOT);
    written.length = 0;
    await root.send(new PutItemCommand({ TableName: 'GwOther', Item: { pk: { S: 'w-1' } } }));
    await root.send(new GetItemCommand({ TableName: 'GwOther', Key: { pk: { S: 'w-1' } } }));
    await root.send(
      new BatchWriteItemCommand({
        RequestItems: {
          GwOther: [{ PutRequest: { Item: { pk: { S: 'w-2' } } } }],
          [arn('GwState')]: [{ DeleteRequest: { Key: { OrderID: { S: 'w-3' } } } }],
        },
      }),
    );
    await root.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: 'GwOther',
              Key: { pk: { S: 'w-1' } },
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
          { Put: { TableName: 'GwState', Item: { OrderID: { S: 'w-4' } } } },
        ],
      }),
    );
    await root.send(new ExecuteStatementCommand({ Statement: `INSERT INTO "GwOther" VALUE {'pk': 'w-5'}` }));
    const refused = root.send(
      new PutItemCommand({
        TableName: 'GwOther',
        Item: { pk: { S: 'w-1' } },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    expect((await refusal(refused)).name).toBe('ConditionalCheckFailedException');

    expect(written).toEqual([['GwOther'], ['GwOther', 'GwState'], ['GwState'], ['GwOther']]);
    root.destroy();
  });
});

describe('report mode', () => {
  it('lets a denied request through and logs it once', async () => {
    const reporting = testAccount('report');
    const server = await startDynamoDbGateway({
      target: dynamodb.endpoint,
      iam: reporting.iam,
      region: TEST_REGION,
      accountId: TEST_ACCOUNT,
      tableOf: (name) => TABLES[name],
      onProblem: (message) => problems.push(message),
      backendAccessKeyId: TEST_CREDENTIALS.accessKeyId,
    });
    try {
      const nobody = reporting.role('gw-report', []);
      const client = new DynamoDBClient({
        endpoint: server.endpoint,
        region: TEST_REGION,
        credentials: reporting.sdkCredentials(nobody),
      });
      for (const pk of ['r-1', 'r-2'])
        await client.send(new PutItemCommand({ TableName: 'GwOther', Item: { pk: { S: pk } } }));
      expect(reporting.logged).toEqual([
        `iam report: would deny: User: ${nobody.principal.arn} is not authorized to perform: dynamodb:PutItem on resource: ${arn('GwOther')} because no identity-based policy allows the dynamodb:PutItem action`,
      ]);
    } finally {
      await server.stop();
    }
  });
});
