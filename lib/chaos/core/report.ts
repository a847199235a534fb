/**
 * The end-of-run summary: plain-text tables (orders, faults with recovery latency, outcomes,
 * invariants and guards, the terminal bound), readable in a terminal and in CI logs.
 */
import type { TerminalBound } from './bounds';
import { FAULT_KINDS, type FaultKind } from './faults';
import { type CampaignSnapshot, type CheckResult, examples } from './invariants';
import { type LatencySummary, recoveryLatencies, summarize } from './stats';

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

  const faultRows = FAULT_KINDS.map((kind: FaultKind) => {
    const events = snapshot.faults.filter((event) => event.kind === kind);
    const orders = new Set(events.flatMap((event) => event.orderIds));
    const enabled = snapshot.enabledKinds.includes(kind);
    return [
      kind,
      enabled ? 'on' : 'off',
      String(events.length),
      String(orders.size),
      ...latencyCells(summarize(recoveryLatencies(snapshot.faults, snapshot.orders, kind))),
    ];
  });
  const overall = summarize(recoveryLatencies(snapshot.faults, snapshot.orders));
  faultRows.push([
    '(any fault)',
    '',
    String(snapshot.faults.length),
    String(overall.count),
    ...latencyCells(overall),
  ]);

  const verdictRows = [
    ...result.invariants.map((entry) => [
      entry.violations.length === 0 ? 'PASS' : 'FAIL',
      'invariant',
      entry.id,
      String(entry.violations.length),
    ]),
    ...result.guards.map((entry) => [
      entry.violations.length === 0 ? 'PASS' : 'FAIL',
      'guard',
      entry.id,
      String(entry.violations.length),
    ]),
  ];
  const details = [...result.invariants, ...result.guards]
    .filter((entry) => entry.violations.length > 0)
    .map(
      (entry) =>
        `${entry.id} (${entry.title}): ${entry.violations.length} violation(s)\n${examples(entry)
          .map((violation) => `    - ${violation}`)
          .join('\n')}`,
    );

  const boundRows = bound.terms.map((term) => [term.name, formatMillis(term.millis)]);
  boundRows.push(['total', formatMillis(bound.totalMillis)]);

  return [
    `Chaos campaign summary (seed ${input.seed}, wall time ${formatMillis(input.wallMillis)})`,
    ...(input.notes ?? []).map((note) => `  ${note}`),
    '',
    renderTable(['orders', 'count'], orderRows),
    '',
    renderTable(['fault kind', 'enabled', 'fired', 'orders', 'recovery p50', 'p95', 'p99'], faultRows),
    '',
    renderTable(['terminal bound term', 'time'], boundRows),
    '',
    renderTable(['verdict', 'type', 'check', 'violations'], verdictRows),
    ...(result.alertsLostAtRestart.length > 0
      ? [
          '',
          `${result.alertsLostAtRestart.length} Error order(s) turned Error while a restart cut short the work that alerts ` +
            `(not counted as violations): ${result.alertsLostAtRestart.slice(0, 10).join(', ')}`,
        ]
      : []),
    ...(details.length > 0 ? ['', ...details] : []),
    '',
    result.passed ? 'RESULT: PASS' : 'RESULT: FAIL',
  ].join('\n');
}
