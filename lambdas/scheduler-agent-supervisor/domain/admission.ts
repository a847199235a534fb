import type { Clock, TimeBudget } from '../../shared/clock';
import { isoAt } from '../../shared/clock';
import { describeError } from '../../shared/errors';
import {
  admissionShardCaps,
  admissionShardKey,
  clientAdmissionShardKey,
  clientShardCaps,
  DRAIN_EWMA_WEIGHT,
  RETRY_AFTER_MAX_SECONDS,
  RETRY_AFTER_MIN_SECONDS,
} from '../contracts';
import type {
  AdmissionSlot,
  DrainObservation,
  DrainRecorder,
  EventLog,
  HeldSlot,
  HeldSlotCursor,
  HeldSlotIndex,
  SlotReleaser,
} from './ports';

export type { AdmissionSlot, DrainObservation } from './ports';

import { dueShardFor } from './shard';

/**
 * The counters a submission tries, in order: the one its orderId hashes to, then the following
 * ones, wrapping around. Starting each order at its own shard spreads the takes over every counter
 * (no hot key); walking on from there, rather than always from shard 0, keeps a full shard's
 * overflow spread too, instead of sending all of it to the lowest shards.
 */
export function admissionSlotOrder(
  orderId: string,
  limit: number,
  shards: number,
  /**
   * The submitting client and its cap (its share of the limit): each slot then carries the
   * client's counter beside the shard, and shards where the client's cap is 0 are left out.
   */
  client?: { readonly clientId: string; readonly cap: number },
): AdmissionSlot[] {
  const caps = admissionShardCaps(limit, shards);
  const clientCaps = client === undefined ? undefined : clientShardCaps(client.cap, shards);
  const first = Number(dueShardFor(orderId, shards));
  return caps.flatMap((_, offset) => {
    const shard = (first + offset) % shards;
    const key = admissionShardKey(shard);
    if (client === undefined || clientCaps === undefined) return [{ key, cap: caps[shard] as number }];
    const clientCap = clientCaps[shard] as number;
    if (clientCap === 0) return [];
    return [
      {
        key,
        cap: caps[shard] as number,
        client: { key: clientAdmissionShardKey(client.clientId, key), cap: clientCap },
      },
    ];
  });
}

/**
 * The drain after a batch of `releases` at `at`: the interval since the last release, spread over
 * the batch (n releases in that time are n intervals), folded into the EWMA. The first batch ever
 * only starts the clock: one release says nothing about a rate.
 */
export function nextDrainObservation(
  previous: DrainObservation | undefined,
  releases: number,
  at: number,
): DrainObservation {
  if (!Number.isInteger(releases) || releases < 1) {
    throw new Error(`nextDrainObservation: releases must be a positive integer, got ${releases}`);
  }
  if (previous === undefined) return { lastReleaseAt: at, version: 1 };
  const sample = Math.max(0, at - previous.lastReleaseAt) / releases;
  const intervalMillisEwma =
    previous.intervalMillisEwma === undefined
      ? sample
      : DRAIN_EWMA_WEIGHT * sample + (1 - DRAIN_EWMA_WEIGHT) * previous.intervalMillisEwma;
  return {
    intervalMillisEwma,
    lastReleaseAt: Math.max(at, previous.lastReleaseAt),
    version: previous.version + 1,
  };
}

/**
 * Retry-After (seconds) of a refused submission: about when the next slot should free up, i.e. one
 * release interval. The time since the last release is a floor on that interval (a drain that has
 * released nothing for 20 s is not releasing one every 200 ms any more), so a stalled drain
 * converges to the maximum on its own. No observation yet: the maximum (nothing known, so the
 * client is told to back off the most). Clamped to [RETRY_AFTER_MIN_SECONDS, RETRY_AFTER_MAX_SECONDS].
 */
