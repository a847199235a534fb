/**
 * The local runtime running a CDK app with a DynamoDB stream (fixtures/stream-app.ts): the table's
 * stream feeds a Lambda function through an event source mapping and a FIFO queue through an
 * EventBridge pipe, both driven by real writes to DynamoDB Local and checked by their effects; the
 * mapping's batches are measured as Lambda measures them (AWS/Lambda IteratorAge).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudWatchClient, GetMetricStatisticsCommand, ListMetricsCommand } from '@aws-sdk/client-cloudwatch';
import {
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  PutItemCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import { type Message, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { plantBrokenGrant } from '../../../lib/chaos/common/broken-grants';
import { type LocalRuntime, startLocalRuntime } from '../../../lib/local-runtime';
import { synthesizeStreamFixtureApp } from './fixtures/stream-app';

jest.setTimeout(120_000);

describe('local runtime running an app with a DynamoDB stream', () => {
  let workDir: string;
  let runtime: LocalRuntime;
  let dynamodb: DynamoDBClient;
  let sqs: SQSClient;
  let cloudwatch: CloudWatchClient;
  let outputs: Record<string, string>;
  const logLines: string[] = [];

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'stream-runtime-it-'));
    synthesizeStreamFixtureApp(join(workDir, 'cdk.out'));
    runtime = await startLocalRuntime({
      assemblyDir: join(workDir, 'cdk.out'),
      port: 0,
      targetFile: null,
      log: (line) => logLines.push(line),
    });
    outputs = runtime.target.outputs;
    const config = { region: runtime.target.region, credentials: runtime.target.credentials };
    dynamodb = new DynamoDBClient({ ...config, endpoint: runtime.target.endpoints.dynamodb });
    sqs = new SQSClient({ ...config, endpoint: runtime.target.endpoints.sqs });
    cloudwatch = new CloudWatchClient({ ...config, endpoint: runtime.target.endpoints.cloudwatch });
  });

  afterAll(async () => {
    dynamodb?.destroy();
    sqs?.destroy();
    cloudwatch?.destroy();
    await runtime?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMillis = 30_000): Promise<T> {
    const deadline = Date.now() + timeoutMillis;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  const output = (name: string): string => {
    const value = outputs[name];
    if (value === undefined) throw new Error(`no output ${name}`);
    return value;
  };

  const put = (pk: string) =>
    dynamodb.send(new PutItemCommand({ TableName: outputs.SourceTableName, Item: { pk: { S: pk } } }));

  /** What the consumer stored: one item per delivered record, with its delivery count. */
  async function seen(): Promise<Map<string, { deliveries: number; arn?: string; region?: string }>> {
    const { Items = [] } = await dynamodb.send(
      new ScanCommand({ TableName: outputs.SeenTableName, ConsistentRead: true }),
    );
    return new Map(
      Items.map((item) => [
        String(item.pk?.S).split('#').slice(0, 2).join('#'),
        { deliveries: Number(item.deliveries?.N), arn: item.eventSourceARN?.S, region: item.awsRegion?.S },
      ]),
    );
  }

  async function receiveAll(queueUrl: string, count: number): Promise<Message[]> {
    const messages: Message[] = [];
    await eventually(async () => {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['MessageGroupId'],
          AttributeNames: ['All'],
        }),
      );
      messages.push(...Messages);
      return messages.length >= count ? messages : undefined;
    });
    return messages;
  }

  it('runs the table, stream, mapping and pipe (nothing about them is named as not run)', () => {
    const named = runtime.unsupported.map((item) => `${item.logicalId}: ${item.reason}`);
    expect(named.filter((line) => /Source|Stream|Pipe|Changes/.test(line))).toEqual([]);
  });

  it('resolves GetAtt StreamArn to the real stream of the local table, with its time to live', async () => {
    const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: outputs.SourceTableName }));
    expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(outputs.SourceStreamArn).toBe(Table?.LatestStreamArn);
    const { TimeToLiveDescription } = await dynamodb.send(
      new DescribeTimeToLiveCommand({ TableName: outputs.SourceTableName }),
    );
    expect(TimeToLiveDescription).toMatchObject({ TimeToLiveStatus: 'ENABLED', AttributeName: 'expiresAt' });
  });

  it('delivers the stream to the function in Lambda record shape, and poison to the on-failure queue', async () => {
    await put('a-1');
    await put('poison-1');
    await put('partial-1');
    await put('b-1');
    const delivered = await eventually(async () => {
      const records = await seen();
      return ['INSERT#a-1', 'INSERT#partial-1', 'INSERT#b-1'].every((key) => records.has(key))
        ? records
        : undefined;
    });
    // Each good record reached the function exactly once: partial-1's retry resumed at partial-1.
    for (const key of ['INSERT#a-1', 'INSERT#partial-1', 'INSERT#b-1']) {
      expect(delivered.get(key)).toEqual({
        deliveries: 1,
        arn: outputs.SourceStreamArn,
        region: runtime.target.region,
      });
    }
    expect(delivered.has('INSERT#poison-1')).toBe(false);

    const [failure] = await receiveAll(output('FailuresQueueUrl'), 1);
    const body = JSON.parse(failure?.Body ?? '{}');
    expect(body).toMatchObject({
      requestContext: { condition: 'RetryAttemptsExhausted', approximateInvokeCount: expect.any(Number) },
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      version: '1.0',
      DDBStreamBatchInfo: { batchSize: 1, streamArn: outputs.SourceStreamArn },
    });
    expect(body.requestContext.functionArn).toMatch(/:function:StreamFixture-StreamConsumer/);
    expect(body.DDBStreamBatchInfo.startSequenceNumber).toBe(body.DDBStreamBatchInfo.endSequenceNumber);
  });

  it('sends inserts through the pipe to the FIFO queue, grouped by key', async () => {
    await put('pipe-1');
    const messages = await receiveAll(output('ChangesQueueUrl'), 5);
    const byKey = new Map(
      messages.map((message) => {
        const record = JSON.parse(message.Body ?? '{}');
        return [record.dynamodb.Keys.pk.S as string, { record, group: message.Attributes?.MessageGroupId }];
      }),
    );
    expect([...byKey.keys()].sort()).toEqual(['a-1', 'b-1', 'partial-1', 'pipe-1', 'poison-1']);
    const pipe1 = byKey.get('pipe-1');
    expect(pipe1?.group).toBe('pipe-1');
    expect(pipe1?.record).toMatchObject({
      eventName: 'INSERT',
      eventSource: 'aws:dynamodb',
      eventSourceARN: outputs.SourceStreamArn,
      dynamodb: { Keys: { pk: { S: 'pipe-1' } }, NewImage: { pk: { S: 'pipe-1' } } },
    });
  });

  it('publishes IteratorAge per batch: a record written while the function holds its shard is sent as old as it waited', async () => {
    const from = new Date(Date.now() - 60_000);
    // The consumer holds slow-1's batch until after-slow-1 is written, then a second more: the
    // record of after-slow-1 waits at least that second behind it before its own batch is sent.
    await put('slow-1');
    await eventually(async () => ((await seen()).has('HOLDING#slow-1') ? true : undefined));
    await put('after-slow-1');
    await eventually(async () => ((await seen()).has('INSERT#after-slow-1') ? true : undefined));
    const { Metrics = [] } = await cloudwatch.send(
      new ListMetricsCommand({ Namespace: 'AWS/Lambda', MetricName: 'IteratorAge' }),
    );
    const perFunction = Metrics.flatMap((metric) => metric.Dimensions ?? []).find(
      (dimension) =>
        dimension.Name === 'FunctionName' && /^StreamFixture-StreamConsumer/.test(dimension.Value ?? ''),
    );
    expect(perFunction).toBeDefined();
    const { Datapoints = [] } = await cloudwatch.send(
      new GetMetricStatisticsCommand({
        Namespace: 'AWS/Lambda',
        MetricName: 'IteratorAge',
        Dimensions: [perFunction as { Name: string; Value: string }],
        StartTime: from,
        EndTime: new Date(Date.now() + 60_000),
        Period: 60,
        Statistics: ['Maximum', 'SampleCount'],
      }),
    );
    const maximum = Math.max(...Datapoints.map((point) => point.Maximum ?? 0));
    const batches = Datapoints.reduce((sum, point) => sum + (point.SampleCount ?? 0), 0);
    expect(maximum).toBeGreaterThanOrEqual(1_000);
    // One per batch sent: slow-1's, after-slow-1's, and the earlier tests' (retries included).
    expect(batches).toBeGreaterThanOrEqual(3);
    expect(Datapoints.every((point) => point.Unit === 'Milliseconds')).toBe(true);
  });

  it('reads the stream as each consumer’s role, every request authorized, and sends failures as that role', () => {
    const { actions } = runtime.iamUsage().usage;
    const usedBy = (role: RegExp) => {
      const principal = Object.keys(actions).find((arn) => role.test(arn));
      return principal ? actions[principal] : undefined;
    };
    const streamReads = {
      'dynamodb:describestream': [outputs.SourceStreamArn],
      'dynamodb:getsharditerator': [outputs.SourceStreamArn],
      'dynamodb:getrecords': [outputs.SourceStreamArn],
    };
    // The mapping polls as its function's role and sends the poison record's failure with it.
    expect(usedBy(/:role\/StreamFixture-StreamConsumerServiceRole/)).toMatchObject({
      ...streamReads,
      'sqs:sendmessage': [expect.stringMatching(/:StreamFixture-StreamFailures/)],
    });
    expect(usedBy(/:role\/StreamFixture-PipeRole/)).toMatchObject(streamReads);
  });
});

