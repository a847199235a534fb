/**
 * DynamoDB stream event source mappings, run against DynamoDB Local over the real SDK: the
 * function is a scripted stand-in behind the same `invoke` dependency the runtime passes (the
 * runtime-level test runs a real bundled function), and the on-failure destination is a real
 * queue of the runtime's SQS service. Covers order, batch size, starting position, retries, bisection, partial
 * batch failures, filters and Lambda's record shapes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DynamoDBStreamSchema } from '@aws-lambda-powertools/parser/schemas/dynamodb';
import {
  CreateTableCommand,
  type DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import {
  CreateQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { holdDuringCalls, type RuntimeClock, VirtualClock } from '../../../../lib/local-runtime/clock';
import {
  DynamoDbStreamEventSource,
  type DynamoDbStreamEventSourceSpec,
} from '../../../../lib/local-runtime/dynamodb/stream-event-source';
import type { TableWrites } from '../../../../lib/local-runtime/dynamodb/stream-reader';
import { TableWriteSignal } from '../../../../lib/local-runtime/dynamodb/table-write-signal';
import type { InvocationResult } from '../../../../lib/local-runtime/lambda/host';
import {
  dynamoClient,
  type RunningEmulator,
  sqsClient,
  startDynamoDbLocal,
  startLocalSqs,
  streamsClient,
  TEST_REGION,
} from '../../../support/emulators';

jest.setTimeout(60_000);

interface LambdaRecord {
  readonly eventID: string;
  readonly eventName: string;
  readonly dynamodb: {
    readonly Keys: { id: { S: string } };
    readonly SequenceNumber: string;
    readonly NewImage?: Record<string, { N?: string; S?: string }>;
  };
}

/** The scripted function: answers each invocation with `answer(records, call)`. */
type Answer = (records: readonly LambdaRecord[], call: number) => InvocationResult;

const ok = (payload: unknown = null): InvocationResult => ({ ok: true, payload, requestId: 'r-ok' });
const failure = (call: number): InvocationResult => ({
  ok: false,
  error: { errorType: 'Error', errorMessage: 'scripted failure' },
  requestId: `r-fail-${call}`,
});

