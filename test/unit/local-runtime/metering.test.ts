/**
 * The pure parts of the runtime's metering: snapshot differences, AWS's 64 KB chunks, and how the
 * DynamoDB capacity meter reads one call (the whole meter runs in
 * test/integration/local-runtime/metering.test.ts).
 */
import {
  callerOfPath,
  capacityOfCall,
  UNNAMED_CALLER,
} from '../../../lib/local-runtime/dynamodb/capacity-meter';
import { eventEntryBytes } from '../../../lib/local-runtime/eventbridge/event-buses';
import * as metering from '../../../lib/local-runtime/metering';

const {
  billedChunks,
  CLOUDWATCH_ALARM_DELIVERY,
  deliveredVia,
  gbSeconds,
  isCausedBy,
  RuntimeMeter,
  usageSince,
} = metering;

describe('usageSince', () => {
  it('subtracts every count, keeps what describes a resource, and counts new entries from zero', () => {
    const meter = new RuntimeMeter();
    meter.describeFunction('fn', { stackName: 'Stack', logicalId: 'Fn' }, 512);
    meter.describe('tables', 'unused', { stackName: 'Stack', logicalId: 'Unused' });
    meter.invocationEnded('fn', 512, 10.2);
    meter.stateTransition('machine', 'A');
    const before = meter.snapshot();
    meter.invocationEnded('fn', 512, 3);
    meter.stateTransition('machine', 'A');
    meter.stateTransition('machine', 'B');
    meter.sqsRequest('queue', 'ReceiveMessage', 0, 0);
    const since = usageSince(before, meter.snapshot());
    expect(since.functions.fn).toEqual({
      stackName: 'Stack',
      logicalId: 'Fn',
      memorySizeMb: 512,
      invocations: 1,
      billedMillis: 3,
    });
    expect(since.stateMachines.machine).toEqual({
      executions: 0,
      transitions: 2,
      transitionsByState: { A: 1, B: 1 },
    });
    expect(since.queues.queue).toMatchObject({ requests: 1, billedRequests: 1, emptyReceives: 1 });
    // Described, never used: listed with its origin and zero counts.
    expect(since.tables.unused).toMatchObject({ stackName: 'Stack', logicalId: 'Unused', requests: 0 });
  });

  it('leaves the snapshots it read unchanged', () => {
    const meter = new RuntimeMeter();
    meter.published('topic', 10, 'API');
    const before: metering.RuntimeUsage = meter.snapshot();
    meter.published('topic', 10, 'API');
    usageSince(before, meter.snapshot());
    expect(before.topics.topic?.publishes).toBe(1);
  });
});

describe('billing units', () => {
  it('bills one request per 64 KB chunk of payload, at least one', () => {
    expect([0, 1, 65_536, 65_537, 256 * 1024].map(billedChunks)).toEqual([1, 1, 1, 2, 4]);
  });

  it('rounds each invocation up to the millisecond and prices it at the memory size', () => {
    const meter = new RuntimeMeter();
    meter.invocationEnded('fn', 1024, 0.2);
    meter.invocationEnded('fn', 1024, 1998.1);
    const fn = meter.snapshot().functions.fn;
    expect(fn?.billedMillis).toBe(2000);
    expect(gbSeconds(fn ?? { memorySizeMb: 0, billedMillis: 0 })).toBe(2);
  });

  it('sizes an event entry as EventBridge does: Time, Source, DetailType, Detail, Resources', () => {
    expect(eventEntryBytes({ Source: 'ab', DetailType: 'cd', Detail: '{"é":1}', Resources: ['x'] })).toBe(
      2 + 2 + 8 + 1,
    );
    expect(eventEntryBytes({ Source: 'ab', Time: new Date() })).toBe(16);
  });
});

