/** Pure decisions of the DynamoDB stream consumers: record shapes, partial failures, specs from templates. */
import type { _Record as StreamRecord } from '@aws-sdk/client-dynamodb-streams';
import { dynamoDbStreamPipeSpec } from '../../../lib/local-runtime/dynamodb/pipe';
import {
  dynamoDbStreamEventSourceSpec,
  firstFailedRecord,
  parseFilterCriteria,
} from '../../../lib/local-runtime/dynamodb/stream-event-source';
import { toLambdaDynamoDbRecord } from '../../../lib/local-runtime/dynamodb/stream-records';
import { isDynamoDbStreamArn, streamSpecification } from '../../../lib/local-runtime/dynamodb/tables';

const STREAM = 'arn:aws:dynamodb:ddblocal:000000000000:table/orders/stream/2026-01-01T00:00:00.000';

const record = (sequenceNumber: string, extra: Partial<StreamRecord> = {}): StreamRecord => ({
  eventID: `e-${sequenceNumber}`,
  eventName: 'INSERT',
  eventVersion: '1.1',
  dynamodb: {
    ApproximateCreationDateTime: new Date('2026-01-01T10:20:00Z'),
    Keys: { id: { S: sequenceNumber } },
    NewImage: {
      id: { S: sequenceNumber },
      blob: { B: Buffer.from('hi') },
      list: { L: [{ BS: [Buffer.from('a')] }] },
    },
    SequenceNumber: sequenceNumber,
    SizeBytes: 10,
    StreamViewType: 'NEW_AND_OLD_IMAGES',
  },
  ...extra,
});

