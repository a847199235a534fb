/**
 * Admission control in DynamoDB (contracts/admission.ts): the transaction that accepts an order and
 * takes a slot, the transaction that releases it, the drain statistics and the AdmissionIndex.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { retryWithBackoff } from '../../shared/backoff';
import { type Clock, isoAt, type Sleep, sleep, systemClock } from '../../shared/clock';
import { isConditionalCheckFailed } from '../../shared/dynamodb-errors';
import { hasErrorName } from '../../shared/errors';
import {
  ADMISSION_INDEX,
  AdmissionCounterAttr,
  DRAIN_ITEM_KEY,
  DrainAttr,
  OrderAttr,
  type ProcessState,
  StateAttr,
  TERMINAL_STATES,
} from '../contracts';
import type { AdmissionSlot, DrainObservation } from '../domain/admission';
import type {
  AcceptanceRequest,
  AcceptanceResult,
  DrainRecorder,
  HeldSlot,
  HeldSlotCursor,
  HeldSlotIndex,
  OrderAcceptance,
  SlotReleaser,
  TransitionResult,
} from '../domain/ports';
import { storedOrderToItem } from './orders-repository';
import { stateRecordToItem } from './state-record-item';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * The counter half of taking a slot, as one TransactWriteItems entry: `SET Cap = :cap ADD InFlight
 * :one`, only while InFlight is absent or below the cap. Exported for every path that starts new
 * work: the submission, and an operator retry (Error -> Pending), which puts this entry in the same
 * transaction as its own record update, together with holdSlotOnRecord's clause.
 */
export function takeSlotTransactItem(
  admissionTable: string,
  slot: Pick<AdmissionSlot, 'key' | 'cap'>,
  at: number,
): TransactItem {
  return {
    Update: {
      TableName: admissionTable,
      Key: { [AdmissionCounterAttr.Pk]: slot.key },
      UpdateExpression: 'SET #cap = :cap, #updatedAt = :now ADD #inFlight :one',
      ConditionExpression: 'attribute_not_exists(#inFlight) OR #inFlight < :cap',
      ExpressionAttributeNames: {
        '#cap': AdmissionCounterAttr.Cap,
        '#updatedAt': AdmissionCounterAttr.UpdatedAt,
        '#inFlight': AdmissionCounterAttr.InFlight,
      },
      ExpressionAttributeValues: { ':cap': slot.cap, ':now': isoAt(at), ':one': 1 },
    },
  };
}

/**
 * The record half of taking a slot, to merge into the record's own UpdateItem (operator retry):
 * `SET AdmissionShard = :admissionShard`, conditional on the record holding no slot. When the
 * record still holds one (its release has not run yet), the retry must not take a second slot: it
 * keeps the one it has (leave both this clause and takeSlotTransactItem out), and the pending
 * release, finding the record no longer terminal, leaves it alone.
 */
export function holdSlotOnRecord(slotKey: string): {
  readonly set: string;
  readonly condition: string;
  readonly names: Readonly<Record<string, string>>;
  readonly values: Readonly<Record<string, unknown>>;
} {
  return {
    set: '#admissionShard = :admissionShard',
    condition: 'attribute_not_exists(#admissionShard)',
    names: { '#admissionShard': StateAttr.AdmissionShard },
    values: { ':admissionShard': slotKey },
  };
}

