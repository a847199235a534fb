/**
 * The delivery campaign's judge: a pure function from what was observed (the services' items with
 * their change logs, the drone scheduler's drones sampled while the run went on, the lifecycle
 * events a de-duplicating bus subscriber received in arrival order, the ingestion read model, the
 * dead letters the consumers sent and remediation's markers and decisions, the fault log) to a
 * verdict per invariant, plus the guards that fail a run as trivial. Tested with synthetic
 * snapshots, one violation at a time.
 */
import {
  type DeliveryStatus,
  isTerminalStatus,
  LIFECYCLE_EVENT_TYPES,
  type LifecycleEventType,
  REASON_CODES,
  ReasonCode,
  STATUS_AFTER,
  DeliveryStatus as Status,
} from '../../../lambdas/choreography/contracts';
import type {
  AssignmentItem,
  DeadLetterMarker,
  DeliveryItem,
  DroneSample,
  IngestionItem,
  ObservedEvent,
  RemediationDecisionRecord,
  Window,
} from '../../harness/deliveries-snapshots';
import {
  countBy,
  countedDenials,
  type RestartWindow,
  restartDowntimeDuring,
  type Verdict,
} from '../common/verdicts';
import type { DeliveryFaultEvent, DeliveryFaultKind } from './faults';
import type { Scenario } from './plan';

export interface DeliveryOutcome {
  readonly deliveryId: string;
  readonly scenario: Scenario;
  readonly allowedOutcomes: readonly DeliveryStatus[];
  /** When the API accepted it (202, or 200 for an identical resubmission); absent if never. */
  readonly acceptedAt?: number;
  /** When it was first seen terminal; absent if never. */
  readonly terminalAt?: number;
}

/** One read of a delivery through the API at the end of the run, with a requester's own key. */
export interface RequesterReadProbe {
  readonly reader: string;
  /** The requester that submitted the delivery. */
  readonly owner: string;
  readonly deliveryId: string;
  /** The HTTP status, or the transport error's text. */
  readonly status: number | string;
}

/** The requesters the deliveries alternated between, and the reads that probe who sees what. */
export interface RequesterIsolation {
  readonly requesters: readonly string[];
  readonly probes: readonly RequesterReadProbe[];
}

/** A message a consumer sent to its dead-letter queue (seen by the SQS API proxy). */
export interface DeadLetterSent {
  readonly service: string;
  /** Remediation's dead-letter key for it (the hash of its deduplication id or body). */
  readonly key: string;
  readonly deliveryId?: string;
  readonly reasonCode?: string;
}

export interface DeliveryCampaignSnapshot {
  readonly terminalBoundMillis: number;
  readonly deliveries: readonly DeliveryOutcome[];
  readonly deliveryItems: readonly DeliveryItem[];
  readonly ingestionItems: readonly IngestionItem[];
  readonly lifecycleEvents: readonly ObservedEvent[];
  /** The ASSIGNMENT# items at the end. */
  readonly assignments: readonly AssignmentItem[];
  /**
   * The SCHEDULED ASSIGNMENT# items as sampled while the run went on (one entry per change): a
   * double booking that a release undid later (a GIVE_UP) shows only here.
   */
  readonly assignmentSamples: readonly {
    readonly at: number;
    readonly scheduled: readonly AssignmentItem[];
  }[];
  readonly droneSamples: readonly DroneSample[];
  readonly deadLettersSent: readonly DeadLetterSent[];
  readonly deadLetterMarkers: readonly DeadLetterMarker[];
  readonly remediationDecisions: readonly RemediationDecisionRecord[];
  readonly faults: readonly DeliveryFaultEvent[];
  readonly enabledKinds: readonly DeliveryFaultKind[];
  readonly restarts: readonly RestartWindow[];
  /** The run is trivial below this share of happy deliveries Delivered. */
  readonly minDeliveredShare: number;
  /** Requests by the app's own roles (and services) that IAM denied, as messages (iam-denials.ts). */
  readonly appDenials: readonly string[];
  readonly requesterIsolation: RequesterIsolation;
}

export type DeliveryInvariantId =
  | 'terminal-within-bound'
  | 'no-drone-double-booked'
  | 'lifecycle-in-sequence'
  | 'state-matches-events'
  | 'dead-letters-resolved-once'
  | 'planned-outcomes'
  | 'app-not-denied';

export type DeliveryGuardId =
  | 'deliveries-accepted'
  | 'delivered-share'
  | 'every-fault-kind-fired'
  | 'requester-isolation';

