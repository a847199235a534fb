/**
 * The emulator's own speed, measured in the same run as the app it carries: how many operations per
 * second DynamoDB Local answers on its own endpoint (past the runtime's meter), with nothing of the
 * app in the way. A figure divides it by the operations one request of the app needs to get the
 * most that app could do on this emulator and this machine (its floor).
 */
import {
  CreateTableCommand,
  DeleteTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { LocalTarget } from '../../local-runtime';

/** One round of the load: a write of a new item, a strongly consistent read of it, a conditional update. */
export const FLOOR_OPERATIONS_PER_ROUND = 3;

export interface FloorOptions {
  /** How long to load the emulator. */
  readonly millis: number;
  /** Rounds in flight at once (the functions of an app also call in parallel). */
  readonly concurrency: number;
  /** The scratch table's name (made and removed here). */
  readonly tableName: string;
}

export interface Floor {
  readonly operations: number;
  readonly millis: number;
  readonly operationsPerSecond: number;
}

/** A body of about 400 bytes, the size of a small state record. */
const PAYLOAD = 'x'.repeat(400);

/**
 * Loads DynamoDB Local with `concurrency` loops of put, consistent get and conditional update on
 * fresh keys for `millis`, and counts the operations answered. The mix is the app's kind of work
 * (small items, conditional writes, consistent reads), not a replay of its exact operations.
 */
export async function measureDynamoDbFloor(target: LocalTarget, options: FloorOptions): Promise<Floor> {
  if (options.millis <= 0 || options.concurrency < 1) {
    throw new Error(
      `measureDynamoDbFloor: millis (${options.millis}) and concurrency (${options.concurrency}) must be positive`,
    );
  }
  const client = new DynamoDBClient({
    region: target.region,
    credentials: { ...target.credentials },
    endpoint: target.endpoints.dynamodb,
    // A failed call is a failed floor, not one to hide behind retries.
    maxAttempts: 1,
  });
  const TableName = options.tableName;
  try {
    await client.send(
      new CreateTableCommand({
        TableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      }),
    );
    let operations = 0;
    const started = Date.now();
    const stopAt = started + options.millis;
    // The first failure stops every loop: the others must not go on against a table being deleted.
    let failed = false;
    const loop = async (worker: number) => {
      for (let round = 0; !failed && Date.now() < stopAt; round++) {
        const Key = { pk: { S: `${worker}-${round}` } };
        await client.send(
          new PutItemCommand({
            TableName,
            Item: { ...Key, payload: { S: PAYLOAD }, version: { N: '1' } },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        await client.send(new GetItemCommand({ TableName, Key, ConsistentRead: true }));
        await client.send(
          new UpdateItemCommand({
            TableName,
            Key,
            UpdateExpression: 'SET version = :next',
            ConditionExpression: 'version = :current',
            ExpressionAttributeValues: { ':current': { N: '1' }, ':next': { N: '2' } },
          }),
        );
        operations += FLOOR_OPERATIONS_PER_ROUND;
      }
    };
    // Every loop has stopped before the table is deleted; the first failure is the floor's.
    const outcomes = await Promise.allSettled(
      Array.from({ length: options.concurrency }, (_, worker) =>
        loop(worker).catch((error: unknown) => {
          failed = true;
          throw error;
        }),
      ),
    );
    const failure = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failure) throw failure.reason;
    const millis = Date.now() - started;
    return { operations, millis, operationsPerSecond: (operations * 1_000) / millis };
  } finally {
    await client.send(new DeleteTableCommand({ TableName })).catch(() => undefined);
    client.destroy();
  }
}