describe('capacityOfCall', () => {
  it('reads units per table, as reads or writes by operation unless DynamoDB says which', () => {
    expect(
      capacityOfCall('BatchGetItem', {}, 200, {
        ConsumedCapacity: [
          { TableName: 'a', CapacityUnits: 1.5 },
          { TableName: 'b', CapacityUnits: 0.5 },
        ],
      }),
    ).toEqual([
      { tableName: 'a', readUnits: 1.5, writeUnits: 0 },
      { tableName: 'b', readUnits: 0.5, writeUnits: 0 },
    ]);
    expect(
      capacityOfCall('UpdateItem', { TableName: 'a' }, 200, {
        ConsumedCapacity: { TableName: 'a', CapacityUnits: 3, ReadCapacityUnits: 1, WriteCapacityUnits: 2 },
      }),
    ).toEqual([{ tableName: 'a', readUnits: 1, writeUnits: 2 }]);
    expect(
      capacityOfCall('ExecuteStatement', { Statement: ' SELECT * FROM a' }, 200, {
        ConsumedCapacity: { TableName: 'a', CapacityUnits: 0.5 },
      }),
    ).toEqual([{ tableName: 'a', readUnits: 0.5, writeUnits: 0 }]);
  });

  it("gives each index's share of the units (ReturnConsumedCapacity INDEXES)", () => {
    expect(
      capacityOfCall('UpdateItem', { TableName: 'a' }, 200, {
        ConsumedCapacity: {
          TableName: 'a',
          CapacityUnits: 6,
          Table: { CapacityUnits: 2 },
          GlobalSecondaryIndexes: { Due: { CapacityUnits: 2 }, State: { CapacityUnits: 1 } },
          LocalSecondaryIndexes: { Local: { CapacityUnits: 1 } },
        },
      }),
    ).toEqual([
      {
        tableName: 'a',
        readUnits: 0,
        writeUnits: 6,
        indexes: {
          Due: { readUnits: 0, writeUnits: 2 },
          State: { readUnits: 0, writeUnits: 1 },
          Local: { readUnits: 0, writeUnits: 1 },
        },
      },
    ]);
    expect(
      capacityOfCall('Query', { TableName: 'a' }, 200, {
        ConsumedCapacity: {
          TableName: 'a',
          CapacityUnits: 0.5,
          GlobalSecondaryIndexes: { Due: { CapacityUnits: 0.5 } },
        },
      }),
    ).toEqual([
      { tableName: 'a', readUnits: 0.5, writeUnits: 0, indexes: { Due: { readUnits: 0.5, writeUnits: 0 } } },
    ]);
  });

  it("adds AWS's minimum read where DynamoDB Local reports none, by the read's consistency", () => {
    const empty = { ConsumedCapacity: { TableName: 'a', CapacityUnits: 0 } };
    expect(capacityOfCall('Query', { TableName: 'a' }, 200, empty)).toEqual([
      { tableName: 'a', readUnits: 0, writeUnits: 0, minimumReadUnits: 0.5 },
    ]);
    expect(capacityOfCall('Scan', { TableName: 'a', ConsistentRead: true }, 200, empty)).toEqual([
      { tableName: 'a', readUnits: 0, writeUnits: 0, minimumReadUnits: 1 },
    ]);
  });

  it('counts a refused condition and a cancelled transaction, and no other error', () => {
    const error = (name: string) => ({ __type: `com.amazonaws.dynamodb.v20120810#${name}` });
    expect(
      capacityOfCall('PutItem', { TableName: 'a' }, 400, error('ConditionalCheckFailedException')),
    ).toEqual([{ tableName: 'a', readUnits: 0, writeUnits: 0, conditionalCheckFailed: true }]);
    const transaction = {
      TransactItems: [
        { Put: { TableName: 'a' } },
        { ConditionCheck: { TableName: 'b' } },
        { Update: { TableName: 'a' } },
      ],
    };
    expect(
      capacityOfCall('TransactWriteItems', transaction, 400, error('TransactionCanceledException'))?.map(
        (use) => [use.tableName, use.transactionCancelled],
      ),
    ).toEqual([
      ['a', true],
      ['b', true],
    ]);
    expect(capacityOfCall('PutItem', { TableName: 'a' }, 400, error('ValidationException'))).toBeUndefined();
    expect(capacityOfCall('DescribeTable', { TableName: 'a' }, 200, {})).toBeUndefined();
  });
});