export interface DeliveryCheckResult {
  readonly invariants: readonly Verdict<DeliveryInvariantId>[];
  readonly guards: readonly Verdict<DeliveryGuardId>[];
  readonly passed: boolean;
}

export const DELIVERY_INVARIANT_TITLES: Readonly<Record<DeliveryInvariantId, string>> = {
  'terminal-within-bound':
    'every accepted delivery is terminal (Delivered, Failed, Cancelled) within the bound',
  'no-drone-double-booked': 'no drone holds two assignments with overlapping windows',
  'lifecycle-in-sequence':
    "a de-duplicating bus subscriber sees each delivery's lifecycle events in sequence, no gap, no duplicate",
  'state-matches-events':
    'state and emitted events agree (change logs vs events seen, status vs last event, the read model)',
  'dead-letters-resolved-once': 'every dead letter carries a reason code and is resolved exactly once',
  'planned-outcomes': 'every delivery ends in an outcome its plan allows (too heavy never Delivered, ...)',
  'app-not-denied':
    "IAM denied no request of the app's own roles or services: every grant the app needs is in its templates (AWS would refuse the same request)",
};

export const DELIVERY_GUARD_TITLES: Readonly<Record<DeliveryGuardId, string>> = {
  'deliveries-accepted': 'every planned delivery was accepted by the API',
  'delivered-share': 'enough happy deliveries were Delivered for the run to mean something',
  'every-fault-kind-fired': 'every enabled fault kind fired at least once',
  'requester-isolation':
    "a requester reading another requester's delivery gets 404, as for an unknown id, every time (its owner reads it: 200)",
};

const LIFECYCLE: readonly string[] = LIFECYCLE_EVENT_TYPES;
const TERMINAL_EVENTS: readonly string[] = LIFECYCLE_EVENT_TYPES.filter((type) =>
  isTerminalStatus(STATUS_AFTER[type]),
);
const BEFORE_ANY_EVENT: readonly string[] = [Status.Requested, Status.Correlating];
/** Statuses that mean a drone was assigned and the Delivery service knows which. */
const FLOWN: readonly string[] = [Status.Scheduled, Status.PickedUp, Status.Delivered];

export function checkDeliveryCampaign(snapshot: DeliveryCampaignSnapshot): DeliveryCheckResult {
  const items = new Map(snapshot.deliveryItems.map((item) => [item.deliveryId, item]));
  const observed = dedupedEvents(snapshot.lifecycleEvents);
  const invariants: Verdict<DeliveryInvariantId>[] = [
    verdict('terminal-within-bound', terminalWithinBound(snapshot, items)),
    verdict('no-drone-double-booked', noDoubleBooking(snapshot)),
    verdict('lifecycle-in-sequence', lifecycleInSequence(snapshot, observed.reused)),
    verdict('state-matches-events', stateMatchesEvents(snapshot, observed.byDelivery)),
    verdict('dead-letters-resolved-once', deadLettersResolvedOnce(snapshot)),
    verdict('planned-outcomes', plannedOutcomes(snapshot, items)),
    verdict('app-not-denied', countedDenials(snapshot.appDenials)),
  ];
  const guards: Verdict<DeliveryGuardId>[] = [
    guard('deliveries-accepted', deliveriesAccepted(snapshot)),
    guard('delivered-share', deliveredShare(snapshot, items)),
    guard('every-fault-kind-fired', everyKindFired(snapshot)),
    guard('requester-isolation', requesterIsolation(snapshot.requesterIsolation)),
  ];
  const passed = [...invariants, ...guards].every((entry) => entry.violations.length === 0);
  return { invariants, guards, passed };
}

function verdict(id: DeliveryInvariantId, violations: string[]): Verdict<DeliveryInvariantId> {
  return { id, title: DELIVERY_INVARIANT_TITLES[id], violations };
}

function guard(id: DeliveryGuardId, violations: string[]): Verdict<DeliveryGuardId> {
  return { id, title: DELIVERY_GUARD_TITLES[id], violations };
}

