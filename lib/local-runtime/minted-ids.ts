/**
 * The ids the runtime mints (message ids and receipt handles, task tokens, execution names,
 * request ids, event ids): random, as AWS's are; on a seeded clock drawn from the seed instead, so
 * that a replay mints the same ids in the same order and what carries them (a body, a key a
 * request addresses) is the same too. The credentials' secrets stay random (iam/).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mulberry32, type Random, type RuntimeClock } from './clock';

let seeded: { readonly clock: RuntimeClock; readonly random: Random } | undefined;

/**
 * Mints from `clock`'s seed from now on (random again when it has none). The same clock again (a
 * restart of the run) goes on where it was, so no id repeats across the restart.
 */
export function mintIdsFor(clock: RuntimeClock): void {
  if (clock.seed === undefined) {
    seeded = undefined;
    return;
  }
  if (seeded?.clock === clock) return;
  seeded = { clock, random: mulberry32(clock.seed ^ 0x5eed1d5) };
}

/** `count` bytes: random, or the seed's. */
export function mintBytes(count: number): Buffer {
  if (!seeded) return randomBytes(count);
  const bytes = Buffer.alloc(count);
  for (let index = 0; index < count; index += 1) bytes[index] = Math.floor(seeded.random() * 256);
  return bytes;
}

/** A version-4 UUID: random, or the seed's. */
export function mintUuid(): string {
  if (!seeded) return randomUUID();
  const bytes = mintBytes(16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
