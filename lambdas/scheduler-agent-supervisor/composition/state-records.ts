/**
 * The order's state record for the tooling that loads a state table with records in given states
 * (the supervisor-sweep benchmark): a new order's record as submission writes it, the record as
 * the starter's claim leaves it, the item the state store writes, and a reader on a given client.
 * Each is the wing's own rule (buildInitialStateRecord, decideClaim, the item mapping, the store),
 * so a seeded table holds what the deployed system would, and the tooling never copies the rules
 * nor reaches inside the wing for them.
 */

import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isoAt } from '../../shared/clock';
import { stateRecordToItem } from '../adapters/state-record-item';
import { DynamoStateStore } from '../adapters/state-store';
import { ProcessState } from '../contracts';
import { type OrderData, orderFingerprint } from '../domain/order';
import type { StateRecordReader } from '../domain/ports';
import { type ClaimTimings, decideClaim } from '../domain/starter';
import { buildInitialStateRecord, type StateRecord } from '../domain/state-record';

export type { OrderData } from '../domain/order';
export type { StateRecordReader } from '../domain/ports';
export type { CompensationEntry, StateRecord, StepState } from '../domain/state-record';

/** What a new record takes from its deployment (the submission handler's settings). */
export type NewRecordSettings = Omit<
  Parameters<typeof buildInitialStateRecord>[0],
  'orderId' | 'orderFingerprint' | 'now'
>;

/** A new order's record, as submission writes it at `now` (Pending, in the DueIndex). */
export function newOrderRecord(order: OrderData, now: number, settings: NewRecordSettings): StateRecord {
  return buildInitialStateRecord({
    ...settings,
    orderId: order.orderId,
    orderFingerprint: orderFingerprint(order),
    now,
  });
}

/**
 * The record once a starter claimed its next attempt at `claimedAt` (the starter's own decision:
 * its plan, CompleteBy and lock). Throws when the starter would not claim it then.
 */
export function claimedRecord(record: StateRecord, claimedAt: number, timings: ClaimTimings): StateRecord {
  const decision = decideClaim(record, claimedAt, timings);
  if (decision.kind !== 'claim' || decision.claimKind !== 'steps') {
    throw new Error(
      `a starter would not claim ${record.orderId} at ${isoAt(claimedAt)}: ${JSON.stringify(decision)}`,
    );
  }
  return {
    ...record,
    processState: ProcessState.Processing,
    lockedBy: decision.instanceId,
    attempt: decision.attempt,
    plan: decision.plan,
    completeBy: decision.completeBy,
    updatedAt: isoAt(claimedAt),
  };
}

/** The DynamoDB item the state store writes for the record (its attributes and index keys). */
export function stateRecordItem(record: StateRecord): Record<string, unknown> {
  return stateRecordToItem(record);
}

/** The state store's reader on `tableName` through the given document client. */
export function stateRecordReader(documents: DynamoDBDocumentClient, tableName: string): StateRecordReader {
  return new DynamoStateStore(documents, tableName);
}
