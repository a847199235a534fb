import { CreateTableCommand, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import {
  dynamoClient,
  type RunningEmulator,
  sqsClient,
  startDynamoDbLocal,
  startLocalSqs,
} from '../../support/emulators';

describe('test emulators', () => {
  let dynamo: RunningEmulator;
  let sqs: RunningEmulator;
  beforeAll(async () => {
    [dynamo, sqs] = await Promise.all([startDynamoDbLocal(), startLocalSqs()]);
  });
  afterAll(async () => {
    await Promise.all([dynamo.stop(), sqs.stop()]);
  });

  it('DynamoDB Local rejects a conditional put on an existing item', async () => {
    const client = dynamoClient(dynamo.endpoint);
    await client.send(
      new CreateTableCommand({
        TableName: 'probe',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      }),
    );
    const put = () =>
      client.send(
        new PutItemCommand({
          TableName: 'probe',
          Item: { id: { S: 'a' } },
          ConditionExpression: 'attribute_not_exists(id)',
        }),
      );
    await put();
    await expect(put()).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    const got = await client.send(new GetItemCommand({ TableName: 'probe', Key: { id: { S: 'a' } } }));
    expect(got.Item).toEqual({ id: { S: 'a' } });
  });

  it('the SQS service round-trips a message over the JSON protocol', async () => {
    const client = sqsClient(sqs.endpoint);
    const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: 'q' }));
    await client.send(new SendMessageCommand({ QueueUrl, MessageBody: 'hello' }));
    const got = await client.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }));
    expect(got.Messages?.map((m) => m.Body)).toEqual(['hello']);
  });
});

describe('AWS JSON endpoint double', () => {
  it('records an SDK call and replays a scripted AWS error by name', async () => {
    const { SFNClient, SendTaskSuccessCommand } = await import('@aws-sdk/client-sfn');
    const { startAwsJsonEndpoint } = await import('../../support/aws-json-endpoint');
    const { TEST_CREDENTIALS, TEST_REGION } = await import('../../support/emulators');
    const endpoint = await startAwsJsonEndpoint();
    try {
      endpoint.respondWith((call) =>
        call.body.taskToken === 'late' ? { error: 'TaskTimedOut' } : undefined,
      );
      const sfn = new SFNClient({
        endpoint: endpoint.endpoint,
        region: TEST_REGION,
        credentials: TEST_CREDENTIALS,
      });
      await sfn.send(new SendTaskSuccessCommand({ taskToken: 'ok', output: '{}' }));
      await expect(
        sfn.send(new SendTaskSuccessCommand({ taskToken: 'late', output: '{}' })),
      ).rejects.toMatchObject({
        name: 'TaskTimedOut',
      });
      expect(endpoint.callsTo('SendTaskSuccess').map((c) => c.body.taskToken)).toEqual(['ok', 'late']);
    } finally {
      await endpoint.stop();
    }
  });
});