describe.each([
  {
    consumer: 'a stream mapping whose function role',
    role: 'StreamConsumerServiceRole',
    // As CreateEventSourceMapping fails on AWS (Lambda's words).
    refusal:
      /StreamFixture\/StreamConsumerDynamoDBEventSource\w*: InvalidParameterValueException: Cannot access stream arn:aws:dynamodb:[^ ]+\/stream\/[^ ]+\. Please ensure the role can perform the GetRecords, GetShardIterator, DescribeStream, and ListStreams Actions on your stream in IAM\. \(User: arn:aws:sts::\d+:assumed-role\/[^ ]+ is not authorized to perform: dynamodb:GetRecords/,
  },
  {
    consumer: 'a pipe whose role',
    role: 'PipeRole',
    refusal:
      /StreamFixture\/ChangesPipe: the pipe's role may not read arn:aws:dynamodb:[^ ]+\/stream\/[^ ]+ \(User: arn:aws:sts::\d+:assumed-role\/[^ ]+ is not authorized to perform: dynamodb:GetRecords/,
  },
])('$consumer may not read the stream', ({ role, refusal }) => {
  it('fails the start, naming the consumer and the missing action', async () => {
    const workDir = mkdtempSync(join(tmpdir(), 'stream-grant-it-'));
    try {
      synthesizeStreamFixtureApp(join(workDir, 'cdk.out'));
      plantBrokenGrant(join(workDir, 'cdk.out'), join(workDir, 'broken'), {
        name: `${role}-cannot-read-stream`,
        stack: 'StreamFixture',
        role,
        action: 'dynamodb:GetRecords',
      });
      await expect(
        startLocalRuntime({
          assemblyDir: join(workDir, 'broken'),
          port: 0,
          targetFile: null,
          log: () => undefined,
        }),
      ).rejects.toThrow(refusal);
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  });
});
