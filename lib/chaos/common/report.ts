import { type LatencySummary, summarize } from '../../harness/stats';
import type { TerminalBound } from './bounds';
import { type Finish, type Hit, latenciesFromFirstHit } from './recovery';
import { examples, type Verdict } from './verdicts';
/**
 * The summary's pieces every campaign prints: plain-text tables, durations, the fault table with
 * recovery latency, the terminal bound term by term, and the verdicts with their examples.
 */

/** Renders rows as a table with a header rule; every cell is left-aligned except numbers. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const isNumber = (cell: string) => /^-?[\d.,]+( ?(ms|s|%))?$/.test(cell);
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        isNumber(cell) ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

export function formatMillis(millis: number | undefined): string {
  if (millis === undefined) return '-';
  return millis < 10_000 ? `${Math.round(millis)} ms` : `${(millis / 1000).toFixed(1)} s`;
}

export interface FaultTableInput {
  /** Every kind the campaign knows, in the order to list them. */
  readonly kinds: readonly string[];
  readonly enabledKinds: readonly string[];
  /** Column title of the subjects hit: 'orders', 'deliveries'. */
  readonly subjectLabel: string;
  readonly hits: readonly Hit[];
  readonly finishes: readonly Finish[];
}

/** Each fault kind: enabled, times fired, subjects hit, recovery latency; then any fault at all. */
export function faultTable(input: FaultTableInput): string {
  const rows = input.kinds.map((kind) => {
    const events = input.hits.filter((event) => event.kind === kind);
    const subjects = new Set(events.flatMap((event) => event.ids));
    return [
      kind,
      input.enabledKinds.includes(kind) ? 'on' : 'off',
      String(events.length),
      String(subjects.size),
      ...latencyCells(summarize(latenciesFromFirstHit(input.hits, input.finishes, kind))),
    ];
  });
  const overall = summarize(latenciesFromFirstHit(input.hits, input.finishes));
  rows.push(['(any fault)', '', String(input.hits.length), String(overall.count), ...latencyCells(overall)]);
  return renderTable(
    ['fault kind', 'enabled', 'fired', input.subjectLabel, 'recovery p50', 'p95', 'p99'],
    rows,
  );
}

function latencyCells(summary: LatencySummary): string[] {
  return [formatMillis(summary.p50), formatMillis(summary.p95), formatMillis(summary.p99)];
}

export function boundTable(bound: TerminalBound): string {
  const rows = bound.terms.map((term) => [term.name, formatMillis(term.millis)]);
  rows.push(['total', formatMillis(bound.totalMillis)]);
  return renderTable(['terminal bound term', 'time'], rows);
}

/** PASS/FAIL per invariant and guard, and the examples of each one violated. */
export function verdictSection(
  invariants: readonly Verdict<string>[],
  guards: readonly Verdict<string>[],
): { table: string; details: string[] } {
  const row = (type: string) => (entry: Verdict<string>) => [
    entry.violations.length === 0 ? 'PASS' : 'FAIL',
    type,
    entry.id,
    String(entry.violations.length),
  ];
  const table = renderTable(
    ['verdict', 'type', 'check', 'violations'],
    [...invariants.map(row('invariant')), ...guards.map(row('guard'))],
  );
  const details = [...invariants, ...guards]
    .filter((entry) => entry.violations.length > 0)
    .map(
      (entry) =>
        `${entry.id} (${entry.title}): ${entry.violations.length} violation(s)\n${examples(entry)
          .map((violation) => `    - ${violation}`)
          .join('\n')}`,
    );
  return { table, details };
}
