/**
 * The fake remote services' own database (items described at LedgerAttr):
 * - one item per effect, written once with a conditional put, so concurrent or repeated calls with
 *   the same Idempotency-Key cannot create a second effect;
 * - one undo per compensation key, written in the same transaction that marks the effect undone or
 *   closes its key, so an effect is undone at most once and a key without an effect can never get
 *   one later;
 * - one call counter per key (atomic ADD), counting every well-formed call: FLAKY and UNDO-FLAKY
 *   read it, and tests and the chaos checker measure the calls received per key with it;
 * - the end of an OUTAGE, per key (written by endOutage: a test playing the provider's fix).
 */
import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  paginateScan,
  type TransactWriteItem,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type {
  RemoteCompensationResult,
  RemoteOperationResult,
  ServiceName,
} from '../../scheduler-agent-supervisor/contracts';
import { isConditionalCheckFailed } from '../../shared/dynamodb-errors';
import { hasErrorName } from '../../shared/errors';
import { LedgerAttr, LedgerItemKind } from '../contracts';
import { callCounterKey, effectKey, outageEndedKey } from '../domain/remote-scenarios';

/** What an original call found in the ledger for its key. */
export type EffectRecording =
  | {
      readonly kind: 'recorded';
      readonly result: RemoteOperationResult;
      /** True when this call wrote the effect; false when it was already recorded by an earlier one. */
      readonly createdNow: boolean;
    }
  /** The key was compensated (its effect undone, or closed with nothing to undo): refuse the call. */
  | { readonly kind: 'compensated'; readonly compensationKey: string };

export interface RecordedUndo {
  readonly result: RemoteCompensationResult;
  /** True when this call undid (or closed); false when the compensation key had answered before. */
  readonly createdNow: boolean;
}

export interface LedgerPort {
  /** Counts this call for the key and returns its 1-based number. */
  countCall(service: ServiceName, idempotencyKey: string): Promise<number>;
  /** Whether the OUTAGE of this key was ended (see endOutage). */
  outageEnded(service: ServiceName, idempotencyKey: string): Promise<boolean>;
  /**
   * Records the effect unless the key already has one (or was closed by a compensation); returns
   * what is on record.
   */
  recordEffectOnce(
    service: ServiceName,
    idempotencyKey: string,
    proposed: RemoteOperationResult,
    skus: readonly string[],
  ): Promise<EffectRecording>;
  /** The SKUs of the order whose effect is recorded under the key; undefined when there is none. */
  effectSkus(service: ServiceName, idempotencyKey: string): Promise<readonly string[] | undefined>;
  /**
   * Undoes the effect recorded under `undoes` (or closes that key when it has none) once per
   * compensation key; a repeated compensation key returns its first answer.
   */
  recordUndoOnce(
    service: ServiceName,
    compensationKey: string,
    undoes: string,
    proposedConfirmationId: string,
  ): Promise<RecordedUndo>;
}

/**
 * Rounds of read-then-write an undo takes before giving up: a round is lost only to a concurrent
 * writer of the same keys (the other compensation delivery, or the original call), and the next
 * round reads what that writer left.
 */
const UNDO_ROUNDS = 5;

type Item = Record<string, AttributeValue>;

export class DynamoDbLedger implements LedgerPort {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async outageEnded(service: ServiceName, idempotencyKey: string): Promise<boolean> {
    return (await this.get(outageEndedKey(service, idempotencyKey))) !== undefined;
  }

  /**
   * Ends the OUTAGE of one key: its next call is served normally. Not a service operation: the
   * provider's fix, played by a test (or a demo) with write access to the ledger. Idempotent.
   */
  async endOutage(service: ServiceName, idempotencyKey: string): Promise<void> {
    await this.client.send(
      new PutItemCommand({
        TableName: this.tableName,
        Item: {
          [LedgerAttr.Pk]: { S: outageEndedKey(service, idempotencyKey) },
          [LedgerAttr.Kind]: { S: LedgerItemKind.OutageEnded },
          [LedgerAttr.Service]: { S: service },
          [LedgerAttr.IdempotencyKey]: { S: idempotencyKey },
          [LedgerAttr.CreatedAt]: { S: this.now().toISOString() },
        },
      }),
    );
  }