describe('deliveries', () => {
  it('counts who delivered, and tells what an origin caused down a chain of deliveries', () => {
    const meter = new RuntimeMeter();
    meter.published('topic', 100_000, CLOUDWATCH_ALARM_DELIVERY);
    meter.sqsRequest('queue', 'SendMessage', 10);
    meter.sqsDelivered('queue', 10, deliveredVia('SNS', CLOUDWATCH_ALARM_DELIVERY));
    const { topics, queues } = meter.snapshot();
    expect(topics.topic?.publishesBy).toEqual({
      [CLOUDWATCH_ALARM_DELIVERY]: { requests: 1, billedRequests: 2 },
    });
    // The payload itself, for the per-GB charge of FIFO topics.
    expect(topics.topic?.payloadBytes).toBe(100_000);
    expect(queues.queue?.deliveriesBy).toEqual({
      'SNS <- CloudWatch alarm': { requests: 1, billedRequests: 1 },
    });
    expect(isCausedBy('SNS <- CloudWatch alarm', CLOUDWATCH_ALARM_DELIVERY)).toBe(true);
    expect(isCausedBy(CLOUDWATCH_ALARM_DELIVERY, CLOUDWATCH_ALARM_DELIVERY)).toBe(true);
    expect(isCausedBy(deliveredVia('SNS', undefined), CLOUDWATCH_ALARM_DELIVERY)).toBe(false);
  });
});

describe('callerOfPath', () => {
  it('names the caller by the first path segment', () => {
    expect(callerOfPath('/Stack-Fn-1/')).toBe('Stack-Fn-1');
    expect(callerOfPath('/Step%20Functions/?x=1')).toBe('Step Functions');
    expect(callerOfPath('/')).toBe(UNNAMED_CALLER);
  });
});

describe('RuntimeMeter.dynamoDbRequest', () => {
  it("includes AWS's minimums in the units and counts them apart", () => {
    const meter = new RuntimeMeter();
    meter.dynamoDbRequest({
      operation: 'Query',
      caller: 'fn',
      tables: [{ tableName: 't', readUnits: 0, writeUnits: 0, minimumReadUnits: 0.5 }],
    });
    meter.dynamoDbRequest({
      operation: 'PutItem',
      caller: 'fn',
      tables: [{ tableName: 't', readUnits: 0, writeUnits: 0, conditionalCheckFailed: true }],
    });
    expect(meter.snapshot().tables.t).toMatchObject({
      requests: 2,
      readUnits: 0.5,
      writeUnits: 1,
      minimums: { emptyReads: 1, readUnits: 0.5, conditionalCheckFailures: 1, writeUnits: 1 },
      byCaller: { fn: { requests: 2, readUnits: 0.5, writeUnits: 1 } },
    });
  });

  it("adds up each index's share, per table and per caller's writes", () => {
    const meter = new RuntimeMeter();
    const due = (writeUnits: number) => ({ Due: { readUnits: 0, writeUnits } });
    meter.dynamoDbRequest({
      operation: 'UpdateItem',
      caller: 'agent',
      writesItems: true,
      tables: [{ tableName: 't', readUnits: 0, writeUnits: 3, indexes: due(2) }],
    });
    meter.dynamoDbRequest({
      operation: 'UpdateItem',
      caller: 'agent',
      writesItems: true,
      tables: [{ tableName: 't', readUnits: 0, writeUnits: 1 }],
    });
    meter.dynamoDbRequest({
      operation: 'TransactWriteItems',
      caller: 'api',
      writesItems: true,
      tables: [{ tableName: 't', readUnits: 0, writeUnits: 4, indexes: due(2) }],
    });
    meter.dynamoDbRequest({
      operation: 'Query',
      caller: 'supervisor',
      tables: [
        {
          tableName: 't',
          readUnits: 0.5,
          writeUnits: 0,
          indexes: { Due: { readUnits: 0.5, writeUnits: 0 } },
        },
      ],
    });
    const table = meter.snapshot().tables.t;
    expect(table?.byIndex).toEqual({ Due: { readUnits: 0.5, writeUnits: 4 } });
    expect(table?.writesByCaller).toEqual({
      agent: { requests: 2, writeUnits: 4, byIndex: { Due: 2 } },
      api: { requests: 1, writeUnits: 4, byIndex: { Due: 2 } },
    });
  });
});
