/**
 * What the delivery's swimlane draws (issue 26, item 3), derived from the detail the Deliveries tab
 * already reads: one lane per service in the flow's order (ingestion, package, drone scheduler,
 * delivery, remediation), each event a service published a mark at its time with its type, sequence
 * and correlation id, each dead letter a mark on the lane of the service whose dead-letter queue held
 * it, and remediation's decisions and the alerts on the remediation lane (or their service's). Pure
 * (no React, no DOM), so the unit tests read it directly and the SVG (DeliverySwimlane.tsx) only
 * places what this decides.
 */
import { EventType } from '../../lambdas/choreography/contracts/events';
import { ServiceName } from '../../lambdas/choreography/contracts/names';
import type { DeliveryDetailBody, DeliveryTrailEntry } from '../contract/console-api';

/** An event, a remediation decision (its RemediationDecided event), an alert or a dead letter. */
export type SwimlaneMarkKind = 'event' | 'decision' | 'alert' | 'dead-letter';

export interface SwimlaneMark {
  readonly id: string;
  readonly kind: SwimlaneMarkKind;
  readonly at: number;
  /** The mark in words: what, when, its sequence and correlation id (hover, focus, screen readers). */
  readonly detail: string;
}

export interface SwimlaneLane {
  readonly id: ServiceName;
  readonly label: string;
  readonly marks: readonly SwimlaneMark[];
}

export interface DeliverySwimlane {
  readonly lanes: readonly SwimlaneLane[];
  /** Every instant something happened ([at, at], epoch ms): what the time axis must show. */
  readonly spans: readonly (readonly [number, number])[];
}

const LANES: readonly { readonly id: ServiceName; readonly label: string }[] = [
  { id: ServiceName.Ingestion, label: 'Ingestion' },
  { id: ServiceName.Package, label: 'Package' },
  { id: ServiceName.DroneScheduler, label: 'Drone scheduler' },
  { id: ServiceName.Delivery, label: 'Delivery' },
  { id: ServiceName.Remediation, label: 'Remediation' },
];

/** The event remediation publishes for each decision: drawn as a decision, not a plain event. */

function kindOf(entry: DeliveryTrailEntry): SwimlaneMarkKind {
  if (entry.kind === 'event') return entry.what === EventType.RemediationDecided ? 'decision' : 'event';
  return entry.kind;
}

/** A dead letter sits on the lane of the service that dead-lettered it; the rest on their own. */
function laneOf(entry: DeliveryTrailEntry): string {
  return entry.kind === 'dead-letter' && entry.source ? entry.source : entry.service;
}

function detailOf(entry: DeliveryTrailEntry): string {
  const facts = [
    entry.sequence === undefined ? undefined : `sequence ${entry.sequence}`,
    `correlation id ${entry.correlationId ?? '—'}`,
    entry.detail || undefined,
  ].filter(Boolean);
  const what =
    entry.kind === 'dead-letter'
      ? `Dead letter ${entry.what}`
      : `${entry.kind === 'alert' ? 'Alert ' : ''}${entry.what} from ${entry.service}`;
  return `${what} at ${entry.at}; ${facts.join('; ')}`;
}

/** The lanes and marks of `delivery`'s swimlane; a trail entry of no known service or time is left to the table. */
export function deliverySwimlaneOf(delivery: DeliveryDetailBody): DeliverySwimlane {
  const marks = delivery.trail
    .map((entry, index) => ({ entry, index, at: Date.parse(entry.at) }))
    .filter(({ at }) => !Number.isNaN(at));
  const lanes = LANES.map(({ id, label }) => ({
    id,
    label,
    marks: marks
      .filter(({ entry }) => laneOf(entry) === id)
      .map(({ entry, index, at }) => ({
        id: `trail-${index}`,
        kind: kindOf(entry),
        at,
        detail: detailOf(entry),
      })),
  }));
  const spans = lanes.flatMap((lane) =>
    lane.marks.map((mark): readonly [number, number] => [mark.at, mark.at]),
  );
  return { lanes, spans };
}