  async countCall(service: ServiceName, idempotencyKey: string): Promise<number> {
    const output = await this.client.send(
      new UpdateItemCommand({
        TableName: this.tableName,
        Key: { [LedgerAttr.Pk]: { S: callCounterKey(service, idempotencyKey) } },
        UpdateExpression: 'ADD #calls :one SET #service = :service, #key = :key, #kind = :kind',
        ExpressionAttributeNames: {
          '#calls': LedgerAttr.Calls,
          '#service': LedgerAttr.Service,
          '#key': LedgerAttr.IdempotencyKey,
          '#kind': LedgerAttr.Kind,
        },
        ExpressionAttributeValues: {
          ':one': { N: '1' },
          ':service': { S: service },
          ':key': { S: idempotencyKey },
          ':kind': { S: LedgerItemKind.Calls },
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
    skus: readonly string[],
  ): Promise<EffectRecording> {
    const key = effectKey(service, idempotencyKey);
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            [LedgerAttr.Pk]: { S: key },
            [LedgerAttr.Kind]: { S: LedgerItemKind.Effect },
            [LedgerAttr.Service]: { S: service },
            [LedgerAttr.IdempotencyKey]: { S: idempotencyKey },
            [LedgerAttr.Result]: { M: { confirmationId: { S: proposed.confirmationId } } },
            [LedgerAttr.Skus]: { L: skus.map((sku) => ({ S: sku })) },
            [LedgerAttr.CreatedAt]: { S: this.now().toISOString() },
          },
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': LedgerAttr.Pk },
        }),
      );
      return { kind: 'recorded', result: proposed, createdNow: true };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
    // Items under an effect key are never deleted, so the one that refused the put is still there.
    const existing = await this.get(key);
    const compensationKey = existing?.[LedgerAttr.ClosedBy]?.S ?? existing?.[LedgerAttr.UndoneBy]?.S;
    if (compensationKey) return { kind: 'compensated', compensationKey };
    const confirmationId = existing?.[LedgerAttr.Result]?.M?.confirmationId?.S;
    if (!confirmationId) {
      throw new Error(`Ledger effect ${key} exists but holds no ${LedgerAttr.Result}.confirmationId`);
    }
    return { kind: 'recorded', result: { confirmationId }, createdNow: false };
  }

  async effectSkus(service: ServiceName, idempotencyKey: string): Promise<readonly string[] | undefined> {
    const item = await this.get(effectKey(service, idempotencyKey));
    if (!item || kindOf(item) !== LedgerItemKind.Effect) return undefined;
    return stringsOf(item[LedgerAttr.Skus]);
  }

  async recordUndoOnce(
    service: ServiceName,
    compensationKey: string,
    undoes: string,
    proposedConfirmationId: string,
  ): Promise<RecordedUndo> {
    const undoKey = effectKey(service, compensationKey);
    const targetKey = effectKey(service, undoes);
    let lastRefusal: unknown;
    for (let round = 1; round <= UNDO_ROUNDS; round += 1) {
      const answered = await this.get(undoKey);
      if (answered) return { result: undoResultOf(undoKey, answered), createdNow: false };

      const target = await this.get(targetKey);
      const undoable =
        target !== undefined &&
        kindOf(target) === LedgerItemKind.Effect &&
        target[LedgerAttr.UndoneBy] === undefined;
      const result: RemoteCompensationResult = { confirmationId: proposedConfirmationId, undone: undoable };
      const writes: TransactWriteItem[] = [{ Put: this.undoPut(service, compensationKey, undoes, result) }];
      if (undoable) writes.push({ Update: this.markUndone(targetKey, compensationKey) });
      // Nothing under the key yet: close it, so a late original call cannot record the effect.
      else if (target === undefined) writes.push({ Put: this.closedPut(service, undoes, compensationKey) });
      // Otherwise the key is closed already, or another compensation key undid its effect:
      // this compensation has nothing left to undo, and records just that.
      try {
        await this.client.send(new TransactWriteItemsCommand({ TransactItems: writes }));
        return { result, createdNow: true };
      } catch (error) {
        if (!hasErrorName(error, 'TransactionCanceledException')) throw error;
        lastRefusal = error;
      }
    }
    throw new Error(
      `Ledger undo ${undoKey} of ${targetKey} lost ${UNDO_ROUNDS} rounds to concurrent writers: ${String(lastRefusal)}`,
    );
  }

