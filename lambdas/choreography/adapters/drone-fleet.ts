/**
 * The Drone Scheduler's DRONE#<droneId> items: each drone's version and live bookings. Read with
 * strongly consistent reads (a booking just committed must be seen), written only inside the kit's
 * transaction, conditional on the version read: of two deliveries that picked the same drone, one
 * commits and the other re-reads the fleet and picks again.
 */
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TABLE_PARTITION_KEY } from '../contracts';
import type { Booking, DroneState, DroneUpdate } from '../domain/drone-scheduler';
import type { ExtraWrite } from './service-store';

export const droneKeyOf = (droneId: string) => `DRONE#${droneId}`;
export const assignmentKeyOf = (deliveryId: string) => `ASSIGNMENT#${deliveryId}`;

/** BatchGetItem's limit of keys per call. */
const BATCH_GET_KEYS = 100;
/** Rounds of UnprocessedKeys re-asked before the read fails (the record is then retried). */
const MAX_BATCH_ROUNDS = 5;

export class DynamoDroneFleet {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Every drone named, in the order given; a drone never booked reads as version 0, no bookings. */
  async read(droneIds: readonly string[]): Promise<DroneState[]> {
    const found = new Map<string, DroneState>();
    for (let offset = 0; offset < droneIds.length; offset += BATCH_GET_KEYS) {
      let keys: Record<string, unknown>[] = droneIds
        .slice(offset, offset + BATCH_GET_KEYS)
        .map((droneId) => ({ [TABLE_PARTITION_KEY]: droneKeyOf(droneId) }));
      for (let round = 1; keys.length > 0; round += 1) {
        if (round > MAX_BATCH_ROUNDS)
          throw new Error(`DRONE# items still unprocessed after ${MAX_BATCH_ROUNDS} reads`);
        const output = await this.client.send(
          new BatchGetCommand({
            RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true } },
          }),
        );
        for (const item of output.Responses?.[this.tableName] ?? []) {
          const drone = droneOf(item);
          found.set(drone.droneId, drone);
        }
        keys = output.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
      }
    }
    return droneIds.map((droneId) => found.get(droneId) ?? { droneId, version: 0, assignments: [] });
  }

  /** The write of a drone's new bookings, for the kit's transaction. */
  writeOf(update: DroneUpdate): ExtraWrite {
    return droneWriteOf(this.tableName, update);
  }
}

/**
 * A drone's new bookings as one write of the kit's transaction, conditional on the version the
 * decision read (on the item not existing for version 0): the guard that keeps a drone from being
 * double-booked. Pure, so the protocol model (lib/verify, through protocol.ts) reads the same guard.
 */
export function droneWriteOf(tableName: string, update: DroneUpdate): ExtraWrite {
  const condition: Pick<
    NonNullable<ExtraWrite['Put']>,
    'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
  > = update.expectedVersion === 0
    ? {
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': TABLE_PARTITION_KEY },
      }
    : {
        ConditionExpression: '#version = :version',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: { ':version': update.expectedVersion },
      };
  return {
    Put: {
      TableName: tableName,
      Item: {
        [TABLE_PARTITION_KEY]: droneKeyOf(update.droneId),
        droneId: update.droneId,
        version: update.expectedVersion + 1,
        assignments: update.assignments.map(({ deliveryId, start, end }) => ({ deliveryId, start, end })),
      },
      ...condition,
    },
  };
}

function droneOf(item: Record<string, unknown>): DroneState {
  return {
    droneId: String(item.droneId),
    version: typeof item.version === 'number' ? item.version : 0,
    assignments: Array.isArray(item.assignments) ? (item.assignments as Booking[]) : [],
  };
}
