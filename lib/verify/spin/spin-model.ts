/**
 * What the verifier checks: a Promela model as text, generated from a wing's own rules (never kept by
 * hand), with the bounds it was generated within and the properties it states. Safety properties are
 * the model's assertions and its end states (no actor left blocked where it may not stop); each
 * liveness property is a named `ltl` formula of the model, checked under weak fairness.
 */
export interface SpinModel {
  /** A short name (file names, reports): letters, digits and dashes. */
  readonly name: string;
  /** The Promela source. */
  readonly source: string;
  /** The bounds the model was generated within (printed with every result). */
  readonly bounds: Readonly<Record<string, number>>;
  /** What the model proves, one line per property, for people (printed, and quoted by the docs). */
  readonly properties: readonly string[];
  /**
   * The `ltl` formulas of the source to check for acceptance cycles under weak fairness.
   * @default - none (safety only)
   */
  readonly liveness?: readonly string[];
  /**
   * The search's size, for a model whose state space needs more than the runner's defaults
   * (RunSpinOptions: log2 of the hash table's slots, and MB of memory).
   * @default - the runner's defaults
   */
  readonly search?: { readonly hashBits?: number; readonly memoryMb?: number };
}