/** The release transaction: the record gives up its slot (once, when terminal), its counter takes it back. */
export function releaseSlotTransactItems(
  tables: { readonly stateTable: string; readonly admissionTable: string },
  slot: Pick<HeldSlot, 'orderId' | 'shardKey' | 'clientShardKey'>,
  at: number,
): TransactItem[] {
  const terminal = TERMINAL_STATES.map((_, index) => `:terminal${index}`);
  const { clientShardKey } = slot;
  // The client's slot is released with the shard's, or the record must hold none: a release built
  // from a record read without it never leaves a client's slot taken.
  const clientCondition =
    clientShardKey === undefined ? 'attribute_not_exists(#clientShard)' : '#clientShard = :clientShard';
  const giveBack = (key: string, released: boolean): TransactItem => ({
    Update: {
      TableName: tables.admissionTable,
      Key: { [AdmissionCounterAttr.Pk]: key },
      UpdateExpression: `SET #updatedAt = :now ADD #inFlight :minusOne${released ? ', #released :one' : ''}`,
      ExpressionAttributeNames: {
        '#updatedAt': AdmissionCounterAttr.UpdatedAt,
        '#inFlight': AdmissionCounterAttr.InFlight,
        ...(released && { '#released': AdmissionCounterAttr.Released }),
      },
      ExpressionAttributeValues: { ':now': isoAt(at), ':minusOne': -1, ...(released && { ':one': 1 }) },
    },
  });
  return [
    {
      Update: {
        TableName: tables.stateTable,
        Key: { [StateAttr.OrderId]: slot.orderId },
        UpdateExpression: 'REMOVE #admissionShard, #clientShard',
        ConditionExpression: `#admissionShard = :shard AND ${clientCondition} AND #state IN (${terminal.join(', ')})`,
        ExpressionAttributeNames: {
          '#admissionShard': StateAttr.AdmissionShard,
          '#clientShard': StateAttr.AdmissionClientShard,
          '#state': StateAttr.ProcessState,
        },
        ExpressionAttributeValues: {
          ':shard': slot.shardKey,
          ...(clientShardKey !== undefined && { ':clientShard': clientShardKey }),
          ...Object.fromEntries(TERMINAL_STATES.map((state, index) => [`:terminal${index}`, state])),
        },
      },
    },
    giveBack(slot.shardKey, true),
    // The drain (Released) is the limit's: counted once, on the shard.
    ...(clientShardKey === undefined ? [] : [giveBack(clientShardKey, false)]),
  ];
}

/** Codes of TransactionCanceledException.CancellationReasons, one per item ('None' when it was fine). */
function cancellationCodes(error: unknown): string[] | undefined {
  if (!hasErrorName(error, 'TransactionCanceledException')) return undefined;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.map((reason) => reason.Code ?? 'None');
}

/**
 * A transaction, retried with full jitter while it is cancelled only by a conflict with another
 * transaction on the same item (concurrent takes on one counter: the cost of a shared counter,
 * which sharding keeps small). Any condition failure is an answer, returned as the codes.
 */
export async function transact(
  client: DynamoDBDocumentClient,
  items: TransactItem[],
  timing: AdapterTiming,
): Promise<string[] | 'done'> {
  const result = await retryWithBackoff<string[] | 'done', string[]>(
    async () => {
      try {
        await client.send(new TransactWriteCommand({ TransactItems: items }));
        return { done: true, value: 'done' };
      } catch (error) {
        const codes = cancellationCodes(error);
        if (codes === undefined) throw error;
        if (codes.includes('ConditionalCheckFailed')) return { done: true, value: codes };
        if (codes.some((code) => code === 'TransactionConflict' || code === 'ThrottlingError')) {
          return { done: false, failure: codes };
        }
        throw error;
      }
    },
    {
      policy: { baseMillis: 10, capMillis: 400, minDelayMillis: 2, maxAttempts: TRANSACTION_ATTEMPTS },
      clock: timing.clock,
      sleep: timing.sleep,
      random: timing.random,
    },
  );
  if (result.kind === 'done') return result.value;
  throw new Error(
    `Transaction still conflicting after ${result.attempts} attempts (${result.lastFailure?.join(', ')})`,
  );
}

const TRANSACTION_ATTEMPTS = 12;

export interface AdapterTiming {
  readonly clock: Clock;
  readonly sleep: Sleep;
  readonly random: () => number;
}

export const REAL_TIMING: AdapterTiming = { clock: systemClock, sleep, random: Math.random };

