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
 *
 * Per client: a client's orders hold at most its share of the limit (AdmissionSettings.clientCaps),
 * over counters of its own beside each shard's (clientAdmissionShardKey). A submission takes its
 * client's slot in the same transaction (counter below its cap, ADD 1; the record created with
 * AdmissionClientShard), and the release gives it back in the same transaction as the shard's. So
 * one client flooding the API holds at most its share, and the others' orders are still admitted.
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

/**
 * A client's own counter beside a shard's (`client#<clientId>#shard#<n>`): a client's share of the
 * limit (AdmissionSettings.clientCaps) is split over the same shards as the limit, so one client's
 * submissions spread over several items too, and the record's AdmissionClientShard names the one
 * its slot came from.
 */
export function clientAdmissionShardKey(clientId: string, shardKey: string): string {
  return `client#${clientId}#${shardKey}`;
}

/**
 * A client's cap split over the shards, as admissionShardCaps splits the limit, except that a cap
 * below the shard count leaves some shards at 0 (the client takes no slot there).
 */
export function clientShardCaps(cap: number, shards: number): number[] {
  if (!Number.isInteger(cap) || cap < 1)
    throw new Error(`a client's admission cap must be a positive integer, got ${cap}`);
  const base = Math.floor(cap / shards);
  return Array.from({ length: shards }, (_, index) => base + (index < cap % shards ? 1 : 0));
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
  /**
   * Per client (by ClientId), the most slots its orders may hold at once: its share of the limit
   * (the profile's `admissionShare`), taken in the same transaction as the limit's slot. A client
   * not listed has no share of its own (only the limit bounds it).
   * @default - no client shares
   */
  readonly clientCaps?: Readonly<Record<string, number>>;
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
  const { clientCaps } = value as Record<string, unknown>;
  if (clientCaps === undefined)
    return { limit: limit as number, shards: shards as number, reconcileGraceSeconds };
  if (typeof clientCaps !== 'object' || clientCaps === null || Array.isArray(clientCaps)) {
    throw new Error(
      `ADMISSION_SETTINGS: clientCaps must be an object of client caps, got ${JSON.stringify(clientCaps)}`,
    );
  }
  for (const [clientId, cap] of Object.entries(clientCaps)) {
    if (typeof cap !== 'number' || !Number.isInteger(cap) || cap < 1 || cap > (limit as number)) {
      throw new Error(
        `ADMISSION_SETTINGS: clientCaps.${clientId} must be an integer from 1 to the limit (${limit}), got ${JSON.stringify(cap)}`,
      );
    }
  }
  return {
    limit: limit as number,
    shards: shards as number,
    reconcileGraceSeconds,
    clientCaps: clientCaps as Record<string, number>,
  };
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
