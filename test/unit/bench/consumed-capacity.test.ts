import { Readable } from 'node:stream';
import { DescribeTableCommand, DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CapacityEntry } from '../../../lib/bench/core/consumed-capacity';
import {
  ConsumedCapacityMeter,
  capacityUnitsOf,
  summarizeCapacity,
} from '../../../lib/bench/core/consumed-capacity';

/** A DynamoDB client whose requests never leave the process: each answer reports `units`. */
function stubbedClient(units: number) {
  const bodies: Record<string, unknown>[] = [];
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    requestHandler: {
      handle: async (request: { body?: unknown }) => {
        const raw =
          typeof request.body === 'string'
            ? request.body
            : new TextDecoder().decode(request.body as Uint8Array);
        const body = JSON.parse(raw || '{}') as Record<string, unknown>;
        bodies.push(body);
        const answer = body.ReturnConsumedCapacity
          ? { ConsumedCapacity: { TableName: 't', CapacityUnits: units } }
          : {};
        return {
          response: {
            statusCode: 200,
            headers: { 'content-type': 'application/x-amz-json-1.0' },
            body: Readable.from([Buffer.from(JSON.stringify(answer))]),
          },
        };
      },
    } as never,
  });
  return { client, bodies };
}

describe('capacityUnitsOf', () => {
  it('counts CapacityUnits as reads for a read operation and as writes for a write operation', () => {
    expect(capacityUnitsOf('Query', { TableName: 't', CapacityUnits: 0.5 })).toEqual({ read: 0.5, write: 0 });
    expect(capacityUnitsOf('Scan', { TableName: 't', CapacityUnits: 12 })).toEqual({ read: 12, write: 0 });
    expect(capacityUnitsOf('UpdateItem', { TableName: 't', CapacityUnits: 7 })).toEqual({
      read: 0,
      write: 7,
    });
  });

  it('uses ReadCapacityUnits and WriteCapacityUnits as they are when the response states them', () => {
    expect(
      capacityUnitsOf('UpdateItem', { CapacityUnits: 3, ReadCapacityUnits: 1, WriteCapacityUnits: 2 }),
    ).toEqual({ read: 1, write: 2 });
  });

  it('adds up the per-table entries of a batch response, and a response without any counts nothing', () => {
    expect(
      capacityUnitsOf('BatchGetItem', [
        { TableName: 'a', CapacityUnits: 1 },
        { TableName: 'b', CapacityUnits: 2.5 },
      ]),
    ).toEqual({ read: 3.5, write: 0 });
    expect(capacityUnitsOf('GetItem', undefined)).toEqual({ read: 0, write: 0 });
  });

  it('refuses to guess what the units of an operation it does not know are', () => {
    expect(() => capacityUnitsOf('ExecuteStatement', { CapacityUnits: 1 })).toThrow(/ExecuteStatement/);
  });
});

describe('summarizeCapacity', () => {
  it('totals the requests overall and per operation, and counts the responses that reported nothing', () => {
    const entries: CapacityEntry[] = [
      { operation: 'Query', read: 0.5, write: 0 },
      { operation: 'Query', read: 0, write: 0 },
      { operation: 'GetItem', read: 1, write: 0 },
      { operation: 'UpdateItem', read: 0, write: 7 },
    ];
    expect(summarizeCapacity(entries)).toEqual({
      requests: 4,
      readUnits: 1.5,
      writeUnits: 7,
      byOperation: {
        Query: { requests: 2, readUnits: 0.5, writeUnits: 0, reportedNothing: 1 },
        GetItem: { requests: 1, readUnits: 1, writeUnits: 0, reportedNothing: 0 },
        UpdateItem: { requests: 1, readUnits: 0, writeUnits: 7, reportedNothing: 0 },
      },
    });
  });
});

describe('ConsumedCapacityMeter', () => {
  it('asks every read and write request for its consumed capacity and adds up what is reported while measuring', async () => {
    const { client, bodies } = stubbedClient(2);
    const meter = new ConsumedCapacityMeter();
    meter.attachTo(client);
    const documents = DynamoDBDocumentClient.from(client);
    await documents.send(new GetCommand({ TableName: 't', Key: { id: 'before' } }));
    const { usage, result } = await meter.measure(async () => {
      await client.send(
        new QueryCommand({
          TableName: 't',
          KeyConditionExpression: 'id = :id',
          ExpressionAttributeValues: { ':id': { S: 'x' } },
        }),
      );
      await documents.send(new GetCommand({ TableName: 't', Key: { id: 'x' } }));
      await documents.send(
        new UpdateCommand({
          TableName: 't',
          Key: { id: 'x' },
          UpdateExpression: 'SET n = :n',
          ExpressionAttributeValues: { ':n': 1 },
        }),
      );
      return 'done';
    });
    expect(result).toBe('done');
    expect(usage.readUnits).toBe(4);
    expect(usage.writeUnits).toBe(2);
    expect(usage.requests).toBe(3);
    expect(bodies.every((body) => body.ReturnConsumedCapacity === 'TOTAL')).toBe(true);
    client.destroy();
  });

  it('leaves requests that have no consumed capacity alone, and measures one piece of work at a time', async () => {
    const { client, bodies } = stubbedClient(1);
    const meter = new ConsumedCapacityMeter();
    meter.attachTo(client);
    const { usage } = await meter.measure(async () => {
      await client.send(new DescribeTableCommand({ TableName: 't' }));
      await expect(meter.measure(async () => undefined)).rejects.toThrow(/one measurement at a time/);
    });
    expect(bodies[0]?.ReturnConsumedCapacity).toBeUndefined();
    expect(usage.requests).toBe(0);
    client.destroy();
  });
});
