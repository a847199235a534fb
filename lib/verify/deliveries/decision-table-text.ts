/**
 * A decision table as one Promela `if`, the form both deliveries models write the code's answers in:
 * rows with the same condition and the same outcome become one option, guarded over the values they
 * were read with (productGuard keeps that guard exact and short), and a read no row covers fails
 * the search (`assert(false)`), so the table cannot silently miss a state.
 */
import { productGuard } from './product-guard';

export interface DecisionRow {
  /** The row's condition on what the model decides by (the message, the status read, ...). */
  readonly when: string;
  /** What the row sets. */
  readonly outcome: string;
  /** The values of `names` the row was read with. */
  readonly read: readonly number[];
}

export function decisionTableText(
  rows: readonly DecisionRow[],
  names: readonly string[],
  domain: number,
  indent: string,
): string {
  const groups = new Map<string, { when: string; outcome: string; read: (readonly number[])[] }>();
  for (const { when, outcome, read } of rows) {
    const key = `${when} -> ${outcome}`;
    const group = groups.get(key) ?? { when, outcome, read: [] };
    group.read.push(read);
    groups.set(key, group);
  }
  const options = [...groups.values()].map(
    ({ when, outcome, read }) => `:: ${when} && (${productGuard(read, names, domain)}) -> ${outcome}`,
  );
  return `if\n${indent}${options.join(`\n${indent}`)}\n${indent}:: else -> assert(false)\n${indent}fi`;
}