/** What a de-duplicating consumer keeps: each eventId once, in arrival order, per delivery. */
function dedupedEvents(events: readonly ObservedEvent[]): {
  byDelivery: Map<string, ObservedEvent[]>;
  reused: string[];
} {
  const firstById = new Map<string, ObservedEvent>();
  const byDelivery = new Map<string, ObservedEvent[]>();
  const reused: string[] = [];
  for (const event of events) {
    const first = firstById.get(event.eventId);
    if (first) {
      if (
        first.type !== event.type ||
        first.sequence !== event.sequence ||
        first.deliveryId !== event.deliveryId
      ) {
        reused.push(
          `${event.deliveryId}: eventId ${event.eventId} carried ${first.type} #${first.sequence}, then ${event.type} #${event.sequence}`,
        );
      }
      continue;
    }
    firstById.set(event.eventId, event);
    byDelivery.set(event.deliveryId, [...(byDelivery.get(event.deliveryId) ?? []), event]);
  }
  return { byDelivery, reused };
}

function terminalWithinBound(snapshot: DeliveryCampaignSnapshot, items: Map<string, DeliveryItem>): string[] {
  const violations: string[] = [];
  for (const delivery of snapshot.deliveries) {
    if (delivery.acceptedAt === undefined) continue;
    const status = items.get(delivery.deliveryId)?.status;
    if (!status || !isTerminalStatus(status as DeliveryStatus) || delivery.terminalAt === undefined) {
      violations.push(
        `${delivery.deliveryId} (${delivery.scenario}): still ${status ?? 'unknown to the Delivery service'}`,
      );
      continue;
    }
    const allowed = snapshot.terminalBoundMillis + restartDowntimeDuring(snapshot.restarts, delivery);
    const took = delivery.terminalAt - delivery.acceptedAt;
    if (took > allowed)
      violations.push(`${delivery.deliveryId}: ${status} after ${took} ms, bound ${allowed} ms`);
  }
  return violations;
}

function overlaps(left: Window, right: Window): boolean {
  return Date.parse(left.start) < Date.parse(right.end) && Date.parse(right.start) < Date.parse(left.end);
}

function noDoubleBooking(snapshot: DeliveryCampaignSnapshot): string[] {
  const violations = new Set<string>();
  const pairs = (label: string, droneId: string, held: readonly ({ deliveryId: string } & Window)[]) => {
    for (let first = 0; first < held.length; first += 1) {
      for (let second = first + 1; second < held.length; second += 1) {
        const left = held[first] as { deliveryId: string } & Window;
        const right = held[second] as { deliveryId: string } & Window;
        if (left.deliveryId !== right.deliveryId && overlaps(left, right)) {
          const [a, b] = [left.deliveryId, right.deliveryId].sort();
          violations.add(`${droneId}: ${a} and ${b} overlap (${label})`);
        }
      }
    }
  };
  for (const sample of snapshot.droneSamples) pairs('DRONE item', sample.droneId, sample.assignments);
  const views = [snapshot.assignments, ...snapshot.assignmentSamples.map((sample) => sample.scheduled)];
  for (const view of views) {
    const scheduled = new Map<string, ({ deliveryId: string } & Window)[]>();
    for (const assignment of view) {
      if (assignment.status !== 'SCHEDULED' || !assignment.droneId || !assignment.window) continue;
      scheduled.set(assignment.droneId, [
        ...(scheduled.get(assignment.droneId) ?? []),
        { deliveryId: assignment.deliveryId, ...assignment.window },
      ]);
    }
    for (const [droneId, held] of scheduled) pairs('ASSIGNMENT items', droneId, held);
  }
  return [...violations];
}

function lifecycleInSequence(snapshot: DeliveryCampaignSnapshot, reused: readonly string[]): string[] {
  const violations = [...reused];
  const { byDelivery } = dedupedEvents(snapshot.lifecycleEvents);
  for (const [deliveryId, events] of byDelivery) {
    const bySequence = countBy(events, (event) => String(event.sequence));
    for (const [sequence, count] of bySequence) {
      if (count > 1) violations.push(`${deliveryId}: ${count} distinct events with sequence ${sequence}`);
    }
    let expected = 1;
    let terminalSeen: string | undefined;
    for (const event of events) {
      if (!LIFECYCLE.includes(event.type)) {
        violations.push(`${deliveryId}: ${event.type} (from ${event.producer}) is not a lifecycle event`);
      }
      if (terminalSeen) {
        violations.push(`${deliveryId}: ${event.type} #${event.sequence} after the terminal ${terminalSeen}`);
      }
      if (event.sequence !== expected && bySequence.get(String(event.sequence)) === 1) {
        violations.push(
          `${deliveryId}: ${event.type} #${event.sequence} arrived where #${expected} was due (${event.sequence > expected ? 'gap' : 'out of order'})`,
        );
      }
      expected = Math.max(expected, event.sequence + 1);
      if (TERMINAL_EVENTS.includes(event.type)) terminalSeen ??= `${event.type} #${event.sequence}`;
    }
  }
  return violations;
}