  private undoPut(
    service: ServiceName,
    compensationKey: string,
    undoes: string,
    result: RemoteCompensationResult,
  ): NonNullable<TransactWriteItem['Put']> {
    return {
      TableName: this.tableName,
      Item: {
        [LedgerAttr.Pk]: { S: effectKey(service, compensationKey) },
        [LedgerAttr.Kind]: { S: LedgerItemKind.Undo },
        [LedgerAttr.Service]: { S: service },
        [LedgerAttr.IdempotencyKey]: { S: compensationKey },
        [LedgerAttr.Undoes]: { S: undoes },
        [LedgerAttr.Undone]: { BOOL: result.undone },
        [LedgerAttr.Result]: { M: { confirmationId: { S: result.confirmationId } } },
        [LedgerAttr.CreatedAt]: { S: this.now().toISOString() },
      },
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': LedgerAttr.Pk },
    };
  }

  private markUndone(targetKey: string, compensationKey: string): NonNullable<TransactWriteItem['Update']> {
    return {
      TableName: this.tableName,
      Key: { [LedgerAttr.Pk]: { S: targetKey } },
      UpdateExpression: 'SET #undoneBy = :by, #undoneAt = :at',
      // Only an effect holds a Result (a closed key does not), and it is undone once.
      ConditionExpression: 'attribute_exists(#result) AND attribute_not_exists(#undoneBy)',
      ExpressionAttributeNames: {
        '#result': LedgerAttr.Result,
        '#undoneBy': LedgerAttr.UndoneBy,
        '#undoneAt': LedgerAttr.UndoneAt,
      },
      ExpressionAttributeValues: {
        ':by': { S: compensationKey },
        ':at': { S: this.now().toISOString() },
      },
    };
  }

  private closedPut(
    service: ServiceName,
    undoes: string,
    compensationKey: string,
  ): NonNullable<TransactWriteItem['Put']> {
    return {
      TableName: this.tableName,
      Item: {
        [LedgerAttr.Pk]: { S: effectKey(service, undoes) },
        [LedgerAttr.Kind]: { S: LedgerItemKind.Closed },
        [LedgerAttr.Service]: { S: service },
        [LedgerAttr.IdempotencyKey]: { S: undoes },
        [LedgerAttr.ClosedBy]: { S: compensationKey },
        [LedgerAttr.CreatedAt]: { S: this.now().toISOString() },
      },
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': LedgerAttr.Pk },
    };
  }

  private async get(pk: string): Promise<Item | undefined> {
    const output = await this.client.send(
      new GetItemCommand({
        TableName: this.tableName,
        Key: { [LedgerAttr.Pk]: { S: pk } },
        ConsistentRead: true,
      }),
    );
    return output.Item;
  }
}

function undoResultOf(undoKey: string, item: Item): RemoteCompensationResult {
  const confirmationId = item[LedgerAttr.Result]?.M?.confirmationId?.S;
  const undone = item[LedgerAttr.Undone]?.BOOL;
  if (!confirmationId || undone === undefined) {
    throw new Error(`Ledger undo ${undoKey} exists but holds no confirmationId and ${LedgerAttr.Undone}`);
  }
  return { confirmationId, undone };
}

/** An item's kind; items written before Kind existed are effects, or counters by their key. */
function kindOf(item: Item): LedgerItemKind {
  const kind = item[LedgerAttr.Kind]?.S;
  if (kind !== undefined) return kind as LedgerItemKind;
  return (item[LedgerAttr.Pk]?.S ?? '').startsWith('calls#') ? LedgerItemKind.Calls : LedgerItemKind.Effect;
}

function stringsOf(value: AttributeValue | undefined): readonly string[] {
  return (value?.L ?? []).flatMap((entry) => (entry.S === undefined ? [] : [entry.S]));
}

