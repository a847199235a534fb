/** What one run of the verifier found, with the measures it printed. */
export interface SpinResult {
  /** The model's name and the check ('safety', or the liveness formula's name). */
  readonly model: string;
  readonly check: string;
  /** No error, and the search was exhaustive (no depth limit hit, no hash table overflow). */
  readonly ok: boolean;
  readonly errors: number;
  /** States stored (distinct states reached). */
  readonly states: number;
  readonly transitions: number;
  readonly depth: number;
  readonly stateVectorBytes: number;
  /** Seconds pan reported for the search (compilation excluded). */
  readonly seconds: number;
  /** Why the search was not exhaustive, when it was not. @default - it was */
  readonly incomplete?: string;
  /** The counterexample, when one was found. @default - none */
  readonly trail?: SpinTrail;
}

/** A counterexample as the actors' steps, replayed by spin from the trail file. */
export interface SpinTrail {
  /** Each actor's step, in order, as the model prints it (`printf("@@ ...")`). */
  readonly steps: readonly string[];
  /** What was violated: the failed assertion, an acceptance cycle, or an invalid end state. */
  readonly violation: string;
  /** Spin's replay, whole (for whoever needs the raw trail). */
  readonly raw: string;
}
