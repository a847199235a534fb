/**
 * A service's decision with its own state typed: what the domain functions return and the unit
 * tests read. The handler turns it into the kit's Reaction (./reaction.ts), whose state is the item's
 * attributes as stored, adding the writes that belong to the adapters (the drone scheduler's DRONE#).
 */
import type { Emission } from './envelope';
import type { DeadLetterReason } from './reaction';

export type Decision<S> =
  | {
      readonly kind: 'ignore';
      /** Why nothing changes (stale, repeated, not this service's work): logged. */
      readonly reason: string;
    }
  | {
      readonly kind: 'change';
      readonly state: S;
      /** In order; the store numbers them after the producer's last sequence for the delivery. */
      readonly emissions: readonly Emission[];
      readonly deadLetter?: DeadLetterReason;
    };

export function ignored(reason: string): { readonly kind: 'ignore'; readonly reason: string } {
  return { kind: 'ignore', reason };
}