describe('Lambda DynamoDB record shape', () => {
  it('writes times as epoch seconds and binaries as base64, with the runtime region', () => {
    expect(toLambdaDynamoDbRecord(record('1'), STREAM, 'us-east-1')).toEqual({
      eventID: 'e-1',
      eventName: 'INSERT',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: 'us-east-1',
      eventSourceARN: STREAM,
      dynamodb: {
        ApproximateCreationDateTime: 1767262800,
        Keys: { id: { S: '1' } },
        NewImage: { id: { S: '1' }, blob: { B: 'aGk=' }, list: { L: [{ BS: ['YQ=='] }] } },
        SequenceNumber: '1',
        SizeBytes: 10,
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
    });
  });

  it("gives DynamoDB Local's time-to-live deletions the name and identity AWS gives them", () => {
    const expired = record('2', {
      eventName: 'UNKNOWN_TO_SDK_VERSION' as StreamRecord['eventName'],
      dynamodb: { Keys: { id: { S: '2' } }, OldImage: { id: { S: '2' } }, SequenceNumber: '2' },
    });
    expect(toLambdaDynamoDbRecord(expired, STREAM, 'us-east-1')).toMatchObject({
      eventName: 'REMOVE',
      userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' },
    });
  });
});

describe('partial batch responses of stream mappings', () => {
  const batch = [record('10'), record('20'), record('30')];

  it('treats an empty or absent failure list as success', () => {
    expect(firstFailedRecord(batch, null)).toBeNull();
    expect(firstFailedRecord(batch, {})).toBeNull();
    expect(firstFailedRecord(batch, { batchItemFailures: [] })).toBeNull();
  });

  it('resumes at the lowest failed sequence number', () => {
    expect(
      firstFailedRecord(batch, { batchItemFailures: [{ itemIdentifier: '30' }, { itemIdentifier: '20' }] }),
    ).toBe(1);
  });

  it('fails the whole batch on an empty, null, unknown or misnamed identifier', () => {
    for (const failures of [
      [{ itemIdentifier: '' }],
      [{ itemIdentifier: null }],
      [{ itemIdentifier: '99' }],
      [{ id: '10' }],
    ]) {
      expect(firstFailedRecord(batch, { batchItemFailures: failures })).toEqual({
        invalid: expect.any(String),
      });
    }
    expect(firstFailedRecord(batch, 'oops')).toEqual({ invalid: expect.any(String) });
  });
});

describe('stream consumers from the template', () => {
  const where = {
    functionArn: 'arn:aws:lambda:us-east-1:0:function:f',
    region: 'us-east-1',
    isLocalDestination: () => true,
  };

  it("uses Lambda's defaults for a stream mapping", () => {
    expect(
      dynamoDbStreamEventSourceSpec('Mapping', { EventSourceArn: STREAM, StartingPosition: 'LATEST' }, where),
    ).toMatchObject({
      streamArn: STREAM,
      startingPosition: 'LATEST',
      batchSize: 100,
      maximumBatchingWindowSeconds: 0,
      maximumRetryAttempts: -1,
      maximumRecordAgeSeconds: -1,
      bisectBatchOnFunctionError: false,
      reportBatchItemFailures: false,
    });
  });

  it('names what a stream mapping cannot run', () => {
    const spec = (extra: Record<string, unknown>) =>
      dynamoDbStreamEventSourceSpec(
        'Mapping',
        { EventSourceArn: STREAM, StartingPosition: 'LATEST', ...extra },
        where,
      );
    expect(spec({ StartingPosition: 'AT_TIMESTAMP' })).toMatch(/StartingPosition/);
    expect(spec({ ParallelizationFactor: 2 })).toMatch(/ParallelizationFactor/);
    expect(spec({ TumblingWindowInSeconds: 30 })).toMatch(/tumbling/);
    expect(spec({ DestinationConfig: { OnFailure: { Destination: 'arn:aws:s3:::bucket' } } })).toMatch(
      /on-failure/,
    );
    expect(spec({ FilterCriteria: { Filters: [{ Pattern: '{"a": {"unknown-filter": 1}}' }] } })).toMatch(
      /FilterCriteria/,
    );
  });

  it('parses FilterCriteria patterns from their JSON strings', () => {
    expect(parseFilterCriteria({ Filters: [{ Pattern: '{"eventName":["INSERT"]}' }] })).toEqual([
      { eventName: ['INSERT'] },
    ]);
  });

  it('reads a pipe with Pipes defaults (retry forever, batch of 1) and names what it cannot run', () => {
    const pipeWhere = {
      pipeName: 'p',
      region: 'us-east-1',
      accountId: '000000000000',
      isLocalStream: (arn: string) => arn === STREAM,
      isLocalDestination: () => true,
    };
    const base = {
      Source: STREAM,
      SourceParameters: { DynamoDBStreamParameters: { StartingPosition: 'TRIM_HORIZON' } },
      Target: 'arn:aws:sqs:us-east-1:000000000000:q.fifo',
      TargetParameters: { SqsQueueParameters: { MessageGroupId: '$.dynamodb.Keys.id.S' } },
    };
    expect(dynamoDbStreamPipeSpec('Pipe', base, pipeWhere)).toMatchObject({
      batchSize: 1,
      maximumRetryAttempts: -1,
      maximumRecordAgeSeconds: -1,
      pipeArn: 'arn:aws:pipes:us-east-1:000000000000:pipe/p',
      target: { kind: 'sqs', messageGroupId: '$.dynamodb.Keys.id.S' },
    });
    expect(
      dynamoDbStreamPipeSpec('Pipe', { ...base, Source: 'arn:aws:sqs:us-east-1:0:q' }, pipeWhere),
    ).toMatch(/not a DynamoDB stream/);
    expect(dynamoDbStreamPipeSpec('Pipe', { ...base, Enrichment: 'arn:aws:lambda:x' }, pipeWhere)).toMatch(
      /enrichment/,
    );
    expect(
      dynamoDbStreamPipeSpec(
        'Pipe',
        { ...base, TargetParameters: { InputTemplate: '{"id": <$.eventID>}' } },
        pipeWhere,
      ),
    ).toMatch(/InputTemplate/);
    expect(
      dynamoDbStreamPipeSpec(
        'Pipe',
        { ...base, Target: 'arn:aws:states:us-east-1:0:stateMachine:m' },
        pipeWhere,
      ),
    ).toMatch(/FIRE_AND_FORGET/);
  });
});

describe('table streams', () => {
  it('asks CreateTable for the stream the template declares', () => {
    expect(streamSpecification({ StreamSpecification: { StreamViewType: 'KEYS_ONLY' } })).toEqual({
      StreamEnabled: true,
      StreamViewType: 'KEYS_ONLY',
    });
    expect(streamSpecification({})).toBeUndefined();
  });

  it('recognises stream ARNs', () => {
    expect(isDynamoDbStreamArn(STREAM)).toBe(true);
    expect(isDynamoDbStreamArn('arn:aws:dynamodb:us-east-1:0:table/orders')).toBe(false);
    expect(isDynamoDbStreamArn('arn:aws:sqs:us-east-1:0:q')).toBe(false);
  });
});
