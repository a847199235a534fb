/**
 * The end-of-run summary: plain-text tables (orders, faults with recovery latency, outcomes,
 * invariants and guards, the terminal bound), readable in a terminal and in CI logs. The table
 * pieces (faults, bound, verdicts) are every campaign's (../common/report.ts).
 */

import type { TerminalBound } from '../common/bounds';
import { boundTable, faultTable, formatMillis, renderTable, verdictSection } from '../common/report';
import type { CampaignSnapshot } from './campaign-snapshot';
import { FAULT_KINDS } from './faults';
import { alarmsFired, type CheckResult } from './invariants';

export interface SummaryInput {
  readonly snapshot: CampaignSnapshot;
  readonly result: CheckResult;
  readonly bound: TerminalBound;
  readonly seed: number;
  readonly wallMillis: number;
  /** Free-form lines printed under the header (settings worth knowing when reading the result). */
  readonly notes?: readonly string[];
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
