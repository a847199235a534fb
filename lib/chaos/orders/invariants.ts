/**
 * The campaign's judge: a pure function from what was observed (final state records, samples taken
 * while the run went on, the downstream ledger, the operator alerts, the fault log) to a verdict per
 * invariant, plus the guards that fail a run as trivial. Nothing here talks to the system, so each
 * rule is tested with synthetic snapshots, one violation at a time.
 */
import {
  AlertType,
  ClientStatus,
  type ClientStatusMessage,
  clientStatusFor,
  ProcessState,
  StepStatus,
  TERMINAL_STATES,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { AlarmState } from '../../../lambdas/shared/alarm-spec';
import type {
  AlertSnapshot,
  ClientMessageDelivery,
  OperatorLogEntrySnapshot,
  RecordSnapshot,
} from '../../harness/snapshots';
import { countBy, countedDenials, restartDowntimeDuring, type Verdict } from '../common/verdicts';
import type { CampaignSnapshot } from './campaign-snapshot';
import {
  callsWithinBudget,
  compensationExact,
  noProcessedWithCompensation,
  oneEffectPerKey,
  processedOneEffectPerStep,
} from './effect-checks';

/** The inbox's order alerts: everything but the alarm notifications. */
export function orderAlerts(alerts: readonly AlertSnapshot[]): AlertSnapshot[] {
  return alerts.filter((alert) => alert.alarm === undefined);
}

/** How many times each alarm went into ALARM, by its notifications in the inbox, most first. */
export function alarmsFired(alerts: readonly AlertSnapshot[]): [string, number][] {
  const fired = countBy(
    alerts.flatMap((alert) => (alert.alarm?.newState === AlarmState.Alarm ? [alert.alarm] : [])),
    (alarm) => alarm.name,
  );
  return [...fired].sort(
    ([leftName, left], [rightName, right]) => right - left || leftName.localeCompare(rightName),
  );
}

export type InvariantId =
  | 'terminal-within-bound'
  | 'one-effect-per-key'
  | 'processed-one-effect-per-step'
  | 'error-exactly-one-alert'
  | 'compensation-failed-alerted'
  | 'compensation-exact'
  | 'no-processed-with-compensation'
  | 'lock-only-while-processing'
  | 'failure-count-within-threshold'
  | 'in-flight-within-limit'
  | 'accepted-never-refused'
  | 'planned-failures-not-processed'
  | 'planned-outcomes'
  | 'operator-actions-logged'
  | 'client-messages'
  | 'calls-within-budget'
  | 'app-not-denied';

export type GuardId =
  | 'orders-accepted'
  | 'processed-share'
  | 'every-fault-kind-fired'
  | 'reply-queue-isolation';

export interface CheckResult {
  readonly invariants: readonly Verdict<InvariantId>[];
  readonly guards: readonly Verdict<GuardId>[];
  /**
   * Status messages delivered again after the FIFO deduplication window (`<messageKey> x<n>`): the
   * resend clients de-duplicate on messageKey, not a violation.
   */
  readonly messagesRedeliveredAfterWindow: readonly string[];
  readonly passed: boolean;
}

export const INVARIANT_TITLES: Readonly<Record<InvariantId, string>> = {
  'terminal-within-bound':
    'every accepted order is terminal (Processed, Error, Compensated or CompensationFailed) within the bound',
  'one-effect-per-key': 'at most one downstream effect per idempotency key (order and step)',
  'processed-one-effect-per-step': 'every Processed order has exactly one effect per step',
  'error-exactly-one-alert':
    'every Error order raised exactly one OrderFailed alert (and no other order did)',
  'compensation-failed-alerted':
    'every CompensationFailed order raised exactly one CompensationFailed alert (and no other order did)',
  'compensation-exact':
    'every Compensated order undid each completed step exactly once, in reverse step order, and nothing was undone that was never done',
  'no-processed-with-compensation': 'no Processed order has a compensation recorded (log or ledger)',
  'lock-only-while-processing': 'no record holds LockedBy unless Processing or CompensationInProgress',
  'failure-count-within-threshold':
    'FailureCount never passes maxFailures, CompensationFailureCount never passes maxCompensationFailures',
  'in-flight-within-limit':
    'orders not terminal, and admission slots held, never exceed the admission limit (nor go negative)',
  'accepted-never-refused':
    'an accepted order submitted again while admission refuses new work is answered as accepted, never 429',
  'planned-failures-not-processed':
    'no order planned to fail (permanent failure, outage, compensation faults) is Processed',
  'planned-outcomes':
    'every order planned to fail ends as planned (outage: Error; permanent failure: Compensated; refused compensation: CompensationFailed), or by a threshold (Error before its failing step ran, CompensationFailed once compensation attempts ran out); an operator plan likewise (cancelled: Compensated; OUTAGE retried: Processed)',
  'operator-actions-logged':
    "every operator action applied appears exactly once in the order's OperatorLog with the campaign's identity, reason and what it saw; a refused one never; no entry the campaign did not apply; none applied to a Processing order",
  'client-messages':
    'each client is told only about its own orders, on its own queue: per order one Received, then one message per terminal state it reached (clientStatusFor), in order, each messageKey delivered once',
  'calls-within-budget':
    "the calls a dependency received per order and operation never exceed the order's RetryBudget, and every one was reserved in the record (CallsMade) before it was made",
  'app-not-denied':
    "IAM denied no request of the app's own roles or services: every grant the app needs is in its templates (AWS would refuse the same request)",
};

export const GUARD_TITLES: Readonly<Record<GuardId, string>> = {
  'orders-accepted': 'every planned order was accepted by the API',
  'processed-share': 'enough orders were Processed for the run to mean something',
  'every-fault-kind-fired': 'every enabled fault kind fired at least once',
  'reply-queue-isolation':
    "a client reading another client's reply queue is denied (AccessDenied), at least once and every time",
};

const TERMINAL: readonly string[] = TERMINAL_STATES;
/** Where a lock may be held: the states an attempt works in. */
const LOCKED_STATES: readonly string[] = [ProcessState.Processing, ProcessState.CompensationInProgress];
export function checkCampaign(snapshot: CampaignSnapshot): CheckResult {
  const records = new Map(snapshot.finalRecords.map((record) => [record.orderId, record]));
  const messagesRedeliveredAfterWindow: string[] = [];
  const invariants: Verdict<InvariantId>[] = [
    verdict('terminal-within-bound', terminalWithinBound(snapshot, records)),
    verdict('one-effect-per-key', oneEffectPerKey(snapshot)),
    verdict('processed-one-effect-per-step', processedOneEffectPerStep(snapshot)),
    verdict('error-exactly-one-alert', exactlyOneAlert(snapshot, ProcessState.Error, AlertType.OrderFailed)),
    verdict(
      'compensation-failed-alerted',
      exactlyOneAlert(snapshot, ProcessState.CompensationFailed, AlertType.CompensationFailed),
    ),
    verdict('compensation-exact', compensationExact(snapshot)),
    verdict('no-processed-with-compensation', noProcessedWithCompensation(snapshot)),
    verdict('lock-only-while-processing', lockOnlyWhileProcessing(snapshot)),
    verdict('failure-count-within-threshold', failureCountWithinThreshold(snapshot)),
    verdict('in-flight-within-limit', inFlightWithinLimit(snapshot)),
    verdict('accepted-never-refused', [...snapshot.admission.refusedAfterAcceptance]),
    verdict('planned-failures-not-processed', plannedFailuresNotProcessed(snapshot, records)),
    verdict('planned-outcomes', plannedOutcomes(snapshot, records)),
    verdict('operator-actions-logged', operatorActionsLogged(snapshot, records)),
    verdict('client-messages', clientMessages(snapshot, records, messagesRedeliveredAfterWindow)),
    verdict('calls-within-budget', callsWithinBudget(snapshot, records)),
    verdict('app-not-denied', countedDenials(snapshot.appDenials)),
  ];
  const guards: Verdict<GuardId>[] = [
    guard('orders-accepted', ordersAccepted(snapshot)),
    guard('processed-share', processedShare(snapshot, records)),
    guard('every-fault-kind-fired', everyFaultKindFired(snapshot)),
    guard('reply-queue-isolation', replyQueueIsolation(snapshot)),
  ];
  const passed = violatedChecks({ invariants, guards }).length === 0;
  return { invariants, guards, messagesRedeliveredAfterWindow, passed };
}

/** The invariants and guards of a check that found violations (none: the campaign passed). */
export function violatedChecks(
  result: Pick<CheckResult, 'invariants' | 'guards'>,
): Verdict<InvariantId | GuardId>[] {
  return [...result.invariants, ...result.guards].filter((verdict) => verdict.violations.length > 0);
}

function verdict(id: InvariantId, violations: string[]): Verdict<InvariantId> {
  return { id, title: INVARIANT_TITLES[id], violations };
}

function guard(id: GuardId, violations: string[]): Verdict<GuardId> {
  return { id, title: GUARD_TITLES[id], violations };
}

function terminalWithinBound(snapshot: CampaignSnapshot, records: Map<string, RecordSnapshot>): string[] {
  const violations: string[] = [];
  for (const order of snapshot.orders) {
    if (order.acceptedAt === undefined) continue;
    const record = records.get(order.orderId);
    if (!record) {
      violations.push(`${order.orderId}: accepted but has no state record`);
      continue;
    }
    if (!TERMINAL.includes(record.processState) || order.terminalAt === undefined) {
      violations.push(
        `${order.orderId}: still ${record.processState} (attempt ${record.attempt}, FailureCount ${record.failureCount})`,
      );
      continue;
    }
    // An operator's retry or cancel of a terminal order is new work: the bound counts from it.
    const from = Math.max(order.acceptedAt, order.reopenedAt ?? 0);
    const allowed =
      snapshot.terminalBoundMillis +
      restartDowntimeDuring(snapshot.restarts, { acceptedAt: from, terminalAt: order.terminalAt });
    const took = order.terminalAt - from;
    if (took > allowed) {
      violations.push(`${order.orderId}: ${record.processState} after ${took} ms, bound ${allowed} ms`);
    }
  }
  return violations;
}

/**
 * Every order raised one alert of `detailType` per time it entered `state`: once when it ends
 * there, plus once per operator action taken from it (its OperatorLog's SeenState: an Error order
 * retried raised its OrderFailed before the retry); no other order raised one. Copies of one
 * AlertId are one alert. No allowance for restarts or bus outages: the alert is written with the
 * transition (the alert outbox), so nothing may lose it.
 */
function exactlyOneAlert(snapshot: CampaignSnapshot, state: string, detailType: string): string[] {
  const seen = new Set<string>();
  const alerts = orderAlerts(snapshot.alerts).filter((alert) => {
    if (alert.detailType !== detailType) return false;
    if (alert.alertId === undefined) return true;
    // A redelivery of an alert already counted (the outbox delivers at least once).
    if (seen.has(alert.alertId)) return false;
    seen.add(alert.alertId);
    return true;
  });
  const alertsByOrder = countBy(alerts, (alert) => alert.orderId ?? '(no orderId)');
  const violations: string[] = [];
  const entered = new Set<string>();
  for (const record of snapshot.finalRecords) {
    const endsThere = record.processState === state;
    const leftByOperator = (record.operatorLog ?? []).filter((entry) => entry.seenState === state).length;
    const times = leftByOperator + (endsThere ? 1 : 0);
    if (times === 0) continue;
    entered.add(record.orderId);
    const count = alertsByOrder.get(record.orderId) ?? 0;
    if (count === times) continue;
    violations.push(
      leftByOperator === 0
        ? `${record.orderId}: ${state} with ${count} ${detailType} alerts`
        : `${record.orderId}: in ${state} ${times} times (${leftByOperator} left by an operator action) with ${count} ${detailType} alerts`,
    );
  }
  for (const [orderId, count] of alertsByOrder) {
    if (!entered.has(orderId))
      violations.push(`${orderId}: ${count} ${detailType} alerts but not in ${state}`);
  }
  return violations;
}

function lockOnlyWhileProcessing(snapshot: CampaignSnapshot): string[] {
  const violations: string[] = [];
  const seen = new Set<string>();
  for (const record of [...snapshot.samples, ...snapshot.finalRecords]) {
    if (record.lockedBy === undefined || LOCKED_STATES.includes(record.processState)) continue;
    const key = `${record.orderId} ${record.processState} ${record.lockedBy}`;
    if (seen.has(key)) continue;
    seen.add(key);
    violations.push(`${record.orderId}: ${record.processState} but LockedBy ${record.lockedBy}`);
  }
  return violations;
}

function failureCountWithinThreshold(snapshot: CampaignSnapshot): string[] {
  const { maxFailures, maxCompensationFailures } = snapshot.timings;
  const worst = new Map<string, number>();
  const worstCompensation = new Map<string, number>();
  for (const record of [...snapshot.samples, ...snapshot.finalRecords]) {
    if (record.failureCount > maxFailures) {
      worst.set(record.orderId, Math.max(worst.get(record.orderId) ?? 0, record.failureCount));
    }
    const compensationFailures = record.compensationFailureCount ?? 0;
    if (compensationFailures > maxCompensationFailures) {
      worstCompensation.set(
        record.orderId,
        Math.max(worstCompensation.get(record.orderId) ?? 0, compensationFailures),
      );
    }
  }
  return [
    ...[...worst].map(([orderId, count]) => `${orderId}: FailureCount ${count} > maxFailures ${maxFailures}`),
    ...[...worstCompensation].map(
      ([orderId, count]) =>
        `${orderId}: CompensationFailureCount ${count} > maxCompensationFailures ${maxCompensationFailures}`,
    ),
  ];
}

/** Every reading of the in-flight count and of the admission counters stays within [0, limit]. */
function inFlightWithinLimit(snapshot: CampaignSnapshot): string[] {
  const { limit, samples } = snapshot.admission;
  const violations: string[] = [];
  for (const sample of samples) {
    if (sample.nonTerminal > limit) {
      violations.push(`at ${sample.at}: ${sample.nonTerminal} orders not terminal, admission limit ${limit}`);
    }
    if (sample.slotsHeld !== undefined && (sample.slotsHeld > limit || sample.slotsHeld < 0)) {
      violations.push(`at ${sample.at}: admission counters hold ${sample.slotsHeld} slots, limit ${limit}`);
    }
  }
  return violations;
}

function plannedFailuresNotProcessed(
  snapshot: CampaignSnapshot,
  records: Map<string, RecordSnapshot>,
): string[] {
  return snapshot.orders
    .filter((order) => order.mustFail && records.get(order.orderId)?.processState === ProcessState.Processed)
    .map((order) => `${order.orderId}: planned to fail but Processed`);
}

/**
 * A failing plan ends as planned. Tolerated, because a supervisor threshold legitimately decides
 * them: Error when the failing step never ran to its refusal (the order's attempts ran out earlier,
 * e.g. under load), and CompensationFailed once maxCompensationFailures compensation attempts expired.
 */
function plannedOutcomes(snapshot: CampaignSnapshot, records: Map<string, RecordSnapshot>): string[] {
  const violations: string[] = [];
  for (const order of snapshot.orders) {
    const record = records.get(order.orderId);
    if (order.expectedOutcome === undefined || !record || !TERMINAL.includes(record.processState)) continue;
    if (record.processState === order.expectedOutcome) continue;
    // Only a failing fault's plan (it names its failing step) may end Error before that step ran.
    const failingStepRan =
      order.failingStep !== undefined && record.steps[order.failingStep] === StepStatus.Failed;
    if (record.processState === ProcessState.Error && order.failingStep !== undefined && !failingStepRan)
      continue;
    // The compensation's own threshold: maxCompensationFailures expired compensation attempts
    // (e.g. cut short by a restart, or starved on a loaded machine) end CompensationFailed by design.
    const compensationAttemptsRanOut =
      (record.compensationFailureCount ?? 0) >= snapshot.timings.maxCompensationFailures;
    if (record.processState === ProcessState.CompensationFailed && compensationAttemptsRanOut) continue;
    violations.push(
      `${order.orderId}: planned to end ${order.expectedOutcome}${order.failingStep ? ` (${order.failingStep})` : ''} but ${record.processState}`,
    );
  }
  return violations;
}

/**
 * The campaign's operator actions against the records' OperatorLogs, matched by reason (unique
 * per action): an applied action is logged exactly once, as sent and by the campaign's identity;
 * a refused one (409, 429) is not logged; every entry is an action the campaign applied (or sent
 * without hearing back); nothing was applied to a Processing order (an attempt was running).
 */
function operatorActionsLogged(snapshot: CampaignSnapshot, records: Map<string, RecordSnapshot>): string[] {
  const { identity, actions } = snapshot.operator;
  const violations: string[] = [];
  const sent = new Set<string>();
  for (const action of actions) {
    sent.add(`${action.orderId} ${action.reason}`);
    const entries = (records.get(action.orderId)?.operatorLog ?? []).filter(
      (entry) => entry.reason === action.reason,
    );
    const what = `${action.orderId}: ${action.action} from ${action.seenState} ("${action.reason}")`;
    if (action.outcome === 'refused') {
      if (entries.length > 0) {
        violations.push(
          `${what}: refused ${action.status ?? ''}, yet in the OperatorLog ${entries.length} time(s)`,
        );
      }
      continue;
    }
    if (action.outcome === 'unknown') continue;
    if (action.seenState === ProcessState.Processing) {
      violations.push(`${what}: applied to a Processing order`);
    }
    if (entries.length !== 1) {
      violations.push(`${what}: applied, but in the OperatorLog ${entries.length} times`);
      continue;
    }
    const entry = entries[0] as OperatorLogEntrySnapshot;
    const differs = [
      entry.by !== identity ? `by ${entry.by}, not ${identity}` : '',
      entry.action !== action.action ? `action ${entry.action}` : '',
      entry.seenState !== action.seenState ? `seen state ${entry.seenState}` : '',
      entry.seenUpdatedAt !== action.seenUpdatedAt ? `seen UpdatedAt ${entry.seenUpdatedAt}` : '',
    ].filter(Boolean);
    if (differs.length > 0) violations.push(`${what}: logged with ${differs.join(', ')}`);
  }
  for (const record of snapshot.finalRecords) {
    for (const entry of record.operatorLog ?? []) {
      if (!sent.has(`${record.orderId} ${entry.reason}`)) {
        violations.push(
          `${record.orderId}: OperatorLog has ${entry.action} by ${entry.by} ("${entry.reason}") that the campaign never sent`,
        );
      }
    }
  }
  return violations;
}

/**
 * The terminal states an order reached, in order: each one an operator action later took it out
 * of (its OperatorLog's SeenState, when terminal), then its final state when terminal. Terminal
 * states are left only by an operator action.
 */
export function terminalVisits(record: RecordSnapshot): string[] {
  const left = (record.operatorLog ?? [])
    .map((entry) => entry.seenState)
    .filter((state) => TERMINAL.includes(state));
  return TERMINAL.includes(record.processState) ? [...left, record.processState] : left;
}

/**
 * The status messages each client took from its own reply queue: only its own orders (the message
 * names it, and it submitted the order); per messageKey one delivery (a second one within the FIFO
 * deduplication window is a violation, a later one is listed); per order, its distinct messages in
 * the order received are one Received, then one per terminal state it reached (clientStatusFor),
 * each naming the state it tells. Orders not terminal at the end are judged by terminal-within-bound.
 */
function clientMessages(
  snapshot: CampaignSnapshot,
  records: Map<string, RecordSnapshot>,
  redeliveredAfterWindow: string[],
): string[] {
  const { deliveries, deduplicationWindowMillis } = snapshot.clientMessages;
  const submitter = new Map(snapshot.orders.map((order) => [order.orderId, order.clientId]));
  const violations: string[] = [];
  const byKey = new Map<string, ClientMessageDelivery[]>();
  const keysByOrder = new Map<string, ClientStatusMessage[]>();
  for (const delivery of deliveries) {
    const message = delivery.message;
    if (!message) {
      violations.push(
        `${delivery.queueOf}'s queue: a message that is no ClientStatusMessage (${delivery.invalid ?? '?'})`,
      );
      continue;
    }
    if (message.clientId !== delivery.queueOf) {
      violations.push(
        `${message.messageKey}: for client ${message.clientId}, on ${delivery.queueOf}'s queue`,
      );
    }
    const owner = submitter.get(message.orderId);
    if (owner !== delivery.queueOf) {
      violations.push(
        `${message.messageKey}: told to ${delivery.queueOf}, but ${owner === undefined ? 'the campaign submitted no such order' : `${owner} submitted it`}`,
      );
    }
    const expectedStatus =
      message.status === ClientStatus.Received
        ? ClientStatus.Received
        : clientStatusFor(message.processState as ProcessState);
    if (message.status !== expectedStatus) {
      violations.push(
        `${message.messageKey}: status ${message.status} for processState ${message.processState}`,
      );
    }
    const copies = byKey.get(message.messageKey) ?? [];
    if (copies.length === 0)
      keysByOrder.set(message.orderId, [...(keysByOrder.get(message.orderId) ?? []), message]);
    byKey.set(message.messageKey, [...copies, delivery]);
  }
  for (const [key, copies] of byKey) {
    if (copies.length < 2) continue;
    const times = copies.map((copy) => copy.receivedAt);
    if (Math.max(...times) - Math.min(...times) > deduplicationWindowMillis) {
      redeliveredAfterWindow.push(`${key} x${copies.length}`);
    } else {
      violations.push(`${key}: delivered ${copies.length} times within the FIFO deduplication window`);
    }
  }
  for (const order of snapshot.orders) {
    const record = records.get(order.orderId);
    if (order.clientId === undefined || order.acceptedAt === undefined) continue;
    if (!record || !TERMINAL.includes(record.processState)) continue;
    const expected = [
      ClientStatus.Received,
      ...terminalVisits(record).map((state) => clientStatusFor(state as ProcessState) ?? '?'),
    ];
    const told = (keysByOrder.get(order.orderId) ?? []).map((message) => message.status);
    if (told.join(',') !== expected.join(',')) {
      violations.push(
        `${order.orderId} (${order.clientId ?? '?'}): told [${told.join(', ')}], expected [${expected.join(', ')}]`,
      );
    }
  }
  return violations;
}

function ordersAccepted(snapshot: CampaignSnapshot): string[] {
  const missing = snapshot.orders.filter((order) => order.acceptedAt === undefined);
  return missing.length === 0
    ? []
    : [
        `${missing.length} of ${snapshot.orders.length} orders never accepted (first: ${missing[0]?.orderId})`,
      ];
}

function processedShare(snapshot: CampaignSnapshot, records: Map<string, RecordSnapshot>): string[] {
  const processed = snapshot.orders.filter(
    (order) => records.get(order.orderId)?.processState === ProcessState.Processed,
  ).length;
  const share = snapshot.orders.length === 0 ? 0 : processed / snapshot.orders.length;
  return share >= snapshot.minProcessedShare
    ? []
    : [
        `only ${processed} of ${snapshot.orders.length} orders Processed (${(share * 100).toFixed(1)}%), ` +
          `need ${(snapshot.minProcessedShare * 100).toFixed(1)}%`,
      ];
}

function everyFaultKindFired(snapshot: CampaignSnapshot): string[] {
  const fired = new Set(snapshot.faults.map((event) => event.kind));
  return snapshot.enabledKinds.filter((kind) => !fired.has(kind)).map((kind) => `${kind} never fired`);
}

function replyQueueIsolation(snapshot: CampaignSnapshot): string[] {
  const { clients, probes } = snapshot.clientMessages;
  if (clients.length < 2) return [`needs two clients to probe, the Clients output lists ${clients.length}`];
  const violations = probes
    .filter((probe) => probe.outcome !== 'AccessDenied')
    .map((probe) => `${probe.reader} reading ${probe.queueOf}'s queue: ${probe.outcome}`);
  if (!probes.some((probe) => probe.outcome === 'AccessDenied')) {
    violations.push("no client was ever denied another client's queue");
  }
  return violations;
}
