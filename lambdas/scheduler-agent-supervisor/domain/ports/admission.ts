/**
 * What admission control needs: the slots a submission takes and releases, and the observed drain.
 */
import type { ProcessState } from '../../contracts';
import type { StoredOrder } from '../order';
import type { StateRecord } from '../state-record';
import type { TransitionResult } from './common';

/** One counter a submission may take a slot from: its key (`shard#<n>`) and its cap. */
export interface AdmissionSlot {
  readonly key: string;
  readonly cap: number;
  /**
   * The submitting client's own counter beside this shard (clientAdmissionShardKey) and its cap
   * there: taken in the same transaction, when the client has a share of the limit.
   */
  readonly client?: { readonly key: string; readonly cap: number };
}

/** The drain statistics as stored (DrainAttr). */
export interface DrainObservation {
  /** EWMA of the interval between releases; absent until two releases have been seen. */
  readonly intervalMillisEwma?: number;
  readonly lastReleaseAt: number;
  /** Optimistic-concurrency version of the item. */
  readonly version: number;
}

/**
 * One try at accepting an order on one admission counter: the order (unless already stored), its
 * state record (carrying the slot's key as AdmissionShard) and the slot, all or nothing.
 */
export interface AcceptanceRequest {
  readonly order: StoredOrder;
  readonly record: StateRecord;
  readonly slot: AdmissionSlot;
  /**
   * The identical order is already in the orders table (a state record lost before acceptance was
   * one transaction): the try then checks it instead of creating it.
   */
  readonly orderAlreadyStored: boolean;
}

/**
 * How a try ended: accepted (all three written), or why nothing was: the order or its state record
 * exists (a resubmission: the caller compares fingerprints), or this counter is at its cap.
 */
export type AcceptanceResult =
  | 'accepted'
  | 'order-exists'
  | 'record-exists'
  | 'shard-full'
  /** The client's own counter on this shard is at its cap (whatever the shard's). */
  | 'client-share-full';

export interface OrderAcceptance {
  accept(request: AcceptanceRequest): Promise<AcceptanceResult>;
}

/** The observed drain (DRAIN_ITEM_KEY): what a refused submission's Retry-After is derived from. */
export interface DrainReader {
  read(): Promise<DrainObservation | undefined>;
}

export interface DrainRecorder extends DrainReader {
  /** Writes `next` only while the stored version is still `seenVersion` (undefined: no item yet). */
  write(next: DrainObservation, seenVersion: number | undefined): Promise<TransitionResult>;
}

/** A record holding a slot, as the stream or the AdmissionIndex shows it. */
export interface HeldSlot {
  readonly orderId: string;
  /** The counter key (AdmissionShard). */
  readonly shardKey: string;
  /** The client's counter key (AdmissionClientShard), when the record holds a slot of its share too. */
  readonly clientShardKey?: string;
  readonly processState: ProcessState;
}

export interface SlotReleaser {
  /**
   * Releases the slot once: removes AdmissionShard (only while it is still `shardKey` and the
   * record is terminal) and gives the slot back to its counter, and the client's slot
   * (AdmissionClientShard, only while it is still `clientShardKey`, or absent when that is) to
   * the client's counter, in one transaction. 'not-held'
   * when the condition failed: already released, or the record is no longer terminal.
   */
  release(slot: HeldSlot, at: number): Promise<'released' | 'not-held'>;
}

/** Opaque position in an AdmissionIndex query. */
export type HeldSlotCursor = Readonly<Record<string, unknown>>;

export interface HeldSlotIndex {
  /** Terminal records of one shard still holding a slot, last updated before `updatedBefore` (ISO). */
  queryTerminalHeld(
    shardKey: string,
    updatedBefore: string,
    limit: number,
    cursor?: HeldSlotCursor,
  ): Promise<{ readonly slots: readonly HeldSlot[]; readonly next?: HeldSlotCursor }>;
}