/** Accepts an order: order, state record and slot in one TransactWriteItems. */
export class DynamoOrderAcceptance implements OrderAcceptance {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: {
      readonly ordersTable: string;
      readonly stateTable: string;
      readonly admissionTable: string;
    },
    private readonly timing: AdapterTiming = REAL_TIMING,
  ) {
    for (const [name, value] of Object.entries(tables)) {
      if (!value) throw new Error(`DynamoOrderAcceptance: ${name} is required`);
    }
  }

  async accept(request: AcceptanceRequest): Promise<AcceptanceResult> {
    const { order, record, slot } = request;
    if (record.admissionShard !== slot.key || record.admissionClientShard !== slot.client?.key) {
      throw new Error(
        `Order '${order.orderId}': the record's AdmissionShard/AdmissionClientShard (${record.admissionShard}, ${record.admissionClientShard}) are not the slots taken (${slot.key}, ${slot.client?.key})`,
      );
    }
    const at = Date.parse(record.createdAt);
    const orderItem: TransactItem = request.orderAlreadyStored
      ? {
          ConditionCheck: {
            TableName: this.tables.ordersTable,
            Key: { [OrderAttr.OrderId]: order.orderId },
            ConditionExpression: '#fingerprint = :fingerprint',
            ExpressionAttributeNames: { '#fingerprint': OrderAttr.Fingerprint },
            ExpressionAttributeValues: { ':fingerprint': order.fingerprint },
          },
        }
      : {
          Put: {
            TableName: this.tables.ordersTable,
            Item: storedOrderToItem(order),
            ConditionExpression: 'attribute_not_exists(#id)',
            ExpressionAttributeNames: { '#id': OrderAttr.OrderId },
          },
        };
    const outcome = await transact(
      this.client,
      [
        orderItem,
        {
          Put: {
            TableName: this.tables.stateTable,
            Item: stateRecordToItem(record),
            ConditionExpression: 'attribute_not_exists(#id)',
            ExpressionAttributeNames: { '#id': StateAttr.OrderId },
          },
        },
        takeSlotTransactItem(this.tables.admissionTable, slot, at),
        // The client's share: its own counter, in the same transaction (no race can overshoot it).
        ...(slot.client === undefined
          ? []
          : [takeSlotTransactItem(this.tables.admissionTable, slot.client, at)]),
      ],
      this.timing,
    );
    if (outcome === 'done') return 'accepted';
    // An existing order outranks a full shard: a resubmission is answered from what is stored and
    // never needs a slot.
    if (outcome[0] === 'ConditionalCheckFailed') return 'order-exists';
    if (outcome[1] === 'ConditionalCheckFailed') return 'record-exists';
    if (outcome[3] === 'ConditionalCheckFailed') return 'client-share-full';
    return 'shard-full';
  }
}