function stateMatchesEvents(
  snapshot: DeliveryCampaignSnapshot,
  observed: ReadonlyMap<string, readonly ObservedEvent[]>,
): string[] {
  const violations: string[] = [];
  const assignments = new Map(snapshot.assignments.map((assignment) => [assignment.deliveryId, assignment]));
  const ingestion = new Map(snapshot.ingestionItems.map((item) => [item.deliveryId, item]));
  const accepted = new Set(
    snapshot.deliveries
      .filter((delivery) => delivery.acceptedAt !== undefined)
      .map((delivery) => delivery.deliveryId),
  );
  const itemIds = new Set(snapshot.deliveryItems.map((item) => item.deliveryId));
  for (const [deliveryId, events] of observed) {
    if (!itemIds.has(deliveryId))
      violations.push(`${deliveryId}: ${events.length} lifecycle events seen, no Delivery record`);
  }
  for (const item of snapshot.deliveryItems) {
    const id = item.deliveryId;
    const events = [...(observed.get(id) ?? [])].sort((left, right) => left.sequence - right.sequence);
    const seen = new Map(events.map((event) => [event.sequence, event]));
    for (let sequence = 1; sequence <= item.sequence; sequence += 1) {
      if (!seen.has(sequence))
        violations.push(
          `${id}: lifecycle event #${sequence} emitted (sequence ${item.sequence}) but never seen`,
        );
    }
    for (const event of events) {
      if (event.sequence > item.sequence) {
        violations.push(
          `${id}: ${event.type} #${event.sequence} seen but the record's sequence is ${item.sequence}`,
        );
      }
    }
    for (const entry of item.outbox) {
      if (entry.destination !== 'delivery-bus') continue;
      const match = seen.get(entry.sequence);
      if (!match || match.type !== entry.type) {
        violations.push(
          `${id}: change log ${entry.type} #${entry.sequence} vs seen ${match ? match.type : 'nothing'}`,
        );
      }
    }
    const last = events.at(-1);
    if (last && LIFECYCLE.includes(last.type)) {
      const after = STATUS_AFTER[last.type as LifecycleEventType];
      if (item.status !== after)
        violations.push(`${id}: status ${item.status} but its last event ${last.type} leaves ${after}`);
    } else if (!BEFORE_ANY_EVENT.includes(item.status)) {
      violations.push(`${id}: status ${item.status} with no lifecycle event seen`);
    }
    if (FLOWN.includes(item.status)) {
      // A later GIVE_UP (a poison message naming the delivery) may release the drone after the
      // flight, so the drone must agree, not the assignment's status.
      const assignment = assignments.get(id);
      if (assignment?.droneId === undefined || assignment.droneId !== item.droneId) {
        violations.push(
          `${id}: ${item.status} with drone ${item.droneId ?? '-'} but the drone scheduler holds ${assignment ? `${assignment.status} ${assignment.droneId ?? '-'}` : 'no assignment'}`,
        );
      }
    }
    const read = ingestion.get(id);
    if (!read) {
      if (accepted.has(id)) violations.push(`${id}: accepted but absent from the ingestion read model`);
      continue;
    }
    if (
      read.status !== item.status &&
      !(BEFORE_ANY_EVENT.includes(item.status) && read.status === Status.Requested)
    ) {
      violations.push(`${id}: read model says ${read.status}, the Delivery service ${item.status}`);
    }
    const history = read.history
      .filter((entry) => entry.producer === 'delivery')
      .map((entry) => `${entry.type}#${entry.sequence}`)
      .sort();
    const expected = events.map((event) => `${event.type}#${event.sequence}`).sort();
    if (history.join(',') !== expected.join(',')) {
      violations.push(
        `${id}: read model history [${history.join(', ')}] vs events seen [${expected.join(', ')}]`,
      );
    }
  }
  return violations;
}