export function retryAfterSeconds(drain: DrainObservation | undefined, now: number): number {
  if (drain?.intervalMillisEwma === undefined) return RETRY_AFTER_MAX_SECONDS;
  const sinceLastRelease = Math.max(0, now - drain.lastReleaseAt);
  const expectedMillis = Math.max(drain.intervalMillisEwma, sinceLastRelease);
  const seconds = Math.ceil(expectedMillis / 1000);
  return Math.min(RETRY_AFTER_MAX_SECONDS, Math.max(RETRY_AFTER_MIN_SECONDS, seconds));
}

/** Attempts at the drain item's optimistic write before a batch's sample is dropped. */
const DRAIN_WRITE_ATTEMPTS = 3;

/**
 * Folds a batch of releases into the drain statistics: read, compute, write while the version is
 * unchanged, a few times. Losing every race drops this sample only (the statistic is an estimate,
 * and whoever won wrote a sample of the same drain); it never fails the releases themselves.
 */
export async function recordDrain(
  drain: DrainRecorder,
  releases: number,
  at: number,
): Promise<'recorded' | 'dropped'> {
  for (let attempt = 0; attempt < DRAIN_WRITE_ATTEMPTS; attempt += 1) {
    const previous = await drain.read();
    const next = nextDrainObservation(previous, releases, at);
    if ((await drain.write(next, previous?.version)) === 'applied') return 'recorded';
  }
  return 'dropped';
}

export interface ReconcileDependencies {
  readonly index: HeldSlotIndex;
  readonly releaser: SlotReleaser;
  readonly clock: Clock;
  /** Every counter key, removed ones included while they still hold slots. */
  readonly shardKeys: readonly string[];
  readonly graceSeconds: number;
  readonly pageSize: number;
  readonly log: EventLog;
}

export interface ReconcileSummary {
  readonly examined: number;
  readonly released: number;
  /** Found but released in the meantime by the stream consumer (or no longer terminal). */
  readonly alreadyReleased: number;
  readonly errors: number;
  readonly stoppedByBudget: boolean;
}

/**
 * The self-healing half of "released exactly once": every terminal record still holding a slot
 * more than the grace period after its last update had its release lost (the stream consumer gave
 * up on it, or its stream record expired). Found by a Query per shard of the sparse AdmissionIndex
 * (never a Scan: the index holds only what still holds a slot), and released with the consumer's
 * own conditional transaction, so a release racing the consumer still happens once.
 */
export async function reconcileAdmission(
  deps: ReconcileDependencies,
  budget: TimeBudget,
): Promise<ReconcileSummary> {
  const now = deps.clock.now();
  const updatedBefore = isoAt(now - deps.graceSeconds * 1000);
  let examined = 0;
  let released = 0;
  let alreadyReleased = 0;
  let errors = 0;
  for (const shardKey of deps.shardKeys) {
    let cursor: HeldSlotCursor | undefined;
    do {
      if (budget.remainingMillis() <= 0) {
        return { examined, released, alreadyReleased, errors, stoppedByBudget: true };
      }
      const page = await deps.index.queryTerminalHeld(shardKey, updatedBefore, deps.pageSize, cursor);
      for (const slot of page.slots) {
        examined += 1;
        const outcome = await releaseOne(deps, slot);
        if (outcome === 'released') released += 1;
        else if (outcome === 'not-held') alreadyReleased += 1;
        else errors += 1;
      }
      cursor = page.next;
    } while (cursor !== undefined);
  }
  return { examined, released, alreadyReleased, errors, stoppedByBudget: false };
}

async function releaseOne(
  deps: ReconcileDependencies,
  slot: HeldSlot,
): Promise<'released' | 'not-held' | 'error'> {
  try {
    const outcome = await deps.releaser.release(slot, deps.clock.now());
    if (outcome === 'released') {
      deps.log.warn('Admission slot released by the reconciler: its release was lost', { ...slot });
    }
    return outcome;
  } catch (error) {
    // One record's failure must not stop the others; the next run tries it again.
    deps.log.error('Reconciler could not release an admission slot', {
      ...slot,
      error: describeError(error),
    });
    return 'error';
  }
}
