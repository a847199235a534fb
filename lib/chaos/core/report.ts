/**
 * The end-of-run summary: plain-text tables (orders, faults with recovery latency, outcomes,
 * invariants and guards, the terminal bound), readable in a terminal and in CI logs. The table
 * pieces (faults, bound, verdicts) are shared with the delivery campaign (./deliveries/report.ts).
 */

import { type LatencySummary, summarize } from '../../harness/stats';
import type { TerminalBound } from './bounds';
import { FAULT_KINDS } from './faults';
import { alarmsFired, type CampaignSnapshot, type CheckResult, examples, type Verdict } from './invariants';
import { type Finish, type Hit, latenciesFromFirstHit } from './stats';

export interface SummaryInput {
  readonly snapshot: CampaignSnapshot;
  readonly result: CheckResult;
  readonly bound: TerminalBound;
  readonly seed: number;
  readonly wallMillis: number;
  /** Free-form lines printed under the header (settings worth knowing when reading the result). */
  readonly notes?: readonly string[];
}

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

function latencyCells(summary: LatencySummary): string[] {
  return [formatMillis(summary.p50), formatMillis(summary.p95), formatMillis(summary.p99)];
}

export function renderSummary(input: SummaryInput): string {
  const { snapshot, result, bound } = input;
  const states = new Map<string, number>();
  for (const record of snapshot.finalRecords) {
    states.set(record.processState, (states.get(record.processState) ?? 0) + 1);
  }
  const accepted = snapshot.orders.filter((order) => order.acceptedAt !== undefined).length;
  const terminal = snapshot.orders.filter((order) => order.terminalAt !== undefined).length;

  const orderRows = [
    ['planned', String(snapshot.orders.length)],
    ['accepted', String(accepted)],
    ['terminal', String(terminal)],
    ...[...states]
      .sort(([left], [right]) => left.localeCompare(right))
      .map(([state, count]) => [`  ${state}`, String(count)]),
  ];

  const { table: verdictTable, details } = verdictSection(result.invariants, result.guards);

  return [
    `Chaos campaign summary (seed ${input.seed}, wall time ${formatMillis(input.wallMillis)})`,
    ...(input.notes ?? []).map((note) => `  ${note}`),
    '',
    renderTable(['orders', 'count'], orderRows),
    '',
    faultTable({
      kinds: FAULT_KINDS,
      enabledKinds: snapshot.enabledKinds,
      subjectLabel: 'orders',
      hits: snapshot.faults.map((event) => ({ kind: event.kind, at: event.at, ids: event.orderIds })),
      finishes: snapshot.orders.map((order) => ({ id: order.orderId, terminalAt: order.terminalAt })),
    }),
    '',
    boundTable(bound),
    '',
    alarmsLine(snapshot),
    '',
    verdictTable,
    ...(details.length > 0 ? ['', ...details] : []),
    '',
    result.passed ? 'RESULT: PASS' : 'RESULT: FAIL',
  ].join('\n');
}

/**
 * The alarms the run set off, from their notifications in the alert inbox (not order alerts: no
 * invariant counts them). Faults are meant to fire some (dead letters, admission rejections).
 */
export function alarmsLine(snapshot: Pick<CampaignSnapshot, 'alerts'>): string {
  const fired = alarmsFired(snapshot.alerts);
  return `alarms fired: ${fired.length === 0 ? 'none' : fired.map(([name, count]) => `${name} ${count}`).join(', ')}`;
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