describe('DynamoDB stream event source (Lambda event source mapping)', () => {
  let dynamoEmulator: RunningEmulator;
  let sqsEmulator: RunningEmulator;
  let dynamodb: DynamoDBClient;
  let streams: DynamoDBStreamsClient;
  let sqs: SQSClient;
  const running: DynamoDbStreamEventSource[] = [];
  const problems: string[] = [];
  let tables = 0;

  beforeAll(async () => {
    [dynamoEmulator, sqsEmulator] = await Promise.all([startDynamoDbLocal(), startLocalSqs()]);
    dynamodb = dynamoClient(dynamoEmulator.endpoint);
    sqs = sqsClient(sqsEmulator.endpoint);
    streams = streamsClient(dynamoEmulator.endpoint);
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((source) => source.stop()));
  });
  afterAll(async () => {
    dynamodb.destroy();
    streams.destroy();
    sqs.destroy();
    await Promise.all([dynamoEmulator.stop(), sqsEmulator.stop()]);
  });

  async function streamTable(): Promise<{ table: string; streamArn: string }> {
    tables += 1;
    const table = `stream-${tables}`;
    const { TableDescription } = await dynamodb.send(
      new CreateTableCommand({
        TableName: table,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      }),
    );
    return { table, streamArn: TableDescription?.LatestStreamArn ?? '' };
  }

  const put = (table: string, id: string, extra: Record<string, { S: string }> = {}) =>
    dynamodb.send(new PutItemCommand({ TableName: table, Item: { id: { S: id }, ...extra } }));

  /** Starts a mapping with a scripted function; returns the events it received. */
  async function start(
    streamArn: string,
    spec: Partial<DynamoDbStreamEventSourceSpec>,
    answer: Answer = () => ok(),
    clock?: RuntimeClock,
    extra: { readonly streams?: DynamoDBStreamsClient; readonly writes?: TableWrites } = {},
  ): Promise<{ calls: LambdaRecord[][]; events: unknown[]; source: DynamoDbStreamEventSource }> {
    const calls: LambdaRecord[][] = [];
    const events: unknown[] = [];
    const source = new DynamoDbStreamEventSource(
      {
        logicalId: 'Mapping',
        streamArn,
        functionReference: 'consumer',
        functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:consumer',
        startingPosition: 'TRIM_HORIZON',
        batchSize: 100,
        maximumBatchingWindowSeconds: 0,
        maximumRetryAttempts: -1,
        maximumRecordAgeSeconds: -1,
        bisectBatchOnFunctionError: false,
        reportBatchItemFailures: false,
        region: TEST_REGION,
        retryDelayMillis: () => 20,
        ...spec,
      },
      {
        streams: extra.streams ?? streams,
        ...(extra.writes && { writes: extra.writes }),
        invoke: async (_reference, event) => {
          events.push(event);
          const records = (event as { Records: LambdaRecord[] }).Records;
          calls.push(records);
          return answer(records, calls.length);
        },
        sendToDestination: async (queueArn, message) => {
          await sqs.send(new SendMessageCommand({ QueueUrl: queueUrlOf(queueArn), MessageBody: message }));
        },
        onProblem: (message) => problems.push(message),
        ...(clock && { clock }),
      },
    );
    running.push(source);
    await source.start();
    return { calls, events, source };
  }

  const queueUrls = new Map<string, string>();
  const queueUrlOf = (arn: string) => queueUrls.get(arn) ?? '';
  async function queue(name: string): Promise<{ arn: string; url: string }> {
    const { QueueUrl = '' } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
    const arn = `arn:aws:sqs:${TEST_REGION}:123456789012:${name}`;
    queueUrls.set(arn, QueueUrl);
    return { arn, url: QueueUrl };
  }

  async function until<T>(
    probe: () => T | undefined | Promise<T | undefined>,
    timeoutMillis = 20_000,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMillis;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline)
        throw new Error(`condition not met in time (problems: ${problems.join('; ')})`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** A streams client of DynamoDB Local that counts its GetRecords calls. */
  function readsCounted(): { reader: DynamoDBStreamsClient; reads: () => number } {
    let reads = 0;
    const reader = streamsClient(dynamoEmulator.endpoint);
    reader.middlewareStack.add(
      (next, context) => (args) => {
        if (context.commandName === 'GetRecordsCommand') reads += 1;
        return next(args);
      },
      { step: 'initialize' },
    );
    return { reader, reads: () => reads };
  }

  const keysOf = (calls: readonly LambdaRecord[][]) =>
    calls.map((call) => call.map((r) => r.dynamodb.Keys.id.S));

  it('delivers records in stream order, in batches of at most BatchSize, in the Lambda event shape', async () => {
    const { table, streamArn } = await streamTable();
    for (let version = 1; version <= 3; version += 1) {
      for (const id of ['a', 'b', 'c', 'd']) {
        await dynamodb.send(
          new UpdateItemCommand({
            TableName: table,
            Key: { id: { S: id } },
            UpdateExpression: 'SET version = :v',
            ExpressionAttributeValues: { ':v': { N: String(version) } },
          }),
        );
      }
    }
    const { calls, events } = await start(streamArn, { batchSize: 5 });
    await until(() => (calls.flat().length >= 12 ? true : undefined));
    expect(calls.map((call) => call.length)).toEqual([5, 5, 2]);
    const records = calls.flat();
    const sequence = records.map((record) => BigInt(record.dynamodb.SequenceNumber));
    expect([...sequence].sort((x, y) => (x < y ? -1 : 1))).toEqual(sequence);
    // Per item, versions arrive in the order they were written.
    for (const id of ['a', 'b', 'c', 'd']) {
      const versions = records
        .filter((record) => record.dynamodb.Keys.id.S === id)
        .map((record) => record.dynamodb.NewImage?.version?.N);
      expect(versions).toEqual(['1', '2', '3']);
    }
    expect(records.map((record) => record.eventName)).toEqual([
      ...Array(4).fill('INSERT'),
      ...Array(8).fill('MODIFY'),
    ]);
    // The event parses with Powertools' own schema of Lambda's DynamoDB stream event.
    for (const event of events) expect(() => DynamoDBStreamSchema.parse(event)).not.toThrow();
    expect(records[0]).toMatchObject({
      eventSource: 'aws:dynamodb',
      awsRegion: TEST_REGION,
      eventSourceARN: streamArn,
      dynamodb: { StreamViewType: 'NEW_AND_OLD_IMAGES', ApproximateCreationDateTime: expect.any(Number) },
    });
  });

  it('starts at TRIM_HORIZON with what is already in the stream, at LATEST only with what comes after', async () => {
    const { table, streamArn } = await streamTable();
    await put(table, 'before');
    const fromStart = await start(streamArn, { startingPosition: 'TRIM_HORIZON' });
    const fromNow = await start(streamArn, { startingPosition: 'LATEST' });
    await put(table, 'after');
    await until(() =>
      fromStart.calls.flat().length >= 2 && fromNow.calls.flat().length >= 1 ? true : undefined,
    );
    expect(keysOf(fromStart.calls).flat()).toEqual(['before', 'after']);
    expect(keysOf(fromNow.calls).flat()).toEqual(['after']);
  });

  it('retries a failing batch until it succeeds, holding back the records behind it', async () => {
    const { table, streamArn } = await streamTable();
    await put(table, 'first');
    const { calls } = await start(streamArn, {}, (_records, call) => (call <= 2 ? failure(call) : ok()));
    await until(() => (calls.length >= 3 ? true : undefined));
    await put(table, 'second');
    await until(() => (calls.length >= 4 ? true : undefined));
    expect(keysOf(calls)).toEqual([['first'], ['first'], ['first'], ['second']]);
  });

  it('gives up after MaximumRetryAttempts, describes the batch to the on-failure queue, and moves on', async () => {
    const { table, streamArn } = await streamTable();
    const destination = await queue('stream-failures-retries');
    await put(table, 'poison');
    const { calls } = await start(
      streamArn,
      { maximumRetryAttempts: 2, onFailureDestination: destination.arn },
      (records, call) => (records.some((r) => r.dynamodb.Keys.id.S === 'poison') ? failure(call) : ok()),
    );
    await until(() => (calls.length >= 3 ? true : undefined));
    await put(table, 'next');
    await until(() => (keysOf(calls).flat().includes('next') ? true : undefined));
    expect(keysOf(calls)).toEqual([['poison'], ['poison'], ['poison'], ['next']]);
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: destination.url, WaitTimeSeconds: 2, MaxNumberOfMessages: 10 }),
    );
    expect(Messages).toHaveLength(1);
    const poisonSequence = calls[0]?.[0]?.dynamodb.SequenceNumber;
    expect(JSON.parse(Messages[0]?.Body ?? '{}')).toEqual({
      requestContext: {
        requestId: 'r-fail-3',
        functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:consumer',
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: 3,
      },
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      version: '1.0',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      DDBStreamBatchInfo: {
        shardId: expect.stringMatching(/^shardId-/),
        startSequenceNumber: poisonSequence,
        endSequenceNumber: poisonSequence,
        approximateArrivalOfFirstRecord: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        approximateArrivalOfLastRecord: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        batchSize: 1,
        streamArn,
      },
    });
  });

  it('discards records older than MaximumRecordAgeInSeconds instead of retrying them forever', async () => {
    const { table, streamArn } = await streamTable();
    const destination = await queue('stream-failures-age');
    await put(table, 'stale');
    const { calls } = await start(
      streamArn,
      { maximumRecordAgeSeconds: 1, onFailureDestination: destination.arn },
      (_records, call) => failure(call),
    );
    const { Messages = [] } = await until(async () => {
      const received = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: destination.url, WaitTimeSeconds: 1, MaxNumberOfMessages: 10 }),
      );
      return received.Messages?.length ? received : undefined;
    });
    expect(JSON.parse(Messages[0]?.Body ?? '{}')).toMatchObject({
      requestContext: { condition: 'RecordAgeExceeded' },
      DDBStreamBatchInfo: { batchSize: 1, startSequenceNumber: calls[0]?.[0]?.dynamodb.SequenceNumber },
    });
    const invocations = calls.length;
    await put(table, 'fresh');
    await until(() => (keysOf(calls).flat().includes('fresh') ? true : undefined));
    expect(keysOf(calls).slice(invocations).flat().includes('stale')).toBe(false);
  });

  it("on a virtual clock ahead of the machine, ages a record from when it was read, not from DynamoDB Local's stamp", async () => {
    const { table, streamArn } = await streamTable();
    // A day ahead: DynamoDB Local stamps records with the machine's time, another clock.
    const clock = new VirtualClock({ startMillis: Date.now() + 86_400_000 });
    const problemsBefore = problems.length;
    await put(table, 'written-now');
    const { calls } = await start(streamArn, { maximumRecordAgeSeconds: 60 }, () => ok(), clock);
    await until(() => (keysOf(calls).flat().includes('written-now') ? true : undefined));
    expect(problems.slice(problemsBefore).filter((problem) => problem.includes('given up'))).toEqual([]);
    clock.stop();
  });

  it('on a virtual clock told of writes, waits for one instead of polling, and reads at once when told', async () => {
    const { table, streamArn } = await streamTable();
    const clock = new VirtualClock();
    const writes = new TableWriteSignal();
    const { reader, reads } = readsCounted();
    // Held for each call, as the runtime's readers are (the clock moves only while they wait).
    const counting = holdDuringCalls(reader, clock);
    let deliveredAt: number | undefined;
    const answer: Answer = (records) => {
      if (records.some((record) => record.dynamodb.Keys.id.S === 'told')) deliveredAt ??= clock.now();
      return ok();
    };
    await start(streamArn, {}, answer, clock, { streams: counting, writes });
    const readsBefore = reads();
    const jumpsBefore = clock.advances;
    await clock.sleep(3_600_000);
    // Polling as Lambda does (every 50-250 ms) would read about 14,000 times in an hour, each read a
    // jump of the clock; an idle shard waits for a write, or polls on the machine's time.
    expect(clock.advances - jumpsBefore).toBe(1);
    expect(reads() - readsBefore).toBeLessThanOrEqual(2);
    await put(table, 'told');
    const toldAt = clock.now();
    writes.notify([table]);
    const delivered = await until(() => deliveredAt);
    // Without the write told, the shard would have waited up to 5 s of the machine's time.
    expect(delivered - toldAt).toBeLessThan(1_000);
    clock.stop();
    reader.destroy();
  });

  it('on a seeded clock, reads the first record of a shard read empty before it came, once its write is told', async () => {
    // DynamoDB Local answers TrimmedDataAccessException on the iterator that the empty read handed
    // back once another table's stream has had a record since this one's was made (as an app's
    // tables do); a seeded clock's idle shard waits for the next write alone, and a delivery's only
    // ingestion record was never read.
    const { table, streamArn } = await streamTable();
    const other = await streamTable();
    await put(other.table, 'elsewhere');
    const clock = new VirtualClock({ seed: 5 });
    const writes = new TableWriteSignal();
    let delivered = false;
    const answer: Answer = (records) => {
      if (records.some((record) => record.dynamodb.Keys.id.S === 'first')) delivered = true;
      return ok();
    };
    const { reader, reads } = readsCounted();
    const { source } = await start(streamArn, {}, answer, clock, {
      streams: holdDuringCalls(reader, clock),
      writes,
    });
    await until(() => (reads() > 0 ? true : undefined));
    await put(table, 'first');
    writes.notify([table]);
    await until(() => (delivered ? true : undefined), 10_000);
    // Stopped before the clock: a seeded clock that stopped admits no call the reader still makes.
    await source.stop();
    clock.stop();
    reader.destroy();
  });

  it("on a virtual clock told of writes, still reads what no write announces, on the machine's time", async () => {
    const { table, streamArn } = await streamTable();
    const clock = new VirtualClock();
    const writes = new TableWriteSignal();
    let delivered = false;
    const answer: Answer = (records) => {
      if (records.some((record) => record.dynamodb.Keys.id.S === 'untold')) delivered = true;
      return ok();
    };
    const reader = holdDuringCalls(streamsClient(dynamoEmulator.endpoint), clock);
    await start(streamArn, {}, answer, clock, { streams: reader, writes });
    // A write the gateway does not answer (DynamoDB Local's own TTL deletions are such): read by the
    // shard's poll on the machine's time, with the virtual clock standing still.
    await put(table, 'untold');
    const before = clock.now();
    await until(() => (delivered ? true : undefined));
    expect(clock.now()).toBe(before);
    clock.stop();
  });

  it('bisects a failing batch until the poison record is alone, and delivers every other record', async () => {
    const { table, streamArn } = await streamTable();
    const destination = await queue('stream-failures-bisect');
    for (const id of ['r1', 'r2', 'poison', 'r4']) await put(table, id);
    const { calls } = await start(
      streamArn,
      { bisectBatchOnFunctionError: true, maximumRetryAttempts: 0, onFailureDestination: destination.arn },
      (records, call) => (records.some((r) => r.dynamodb.Keys.id.S === 'poison') ? failure(call) : ok()),
    );
    await until(() => (keysOf(calls).some((keys) => keys.join() === 'r4') ? true : undefined));
    // Splitting costs no retry; the poison record alone fails once (MaximumRetryAttempts 0) and is given up.
    expect(keysOf(calls)).toEqual([
      ['r1', 'r2', 'poison', 'r4'],
      ['r1', 'r2'],
      ['poison', 'r4'],
      ['poison'],
      ['r4'],
    ]);
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: destination.url, WaitTimeSeconds: 2, MaxNumberOfMessages: 10 }),
    );
    expect(Messages.map((message) => JSON.parse(message.Body ?? '{}').DDBStreamBatchInfo.batchSize)).toEqual([
      1,
    ]);
  });

  it('resumes after a partial batch failure at the lowest failed record', async () => {
    const { table, streamArn } = await streamTable();
    for (const id of ['r1', 'r2', 'r3', 'r4']) await put(table, id);
    const { calls } = await start(streamArn, { reportBatchItemFailures: true }, (records, call) =>
      call === 1
        ? ok({
            batchItemFailures: [
              { itemIdentifier: records[3]?.dynamodb.SequenceNumber },
              { itemIdentifier: records[2]?.dynamodb.SequenceNumber },
            ],
          })
        : ok({ batchItemFailures: [] }),
    );
    await until(() => (calls.length >= 2 ? true : undefined));
    expect(keysOf(calls)).toEqual([
      ['r1', 'r2', 'r3', 'r4'],
      ['r3', 'r4'],
    ]);
  });

  it('retries the whole batch when the partial batch response names no record of the batch', async () => {
    const { table, streamArn } = await streamTable();
    for (const id of ['r1', 'r2']) await put(table, id);
    const { calls } = await start(streamArn, { reportBatchItemFailures: true }, (_records, call) =>
      call === 1 ? ok({ batchItemFailures: [{ itemIdentifier: 'not-a-sequence-number' }] }) : ok(),
    );
    await until(() => (calls.length >= 2 ? true : undefined));
    expect(keysOf(calls)).toEqual([
      ['r1', 'r2'],
      ['r1', 'r2'],
    ]);
    expect(problems.some((problem) => problem.includes('not-a-sequence-number'))).toBe(true);
  });

  it('resumes from its checkpoint file when started again, instead of at its starting position', async () => {
    const { table, streamArn } = await streamTable();
    const checkpointFile = join(mkdtempSync(join(tmpdir(), 'stream-checkpoints-')), 'mapping.json');
    await put(table, 'r1');
    await put(table, 'r2');
    const first = await start(streamArn, { checkpointFile });
    await until(() => (first.calls.flat().length >= 2 ? true : undefined));
    await first.source.stop();
    await put(table, 'r3');
    const second = await start(streamArn, { checkpointFile });
    await until(() => (second.calls.flat().length >= 1 ? true : undefined));
    expect(keysOf(first.calls).flat()).toEqual(['r1', 'r2']);
    expect(keysOf(second.calls).flat()).toEqual(['r3']);
    rmSync(dirname(checkpointFile), { recursive: true, force: true });
  });

  it('delivers only the records that match FilterCriteria', async () => {
    const { table, streamArn } = await streamTable();
    await put(table, 'keep', { kind: { S: 'order' } });
    await put(table, 'skip', { kind: { S: 'audit' } });
    await put(table, 'keep-too', { kind: { S: 'order' } });
    const { calls } = await start(streamArn, {
      filterPatterns: [{ eventName: ['INSERT'], dynamodb: { NewImage: { kind: { S: ['order'] } } } }],
    });
    await until(() => (calls.flat().length >= 2 ? true : undefined));
    expect(keysOf(calls).flat()).toEqual(['keep', 'keep-too']);
  });
});
