/** The delivery campaign's summary, built from the shared tables (../report.ts). */

import type { TerminalBound } from '../common/bounds';
import { boundTable, faultTable, formatMillis, renderTable, verdictSection } from '../common/report';
import { DELIVERY_FAULT_KINDS } from './faults';
import type { DeliveryCampaignSnapshot, DeliveryCheckResult } from './invariants';

export interface DeliverySummaryInput {
  readonly snapshot: DeliveryCampaignSnapshot;
  readonly result: DeliveryCheckResult;
  readonly bound: TerminalBound;
  readonly seed: number;
  readonly wallMillis: number;
  readonly notes?: readonly string[];
}

export function renderDeliverySummary(input: DeliverySummaryInput): string {
  const { snapshot, result, bound } = input;
  const status = new Map(snapshot.deliveryItems.map((item) => [item.deliveryId, item.status]));
  const outcomeRows = [...new Set(snapshot.deliveries.map((delivery) => delivery.scenario))]
    .sort()
    .map((scenario) => {
      const of = snapshot.deliveries.filter((delivery) => delivery.scenario === scenario);
      const count = (wanted: string) =>
        String(of.filter((delivery) => status.get(delivery.deliveryId) === wanted).length);
      const other = of.filter(
        (delivery) => !['Delivered', 'Failed', 'Cancelled'].includes(status.get(delivery.deliveryId) ?? ''),
      ).length;
      return [
        scenario,
        String(of.length),
        String(of.filter((delivery) => delivery.acceptedAt !== undefined).length),
        count('Delivered'),
        count('Failed'),
        count('Cancelled'),
        String(other),
      ];
    });
  const { table, details } = verdictSection(result.invariants, result.guards);
  return [
    `Delivery chaos campaign summary (seed ${input.seed}, wall time ${formatMillis(input.wallMillis)})`,
    ...(input.notes ?? []).map((note) => `  ${note}`),
    '',
    renderTable(
      ['scenario', 'planned', 'accepted', 'Delivered', 'Failed', 'Cancelled', 'not terminal'],
      outcomeRows,
    ),
    '',
    faultTable({
      kinds: DELIVERY_FAULT_KINDS,
      enabledKinds: snapshot.enabledKinds,
      subjectLabel: 'deliveries',
      hits: snapshot.faults.map((event) => ({ kind: event.kind, at: event.at, ids: event.deliveryIds })),
      finishes: snapshot.deliveries.map((delivery) => ({
        id: delivery.deliveryId,
        terminalAt: delivery.terminalAt,
      })),
    }),
    '',
    boundTable(bound),
    '',
    `observed: ${snapshot.lifecycleEvents.length} lifecycle events on the bus, ${snapshot.deadLettersSent.length} dead letters sent, ` +
      `${snapshot.deadLetterMarkers.length} DEADLETTER markers, ${snapshot.remediationDecisions.length} decisions, ` +
      `${snapshot.droneSamples.length} drone samples`,
    requesterLine(snapshot.requesterIsolation),
    '',
    table,
    ...(details.length > 0 ? ['', ...details] : []),
    '',
    result.passed ? 'RESULT: PASS' : 'RESULT: FAIL',
  ].join('\n');
}

/** Who submitted (alternating) and what the end-of-run reads of each other's deliveries answered. */
function requesterLine({ requesters, probes }: DeliveryCampaignSnapshot['requesterIsolation']): string {
  const cross = probes.filter((probe) => probe.reader !== probe.owner);
  const answers = (list: typeof probes) => list.map((probe) => String(probe.status)).join(', ') || 'none';
  return (
    `requesters: ${requesters.join(', ')} (deliveries alternate); reads of another's delivery: ${answers(cross)}; ` +
    `of one's own: ${answers(probes.filter((probe) => probe.reader === probe.owner))}`
  );
}
