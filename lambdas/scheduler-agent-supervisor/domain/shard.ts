import { createHash } from 'node:crypto';

/**
 * DueShard of an order: a stable hash of the OrderID modulo the shard count, as a string. Spreading
 * the supervisor index over several partitions keeps one hot key from throttling writes; the hash
 * must never change for a given id, or a record would be looked for in the wrong partition.
 */
export function dueShardFor(orderId: string, shardCount: number): string {
  assertShardCount(shardCount);
  if (orderId.length === 0) {
    throw new Error('dueShardFor: orderId must not be empty');
  }
  // SHA-256 rather than a short multiplicative hash: its low bits are well mixed, so ids that differ
  // only in a trailing counter still land evenly across a small number of shards.
  const digest = createHash('sha256').update(orderId, 'utf8').digest();
  return String(digest.readUInt32BE(0) % shardCount);
}

/** Every shard value, in query order. */
export function allDueShards(shardCount: number): string[] {
  assertShardCount(shardCount);
  return Array.from({ length: shardCount }, (_, index) => String(index));
}

function assertShardCount(shardCount: number): void {
  if (!Number.isInteger(shardCount) || shardCount < 1) {
    throw new Error(`DueShard count must be a positive integer, got ${shardCount}`);
  }
}
