/**
 * The fake remote services' own database: one item per effect (written once, with a conditional
 * put, so concurrent or repeated calls with the same Idempotency-Key cannot create a second
 * effect) and one call counter per key (atomic ADD) for the FLAKY scenario.
 */
import {
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { type RemoteOperationResult, type ServiceName } from '../../scheduler-agent-supervisor/contracts';
import { isConditionalCheckFailed } from '../../shared/dynamodb-errors';
import { LedgerAttr } from '../contracts';
import { callCounterKey, effectKey } from '../domain/remote-scenarios';

export interface RecordedEffect {
  readonly result: RemoteOperationResult;
  /** True when this call wrote the effect; false when it was already recorded by an earlier one. */
  readonly createdNow: boolean;
}

export interface LedgerPort {
  /** Counts this call for the key and returns its 1-based number. */
  countCall(service: ServiceName, idempotencyKey: string): Promise<number>;
  /** Records the effect unless one exists for the key; either way returns the effect on record. */
  recordEffectOnce(
    service: ServiceName,
    idempotencyKey: string,
    proposed: RemoteOperationResult,
  ): Promise<RecordedEffect>;
}

export class DynamoDbLedger implements LedgerPort {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async countCall(service: ServiceName, idempotencyKey: string): Promise<number> {
    const output = await this.client.send(
      new UpdateItemCommand({
        TableName: this.tableName,
        Key: { [LedgerAttr.Pk]: { S: callCounterKey(service, idempotencyKey) } },
        UpdateExpression: 'ADD #calls :one SET #service = :service, #key = :key',
        ExpressionAttributeNames: {
          '#calls': LedgerAttr.Calls,
          '#service': LedgerAttr.Service,
          '#key': LedgerAttr.IdempotencyKey,
        },
        ExpressionAttributeValues: {
          ':one': { N: '1' },
          ':service': { S: service },
          ':key': { S: idempotencyKey },
        },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const calls = Number(output.Attributes?.[LedgerAttr.Calls]?.N);
    if (!Number.isInteger(calls)) {
      throw new Error(`Ledger counter for ${service}/${idempotencyKey} returned no ${LedgerAttr.Calls}`);
    }
    return calls;
  }

  async recordEffectOnce(
    service: ServiceName,
    idempotencyKey: string,
    proposed: RemoteOperationResult,
  ): Promise<RecordedEffect> {
    const key = effectKey(service, idempotencyKey);
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            [LedgerAttr.Pk]: { S: key },
            [LedgerAttr.Service]: { S: service },
            [LedgerAttr.IdempotencyKey]: { S: idempotencyKey },
            [LedgerAttr.Result]: { M: { confirmationId: { S: proposed.confirmationId } } },
            [LedgerAttr.CreatedAt]: { S: this.now().toISOString() },
          },
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': LedgerAttr.Pk },
        }),
      );
      return { result: proposed, createdNow: true };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
    const existing = await this.client.send(
      new GetItemCommand({
        TableName: this.tableName,
        Key: { [LedgerAttr.Pk]: { S: key } },
        ConsistentRead: true,
      }),
    );
    const confirmationId = existing.Item?.[LedgerAttr.Result]?.M?.confirmationId?.S;
    if (!confirmationId) {
      throw new Error(`Ledger effect ${key} exists but holds no ${LedgerAttr.Result}.confirmationId`);
    }
    return { result: { confirmationId }, createdNow: false };
  }
}
