/** A bound named term by term, as every campaign states how long a subject may take to become terminal. */

/** A bound named term by term (shared by every campaign: the summary prints the terms). */
export interface BoundTerm {
  readonly name: string;
  readonly millis: number;
}

export interface TerminalBound {
  readonly totalMillis: number;
  /** Each term, named, for the summary. */
  readonly terms: readonly BoundTerm[];
}

/** The bound that is the sum of its terms. */
export function boundOf(terms: readonly BoundTerm[]): TerminalBound {
  return { totalMillis: terms.reduce((sum, term) => sum + term.millis, 0), terms };
}
