/**
 * The gauges' readings in DynamoDB: COUNT and projection queries of the StateIndex (partition
 * ProcessState, sort UpdatedAt), and the admission counters' InFlight. Each read is bounded by
 * its cap (Limit shrinks as the reading nears it), so a backlog cannot make a sweep read forever.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { AdmissionCounterAttr, type ProcessState, STATE_INDEX, StateAttr } from '../contracts';
import type { BoundedCount, InFlightReader, OrderGaugeReader } from '../domain/ports';

export class DynamoOrderGauges implements OrderGaugeReader {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async countInState(
    state: ProcessState,
    options: { readonly updatedBefore?: string; readonly cap: number },
  ): Promise<BoundedCount> {
    let count = 0;
    let cursor: Record<string, unknown> | undefined;
    do {
      const result = await this.client.send(
        new QueryCommand({
          ...this.stateQuery(state, options.updatedBefore),
          Select: 'COUNT',
          Limit: options.cap - count,
          ...(cursor !== undefined && { ExclusiveStartKey: cursor }),
        }),
      );
      count += result.Count ?? 0;
      cursor = result.LastEvaluatedKey;
    } while (cursor !== undefined && count < options.cap);
    // The loop leaves a cursor behind only when it stopped at the cap.
    return { count, capped: cursor !== undefined };
  }

  async earliestCreatedAt(
    states: readonly ProcessState[],
    cap: number,
  ): Promise<{ readonly createdAt?: string; readonly capped: boolean }> {
    let earliest: string | undefined;
    let read = 0;
    let capped = false;
    for (const state of states) {
      let cursor: Record<string, unknown> | undefined;
      do {
        if (read >= cap) {
          capped = true;
          break;
        }
        const query = this.stateQuery(state);
        const result = await this.client.send(
          new QueryCommand({
            ...query,
            ExpressionAttributeNames: {
              ...query.ExpressionAttributeNames,
              '#createdAt': StateAttr.CreatedAt,
            },
            ProjectionExpression: '#createdAt',
            Limit: cap - read,
            ...(cursor !== undefined && { ExclusiveStartKey: cursor }),
          }),
        );
        for (const item of result.Items ?? []) {
          const createdAt = item[StateAttr.CreatedAt];
          // ISO-8601 UTC timestamps order as text.
          if (typeof createdAt === 'string' && (earliest === undefined || createdAt < earliest)) {
            earliest = createdAt;
          }
        }
        read += result.Count ?? 0;
        cursor = result.LastEvaluatedKey;
      } while (cursor !== undefined);
    }
    return { ...(earliest !== undefined && { createdAt: earliest }), capped };
  }

  private stateQuery(
    state: ProcessState,
    updatedBefore?: string,
  ): Pick<
    QueryCommandInput,
    | 'TableName'
    | 'IndexName'
    | 'KeyConditionExpression'
    | 'ExpressionAttributeNames'
    | 'ExpressionAttributeValues'
  > {
    return {
      TableName: this.tableName,
      IndexName: STATE_INDEX.name,
      KeyConditionExpression:
        updatedBefore === undefined ? '#state = :state' : '#state = :state AND #updatedAt < :before',
      ExpressionAttributeNames: {
        '#state': STATE_INDEX.partitionKey,
        ...(updatedBefore !== undefined && { '#updatedAt': STATE_INDEX.sortKey }),
      },
      ExpressionAttributeValues: {
        ':state': state,
        ...(updatedBefore !== undefined && { ':before': updatedBefore }),
      },
    };
  }
}

/** The admission counters' InFlight, summed (a counter not yet written holds none). */
export class DynamoInFlightReader implements InFlightReader {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly admissionTable: string,
  ) {}

  async slotsHeld(shardKeys: readonly string[]): Promise<number> {
    // One GetItem per counter (a profile has at most 64): the role that releases slots reads them anyway.
    const counters = await Promise.all(
      shardKeys.map((key) =>
        this.client.send(
          new GetCommand({
            TableName: this.admissionTable,
            Key: { [AdmissionCounterAttr.Pk]: key },
            ProjectionExpression: '#inFlight',
            ExpressionAttributeNames: { '#inFlight': AdmissionCounterAttr.InFlight },
          }),
        ),
      ),
    );
    return counters.reduce((sum, { Item }) => {
      const inFlight = Item?.[AdmissionCounterAttr.InFlight];
      return sum + (typeof inFlight === 'number' ? inFlight : 0);
    }, 0);
  }
}
