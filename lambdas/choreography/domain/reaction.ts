/**
 * What a service's domain answers to one event: a pure function of the state it keeps for the
 * delivery, the parsed event, the time and its settings. The adapters turn a change into one
 * conditional write (state, change log entries, processed-message marker) and, after it commits,
 * send the dead letter; an ignore still records the message as processed.
 */
import type { ReasonCode } from '../contracts';
import type { Emission } from './envelope';

/** A business rejection: the original message goes to the service's dead-letter queue with this reason. */
export interface DeadLetter {
  readonly reasonCode: ReasonCode;
  readonly detail: string;
}

export type Reaction<S> =
  | {
      readonly kind: 'ignore';
      /** Why nothing changes (stale, duplicate by content, not ours): logged, never shown to anyone else. */
      readonly why: string;
    }
  | {
      readonly kind: 'change';
      readonly state: S;
      /** In order; the store numbers them after the producer's last sequence for the delivery. */
      readonly emissions: readonly Emission[];
      readonly deadLetter?: DeadLetter;
    };

export function ignore(why: string): { readonly kind: 'ignore'; readonly why: string } {
  return { kind: 'ignore', why };
}