// ---------------------------------------------------------------------------------------------
// Reading the whole ledger (tests, acceptance checks and the chaos campaign; the services never scan)
// ---------------------------------------------------------------------------------------------

/** An effect recorded by an original call. */
export interface LedgerEffect {
  readonly service: string;
  readonly idempotencyKey: string;
  readonly confirmationId: string;
  readonly skus: readonly string[];
  /** The compensation key that undid it, and when (ISO-8601); absent while it stands. */
  readonly undoneBy?: string;
  readonly undoneAt?: string;
}

/** A compensation's answer, recorded once per compensation key. */
export interface LedgerUndo {
  readonly service: string;
  /** The compensation's own key (`<orderId>:<compensation>`). */
  readonly idempotencyKey: string;
  /** Key of the effect it undoes. */
  readonly undoes: string;
  /** False when there was no effect to undo (the key was closed instead). */
  readonly undone: boolean;
  readonly confirmationId: string;
  /** When the service recorded it (ISO); the chaos checker orders an order's undos by it. */
  readonly createdAt?: string;
}

/** A key closed by a compensation that found nothing to undo: no effect can be recorded under it. */
export interface LedgerClosedKey {
  readonly service: string;
  readonly idempotencyKey: string;
  readonly closedBy: string;
}

/** How many calls a service received for one key (an operation of an order), all attempts included. */
export interface LedgerCallCount {
  readonly service: string;
  readonly idempotencyKey: string;
  readonly calls: number;
}

export interface LedgerContents {
  readonly effects: readonly LedgerEffect[];
  readonly undos: readonly LedgerUndo[];
  readonly closedKeys: readonly LedgerClosedKey[];
  readonly calls: readonly LedgerCallCount[];
}

/**
 * Everything the fake downstream did, per service and key: the effects (and which were undone),
 * the compensations' answers, and the keys closed without an effect. A consistent scan: for tests
 * and checkers over small ledgers, never for the services themselves.
 */
export async function readLedger(client: DynamoDBClient, tableName: string): Promise<LedgerContents> {
  const effects: LedgerEffect[] = [];
  const undos: LedgerUndo[] = [];
  const closedKeys: LedgerClosedKey[] = [];
  const calls: LedgerCallCount[] = [];
  for await (const page of paginateScan({ client }, { TableName: tableName, ConsistentRead: true })) {
    for (const item of page.Items ?? []) {
      const service = item[LedgerAttr.Service]?.S ?? '?';
      const idempotencyKey = item[LedgerAttr.IdempotencyKey]?.S ?? '?';
      switch (kindOf(item)) {
        case LedgerItemKind.Effect: {
          const undoneBy = item[LedgerAttr.UndoneBy]?.S;
          const undoneAt = item[LedgerAttr.UndoneAt]?.S;
          effects.push({
            service,
            idempotencyKey,
            confirmationId: item[LedgerAttr.Result]?.M?.confirmationId?.S ?? '?',
            skus: stringsOf(item[LedgerAttr.Skus]),
            ...(undoneBy !== undefined && { undoneBy }),
            ...(undoneAt !== undefined && { undoneAt }),
          });
          break;
        }
        case LedgerItemKind.Undo: {
          const createdAt = item[LedgerAttr.CreatedAt]?.S;
          undos.push({
            service,
            idempotencyKey,
            undoes: item[LedgerAttr.Undoes]?.S ?? '?',
            undone: item[LedgerAttr.Undone]?.BOOL === true,
            confirmationId: item[LedgerAttr.Result]?.M?.confirmationId?.S ?? '?',
            ...(createdAt !== undefined && { createdAt }),
          });
          break;
        }
        case LedgerItemKind.Closed:
          closedKeys.push({ service, idempotencyKey, closedBy: item[LedgerAttr.ClosedBy]?.S ?? '?' });
          break;
        case LedgerItemKind.Calls:
          calls.push({ service, idempotencyKey, calls: Number(item[LedgerAttr.Calls]?.N ?? 0) });
          break;
        case LedgerItemKind.OutageEnded:
          break;
      }
    }
  }
  return { effects, undos, closedKeys, calls };
}
