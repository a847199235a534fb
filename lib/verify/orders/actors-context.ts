/**
 * What the actors' Promela is rendered with (actors.ts, shape-steps.ts): the bounds, the binder of
 * transitions, and the workflow shape. Its own file so that the shape's steps and the actors share
 * it without importing each other.
 */
import type { ResolvedOrdersBounds } from './orders-bounds';

/** Binds a transition's parameters by name and renders the call (checked by the composer). */
export type CallTransition = (
  name: string,
  bindings: Readonly<Record<string, string>>,
  options?: { readonly step?: string; readonly writer?: string },
) => string;

/** The context every actor is rendered in. */
export interface ActorsContext {
  readonly bounds: ResolvedOrdersBounds;
  readonly call: CallTransition;
  /** The highest execution instance id (attempt) the bounds allow. */
  readonly maxId: number;
  /**
   * The workflow version's shape (contracts/workflows.ts): `compact`, the agent records each step's
   * completion; `lean` (v3, v4), the execution does, and a spent budget is a refusal; `classic` (v1,
   * v2), as lean, and the execution loads the record itself and marks each step Running.
   */
  readonly shape: 'classic' | 'lean' | 'compact';
}
