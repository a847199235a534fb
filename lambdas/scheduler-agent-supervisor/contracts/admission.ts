/**
 * Admission control (MISSION item 2): the submission path bounds in-flight (non-terminal) orders.
 *
 * The limit is split over `shards` counter items (AdmissionCounterAttr) in the admission table,
 * each with its own cap (the caps sum to the limit), so the total can never overshoot however
 * many submissions race, and no single item takes every write. A submission takes a slot in the
 * same TransactWriteItems that creates its state record (counter below its cap, ADD 1; record
 * created with AdmissionShard), trying the shard its orderId hashes to first, then the others.
 * Every shard full: 429 with Retry-After from the observed drain rate, and nothing stored.
 * A slot is released exactly once, when the record reaches a terminal state: a transaction that
 * REMOVEs AdmissionShard (condition: still present, state terminal) and ADDs -1 to its counter,
 * run by the stream consumer and, for a release that was lost, by the reconciler that reads the
 * sparse AdmissionIndex. Accepted work is never refused later: only new submissions and operator
 * retries (new work) ask for a slot.
 */
export const AdmissionCounterAttr = {
  /** Partition key: `shard#<n>` for counters, DRAIN_ITEM_KEY for the drain statistics. */
  Pk: 'Pk',
  /** Slots held in this shard. */
  InFlight: 'InFlight',
  /** This shard's cap (written with the counter; the configuration is the source). */
  Cap: 'Cap',
  /** Releases so far (monotonic): the drain the Retry-After is derived from. */
  Released: 'Released',
  UpdatedAt: 'UpdatedAt',
} as const;

/** The drain statistics item: an exponentially weighted interval between releases. */
export const DRAIN_ITEM_KEY = 'drain';
export const DrainAttr = {
  IntervalMillisEwma: 'IntervalMillisEwma',
  LastReleaseAt: 'LastReleaseAt',
  Version: 'Version',
} as const;

export function admissionShardKey(shard: number): string {
  return `shard#${shard}`;
}

/** Per-shard caps: the limit split as evenly as possible (the first `limit % shards` get one more). */
export function admissionShardCaps(limit: number, shards: number): number[] {
  if (!Number.isInteger(limit) || limit < 1)
    throw new Error(`admission limit must be a positive integer, got ${limit}`);
  if (!Number.isInteger(shards) || shards < 1 || shards > limit) {
    throw new Error(`admission shards must be an integer from 1 to the limit (${limit}), got ${shards}`);
  }
  const base = Math.floor(limit / shards);
  return Array.from({ length: shards }, (_, index) => base + (index < limit % shards ? 1 : 0));
}

/** Retry-After bounds, in seconds. */
export const RETRY_AFTER_MIN_SECONDS = 1;
export const RETRY_AFTER_MAX_SECONDS = 60;

/**
 * What the admission functions read (EnvKey.AdmissionSettings, JSON), from the profile's
 * `admission` settings: the limit, its shards, and how long a terminal record may keep its slot
 * before the reconciler treats its release as lost.
 */
export interface AdmissionSettings {
  readonly limit: number;
  readonly shards: number;
  /** A terminal record still holding a slot this long after its last update is released by the reconciler. */
  readonly reconcileGraceSeconds: number;
}

/** Parses and validates ADMISSION_SETTINGS, naming what is wrong (a handler fails at load, not mid-request). */
export function parseAdmissionSettings(json: string): AdmissionSettings {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new Error(`ADMISSION_SETTINGS is not valid JSON: ${json}`);
  }
  const { limit, shards, reconcileGraceSeconds } = (value ?? {}) as Record<string, unknown>;
  admissionShardCaps(limit as number, shards as number);
  if (
    typeof reconcileGraceSeconds !== 'number' ||
    !Number.isInteger(reconcileGraceSeconds) ||
    reconcileGraceSeconds < 1
  ) {
    throw new Error(
      `ADMISSION_SETTINGS: reconcileGraceSeconds must be a positive integer, got ${JSON.stringify(reconcileGraceSeconds)}`,
    );
  }
  return { limit: limit as number, shards: shards as number, reconcileGraceSeconds };
}

/** Every counter key of a configuration, in shard order. */
export function admissionShardKeys(shards: number): string[] {
  return Array.from({ length: shards }, (_, index) => admissionShardKey(index));
}

/**
 * Weight of the newest sample in the drain EWMA: high enough to follow a slowdown within a few
 * batches, low enough that one burst of releases does not promise an instant slot.
 */
export const DRAIN_EWMA_WEIGHT = 0.3;
