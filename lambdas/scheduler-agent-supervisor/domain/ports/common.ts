/**
 * What every use case of the order wing shares with its adapters: a log sink, and the results of conditional writes.
 */

/** Structured log sink (Powertools Logger satisfies it). */
export interface EventLog {
  debug(message: string, ...attributes: Record<string, unknown>[]): void;
  info(message: string, ...attributes: Record<string, unknown>[]): void;
  warn(message: string, ...attributes: Record<string, unknown>[]): void;
  error(message: string, ...attributes: Record<string, unknown>[]): void;
}

/** Result of a create-when-missing write: either it was created, or here is what is already there. */
export type CreateIfAbsentResult<T> =
  | { readonly created: true }
  | { readonly created: false; readonly existing: T };

/** Result of a conditional transition: 'lost' means the record moved on (another writer won). */
export type TransitionResult = 'applied' | 'lost';