/** Releases slots and finds the ones whose release was lost. */
export class DynamoAdmissionSlots implements SlotReleaser, HeldSlotIndex {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { readonly stateTable: string; readonly admissionTable: string },
    private readonly timing: AdapterTiming = REAL_TIMING,
  ) {
    for (const [name, value] of Object.entries(tables)) {
      if (!value) throw new Error(`DynamoAdmissionSlots: ${name} is required`);
    }
  }

  async release(slot: HeldSlot, at: number): Promise<'released' | 'not-held'> {
    const outcome = await transact(this.client, releaseSlotTransactItems(this.tables, slot, at), this.timing);
    return outcome === 'done' ? 'released' : 'not-held';
  }

  async queryTerminalHeld(
    shardKey: string,
    updatedBefore: string,
    limit: number,
    cursor?: HeldSlotCursor,
  ): Promise<{ readonly slots: readonly HeldSlot[]; readonly next?: HeldSlotCursor }> {
    const terminal = TERMINAL_STATES.map((_, index) => `:terminal${index}`);
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tables.stateTable,
        IndexName: ADMISSION_INDEX.name,
        KeyConditionExpression: '#shard = :shard AND #updatedAt < :before',
        // Limit counts items before this filter; the cursor carries on from there.
        FilterExpression: `#state IN (${terminal.join(', ')})`,
        ExpressionAttributeNames: {
          '#shard': ADMISSION_INDEX.partitionKey,
          '#updatedAt': ADMISSION_INDEX.sortKey,
          '#state': StateAttr.ProcessState,
        },
        ExpressionAttributeValues: {
          ':shard': shardKey,
          ':before': updatedBefore,
          ...Object.fromEntries(TERMINAL_STATES.map((state, index) => [`:terminal${index}`, state])),
        },
        Limit: limit,
        ...(cursor !== undefined && { ExclusiveStartKey: { ...cursor } }),
      }),
    );
    const slots: HeldSlot[] = [];
    for (const item of result.Items ?? []) {
      const orderId = String(item[StateAttr.OrderId]);
      slots.push({
        orderId,
        shardKey: String(item[StateAttr.AdmissionShard]),
        processState: item[StateAttr.ProcessState] as ProcessState,
        ...(await this.clientShardOf(orderId)),
      });
    }
    return {
      slots,
      ...(result.LastEvaluatedKey !== undefined && { next: result.LastEvaluatedKey }),
    };
  }

  /**
   * The record's AdmissionClientShard, read from the table: the index projects only ProcessState
   * (widening a projection replaces the index), and only the rare lost release gets here.
   */
  private async clientShardOf(orderId: string): Promise<Pick<HeldSlot, 'clientShardKey'>> {
    const { Item: item } = await this.client.send(
      new GetCommand({
        TableName: this.tables.stateTable,
        Key: { [StateAttr.OrderId]: orderId },
        ConsistentRead: true,
        ProjectionExpression: '#clientShard',
        ExpressionAttributeNames: { '#clientShard': StateAttr.AdmissionClientShard },
      }),
    );
    const key = item?.[StateAttr.AdmissionClientShard];
    return typeof key === 'string' ? { clientShardKey: key } : {};
  }
}

/** The drain statistics item, written with optimistic concurrency on its Version. */
export class DynamoDrainStatistics implements DrainRecorder {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly admissionTable: string,
  ) {
    if (!admissionTable) throw new Error('DynamoDrainStatistics: admissionTable is required');
  }

  async read(): Promise<DrainObservation | undefined> {
    const { Item: item } = await this.client.send(
      new GetCommand({
        TableName: this.admissionTable,
        Key: { [AdmissionCounterAttr.Pk]: DRAIN_ITEM_KEY },
        ConsistentRead: true,
      }),
    );
    if (!item) return undefined;
    const lastReleaseAt = item[DrainAttr.LastReleaseAt];
    const version = item[DrainAttr.Version];
    const ewma = item[DrainAttr.IntervalMillisEwma];
    if (typeof lastReleaseAt !== 'number' || typeof version !== 'number') {
      throw new Error(`The drain item has no numeric ${DrainAttr.LastReleaseAt} or ${DrainAttr.Version}`);
    }
    return { lastReleaseAt, version, ...(typeof ewma === 'number' && { intervalMillisEwma: ewma }) };
  }

  async write(next: DrainObservation, seenVersion: number | undefined): Promise<TransitionResult> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.admissionTable,
          Item: {
            [AdmissionCounterAttr.Pk]: DRAIN_ITEM_KEY,
            ...(next.intervalMillisEwma !== undefined && {
              [DrainAttr.IntervalMillisEwma]: next.intervalMillisEwma,
            }),
            [DrainAttr.LastReleaseAt]: next.lastReleaseAt,
            [DrainAttr.Version]: next.version,
            [AdmissionCounterAttr.UpdatedAt]: isoAt(next.lastReleaseAt),
          },
          ConditionExpression:
            seenVersion === undefined ? 'attribute_not_exists(#pk)' : '#version = :seenVersion',
          ExpressionAttributeNames:
            seenVersion === undefined
              ? { '#pk': AdmissionCounterAttr.Pk }
              : { '#version': DrainAttr.Version },
          ...(seenVersion !== undefined && { ExpressionAttributeValues: { ':seenVersion': seenVersion } }),
        }),
      );
      return 'applied';
    } catch (error) {
      if (isConditionalCheckFailed(error)) return 'lost';
      throw error;
    }
  }
}