function deadLettersResolvedOnce(snapshot: DeliveryCampaignSnapshot): string[] {
  const violations: string[] = [];
  const known: readonly string[] = REASON_CODES;
  const sentKeys = new Set<string>();
  for (const sent of snapshot.deadLettersSent) {
    sentKeys.add(sent.key);
    if (!sent.reasonCode || !known.includes(sent.reasonCode)) {
      violations.push(
        `${sent.deliveryId ?? '(unattributed)'}: dead-lettered by ${sent.service} with reason code ${sent.reasonCode ?? '(none)'}`,
      );
    }
  }
  const markers = countBy(snapshot.deadLetterMarkers, (marker) => marker.key);
  const decisions = countBy(snapshot.remediationDecisions, (decision) => decision.deadLetterKey);
  for (const key of sentKeys) {
    const sent = snapshot.deadLettersSent.find((entry) => entry.key === key);
    const label = `${sent?.deliveryId ?? '(unattributed)'} ${sent?.reasonCode ?? '?'} from ${sent?.service ?? '?'}`;
    if ((markers.get(key) ?? 0) !== 1)
      violations.push(`${label}: ${markers.get(key) ?? 0} DEADLETTER markers`);
    if ((decisions.get(key) ?? 0) !== 1) violations.push(`${label}: ${decisions.get(key) ?? 0} decisions`);
  }
  for (const [key, count] of decisions) {
    if (count > 1 && !sentKeys.has(key)) violations.push(`dead letter ${key}: decided ${count} times`);
    if (!markers.has(key)) violations.push(`dead letter ${key}: decided without a DEADLETTER marker`);
  }
  const redriven = new Set(
    snapshot.remediationDecisions
      .filter((decision) => decision.reasonCode === ReasonCode.RetriesExhausted)
      .map((decision) => decision.deadLetterKey),
  );
  for (const key of markers.keys()) {
    if (!sentKeys.has(key) && !redriven.has(key)) {
      violations.push(
        `dead letter ${key}: marked resolved but no consumer dead-lettered it (nor did a redrive)`,
      );
    }
  }
  return violations;
}

function plannedOutcomes(snapshot: DeliveryCampaignSnapshot, items: Map<string, DeliveryItem>): string[] {
  const violations: string[] = [];
  for (const delivery of snapshot.deliveries) {
    const status = items.get(delivery.deliveryId)?.status;
    if (!status || !isTerminalStatus(status as DeliveryStatus)) continue;
    if (!delivery.allowedOutcomes.includes(status as DeliveryStatus)) {
      violations.push(
        `${delivery.deliveryId} (${delivery.scenario}): ${status}, allowed ${delivery.allowedOutcomes.join(' or ')}`,
      );
    }
  }
  return violations;
}

function requesterIsolation({ requesters, probes }: RequesterIsolation): string[] {
  if (requesters.length < 2) {
    return [`needs two requesters to probe, the Requesters output lists ${requesters.length}`];
  }
  const violations = probes.flatMap((probe) => {
    const expected = probe.reader === probe.owner ? 200 : 404;
    return probe.status === expected
      ? []
      : [`${probe.reader} reading ${probe.owner}'s ${probe.deliveryId}: ${probe.status}, not ${expected}`];
  });
  if (!probes.some((probe) => probe.reader !== probe.owner && probe.status === 404)) {
    violations.push("no requester was ever answered 404 on another requester's delivery");
  }
  return violations;
}

function deliveriesAccepted(snapshot: DeliveryCampaignSnapshot): string[] {
  const missing = snapshot.deliveries.filter((delivery) => delivery.acceptedAt === undefined);
  return missing.length === 0
    ? []
    : [
        `${missing.length} of ${snapshot.deliveries.length} deliveries never accepted (first: ${missing[0]?.deliveryId})`,
      ];
}

function deliveredShare(snapshot: DeliveryCampaignSnapshot, items: Map<string, DeliveryItem>): string[] {
  const happy = snapshot.deliveries.filter((delivery) => delivery.scenario === 'happy');
  const delivered = happy.filter(
    (delivery) => items.get(delivery.deliveryId)?.status === Status.Delivered,
  ).length;
  const share = happy.length === 0 ? 1 : delivered / happy.length;
  return share >= snapshot.minDeliveredShare
    ? []
    : [
        `only ${delivered} of ${happy.length} happy deliveries Delivered (${(share * 100).toFixed(1)}%), ` +
          `need ${(snapshot.minDeliveredShare * 100).toFixed(1)}%`,
      ];
}

function everyKindFired(snapshot: DeliveryCampaignSnapshot): string[] {
  const fired = new Set(snapshot.faults.map((event) => event.kind));
  return snapshot.enabledKinds.filter((kind) => !fired.has(kind)).map((kind) => `${kind} never fired`);
}
