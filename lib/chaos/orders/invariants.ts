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
  CompensationStatus,
  clientStatusFor,
  ORDER_STEPS,
  operationKey,
  ProcessState,
  StepStatus,
  TERMINAL_STATES,
  type WorkflowTimings,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { AlarmState } from '../../../lambdas/shared/alarm-spec';
import type {
  AlertSnapshot,
  ClientMessageDelivery,
  LedgerCallsSnapshot,
  LedgerEffectSnapshot,
  LedgerUndoSnapshot,
  OperatorLogEntrySnapshot,
  RecordSnapshot,
  ReplyQueueProbe,
} from '../../harness/snapshots';
import {
  countBy,
  countedDenials,
  type RestartWindow,
  restartDowntimeDuring,
  type Verdict,
} from '../common/verdicts';
import { type FaultEvent, type FaultKind } from './faults';

/** A record as seen while the campaign ran (the sampler reads in-flight orders every tick). */
export interface RecordSample extends RecordSnapshot {
  readonly at: number;
}

export interface OrderOutcome {
  readonly orderId: string;
  /** When the API accepted it (202, or 200 for an identical resubmission); absent if never. */
  readonly acceptedAt?: number;
  /** When its record was first seen terminal; absent if never. */
  readonly terminalAt?: number;
  /** The plan made success impossible (PERM-FAIL, outage): it must not be Processed. */
  readonly mustFail: boolean;
  /** How a failing plan must end (Error, Compensated, CompensationFailed). */
  readonly expectedOutcome?: string;
  /** The step planned to fail for good (or to be out), for the outcome check. */
  readonly failingStep?: string;
  /**
   * The client whose API key submitted it: its status messages go to that client's queue only.
   * Absent: submitted with no client's key, so the order's own messages are not judged.
   */
  readonly clientId?: string;
  /**
   * When an operator action last took it out of a terminal state (a retry of Error, a cancel of
   * Processed): the bound then counts from here, as for new work.
   */
  readonly reopenedAt?: number;
}

/** One reading of what is in flight: records not terminal, and the admission counters' sum. */
export interface AdmissionSample {
  readonly at: number;
  /** Accepted orders whose record was not terminal at this reading. */
  readonly nonTerminal: number;
  /** Sum of InFlight over the admission counter shards. */
  readonly slotsHeld?: number;
}

export interface AdmissionObservation {
  /** The limit the assembly was synthesized with (ADMISSION_SETTINGS). */
  readonly limit: number;
  readonly samples: readonly AdmissionSample[];
  /**
   * Accepted orders submitted again (identically) while the API was refusing new work, and what
   * that resubmission got when it was refused (429): accepted work is never refused later.
   */
  readonly refusedAfterAcceptance: readonly string[];
}

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

/** One retry or cancel the campaign sent as operator, and what became of it. */
export interface OperatorActionSnapshot {
  readonly orderId: string;
  readonly action: string;
  /** Unique per action (the campaign numbers them), so its OperatorLog entry is found by it. */
  readonly reason: string;
  readonly seenState: string;
  readonly seenUpdatedAt: string;
  readonly at: number;
  /**
   * applied: 200; refused: 409 or 429 (nothing may be written); unknown: no answer (transport
   * error, 5xx), so the entry may or may not exist.
   */
  readonly outcome: 'applied' | 'refused' | 'unknown';
  readonly status?: number;
  /** StateChanged or NotAllowed for a 409. */
  readonly refusal?: string;
}

export interface OperatorObservation {
  /** The principal the campaign signs operator requests as (its OperatorLog `By`). */
  readonly identity: string;
  readonly actions: readonly OperatorActionSnapshot[];
}

export interface ClientObservation {
  /** The clients the campaign submitted as (the Clients output). */
  readonly clients: readonly string[];
  readonly deliveries: readonly ClientMessageDelivery[];
  readonly probes: readonly ReplyQueueProbe[];
  /**
   * SQS FIFO's deduplication window: a resend of a messageKey within it must have been dropped;
   * one later is the redelivery clients de-duplicate on messageKey (listed, not counted).
   */
  readonly deduplicationWindowMillis: number;
}

export interface CampaignSnapshot {
  readonly timings: WorkflowTimings;
  readonly terminalBoundMillis: number;
  readonly orders: readonly OrderOutcome[];
  readonly finalRecords: readonly RecordSnapshot[];
  readonly samples: readonly RecordSample[];
  readonly ledger: readonly LedgerEffectSnapshot[];
  /** The downstream's compensation answers (undos). */
  readonly undos: readonly LedgerUndoSnapshot[];
  /** The calls the downstream received, per key (every call counted, whatever its answer). */
  readonly calls: readonly LedgerCallsSnapshot[];
  /** The deployment's retry budget (the agents' RETRY_BUDGET), for records without their own. */
  readonly retryBudget: number;
  /** Requests by the app's own roles (and services) that IAM denied, as messages (iam-denials.ts). */
  readonly appDenials: readonly string[];
  readonly admission: AdmissionObservation;
  readonly alerts: readonly AlertSnapshot[];
  readonly faults: readonly FaultEvent[];
  readonly enabledKinds: readonly FaultKind[];
  readonly restarts: readonly RestartWindow[];
  /** The run is trivial below this share of Processed orders (of all planned orders). */
  readonly minProcessedShare: number;
  /** What the campaign did as operator (no actions when operator-actions is off). */
  readonly operator: OperatorObservation;
  /** The status messages taken from each client's reply queue, and the cross-client probes. */
  readonly clientMessages: ClientObservation;
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
const SERVICE_OF_STEP = new Map<string, string>(ORDER_STEPS.map((step) => [step.name, step.service]));
/** `<orderId>:<step>` is the stable key; anything after a further ':' is not part of it. */
export function parseIdempotencyKey(
  key: string,
): { orderId: string; step: string; stable: boolean } | undefined {
  const [orderId, step, ...rest] = key.split(':');
  if (!orderId || !step) return undefined;
  return { orderId, step, stable: rest.length === 0 };
}

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
  const passed = [...invariants, ...guards].every((entry) => entry.violations.length === 0);
  return { invariants, guards, messagesRedeliveredAfterWindow, passed };
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
 * The retry budget, measured at the dependency: the downstream's ledger counts every call per key.
 * Per order and operation (keys that only differ after the stable `<orderId>:<operation>` are one
 * operation), the calls received stay within the order's RetryBudget (the deployment's for a record
 * without one) and within what the agents reserved in CallsMade, since each call is reserved first.
 */
function callsWithinBudget(snapshot: CampaignSnapshot, records: Map<string, RecordSnapshot>): string[] {
  const violations: string[] = [];
  const received = new Map<string, { orderId: string; operation: string; calls: number }>();
  for (const entry of snapshot.calls) {
    const parsed = parseIdempotencyKey(entry.idempotencyKey);
    if (!parsed) continue;
    const key = `${parsed.orderId}:${parsed.step}`;
    const sum = received.get(key) ?? { orderId: parsed.orderId, operation: parsed.step, calls: 0 };
    received.set(key, { ...sum, calls: sum.calls + entry.calls });
  }
  for (const [key, { orderId, operation, calls }] of received) {
    const record = records.get(orderId);
    if (!record) continue;
    const budget = record.retryBudget ?? snapshot.retryBudget;
    const reserved = record.callsMade?.[operation] ?? 0;
    if (calls > budget) violations.push(`${key}: ${calls} calls received, RetryBudget ${budget}`);
    if (calls > reserved)
      violations.push(`${key}: ${calls} calls received, ${reserved} reserved in CallsMade`);
  }
  for (const record of snapshot.finalRecords) {
    const budget = record.retryBudget ?? snapshot.retryBudget;
    for (const [operation, reserved] of Object.entries(record.callsMade ?? {})) {
      if (reserved > budget) {
        violations.push(`${record.orderId}:${operation}: CallsMade ${reserved} > RetryBudget ${budget}`);
      }
    }
  }
  return violations;
}

function oneEffectPerKey(snapshot: CampaignSnapshot): string[] {
  const violations: string[] = [];
  const byRawKey = countBy(snapshot.ledger, (effect) => `${effect.service} ${effect.idempotencyKey}`);
  for (const [key, count] of byRawKey) {
    if (count > 1) violations.push(`${key}: ${count} effects under one ledger key`);
  }
  const byOperation = new Map<string, string[]>();
  for (const effect of snapshot.ledger) {
    const parsed = parseIdempotencyKey(effect.idempotencyKey);
    if (!parsed) {
      violations.push(
        `${effect.service} ${effect.idempotencyKey}: effect under a key that names no order and step`,
      );
      continue;
    }
    const operation = `${parsed.orderId}:${parsed.step}`;
    byOperation.set(operation, [...(byOperation.get(operation) ?? []), effect.idempotencyKey]);
  }
  for (const [operation, keys] of byOperation) {
    if (keys.length > 1) {
      violations.push(`${operation}: ${keys.length} effects (keys ${[...new Set(keys)].join(', ')})`);
    }
  }
  return violations;
}

function processedOneEffectPerStep(snapshot: CampaignSnapshot): string[] {
  const effectsByOrder = new Map<string, LedgerEffectSnapshot[]>();
  for (const effect of snapshot.ledger) {
    const parsed = parseIdempotencyKey(effect.idempotencyKey);
    if (!parsed) continue;
    effectsByOrder.set(parsed.orderId, [...(effectsByOrder.get(parsed.orderId) ?? []), effect]);
  }
  const violations: string[] = [];
  for (const record of snapshot.finalRecords) {
    if (record.processState !== ProcessState.Processed) continue;
    const effects = effectsByOrder.get(record.orderId) ?? [];
    // The record's Steps map holds exactly the steps of its workflow version.
    for (const step of ORDER_STEPS.filter((candidate) => record.steps[candidate.name] !== undefined)) {
      const ofStep = effects.filter(
        (effect) =>
          parseIdempotencyKey(effect.idempotencyKey)?.step === step.name && effect.service === step.service,
      );
      if (ofStep.length !== 1) {
        violations.push(
          `${record.orderId}: Processed with ${ofStep.length} ${step.service} effects for ${step.name}`,
        );
      }
    }
    const misrouted = effects.filter(
      (effect) =>
        SERVICE_OF_STEP.get(parseIdempotencyKey(effect.idempotencyKey)?.step ?? '') !== effect.service,
    );
    for (const effect of misrouted) {
      violations.push(
        `${record.orderId}: effect ${effect.idempotencyKey} recorded by the wrong service ${effect.service}`,
      );
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

/**
 * Each Compensated order: every step that was done (an effect in the ledger, or Completed in the
 * record, or a log entry written when it completed) is undone exactly once, by the step's own
 * compensation key, the record says so, and the undos ran in reverse step order (the ledger's undo
 * times, else the log's CompensatedAt). Every order: an undo that says `undone: true` undid an
 * effect that exists, and one that says `undone: false` left no effect standing under its key.
 */
function compensationExact(snapshot: CampaignSnapshot): string[] {
  const violations: string[] = [];
  const effectByKey = new Map(
    snapshot.ledger.map((effect) => [`${effect.service} ${effect.idempotencyKey}`, effect]),
  );
  const undosByTarget = new Map<string, LedgerUndoSnapshot[]>();
  for (const undo of snapshot.undos) {
    const target = `${undo.service} ${undo.undoes}`;
    undosByTarget.set(target, [...(undosByTarget.get(target) ?? []), undo]);
    const effect = effectByKey.get(target);
    const step = parseIdempotencyKey(undo.undoes);
    const definition = ORDER_STEPS.find((candidate) => candidate.name === step?.step);
    if (!step || !definition || definition.service !== undo.service) {
      violations.push(
        `${undo.service} ${undo.idempotencyKey}: undoes ${undo.undoes}, which names no step of ${undo.service}`,
      );
      continue;
    }
    const expectedKey = operationKey(step.orderId, definition.compensation.name);
    if (undo.idempotencyKey !== expectedKey) {
      violations.push(
        `${undo.service} ${undo.idempotencyKey}: undoes ${undo.undoes} under a key other than ${expectedKey}`,
      );
    }
    if (undo.undone && effect?.undoneBy !== undo.idempotencyKey) {
      violations.push(
        `${undo.idempotencyKey}: undone: true, but ${undo.undoes} has no ${undo.service} effect it undid (nothing was done)`,
      );
    }
    if (!undo.undone && effect !== undefined && effect.undoneBy === undefined) {
      violations.push(`${undo.idempotencyKey}: undone: false, yet the effect ${undo.undoes} stands`);
    }
  }
  for (const record of snapshot.finalRecords) {
    if (record.processState !== ProcessState.Compensated) continue;
    const undoneSteps: Array<{ step: string; at: number | undefined }> = [];
    for (const step of ORDER_STEPS.filter((candidate) => record.steps[candidate.name] !== undefined)) {
      const key = operationKey(record.orderId, step.name);
      const effect = effectByKey.get(`${step.service} ${key}`);
      const status = record.steps[step.name];
      const entry = record.compensationLog?.[step.name];
      const recordedDone =
        status === StepStatus.Completed || (entry !== undefined && entry.uncertain !== true);
      if (entry !== undefined && entry.status !== CompensationStatus.Compensated) {
        violations.push(
          `${record.orderId}: Compensated, but the log entry of ${step.name} is ${entry.status}`,
        );
      }
      if (effect === undefined) {
        if (recordedDone) {
          violations.push(
            `${record.orderId}: ${step.name} completed in the record, but no ${step.service} effect is in the ledger`,
          );
        }
        continue;
      }
      const undos = (undosByTarget.get(`${step.service} ${key}`) ?? []).filter((undo) => undo.undone);
      if (undos.length !== 1 || effect.undoneBy === undefined) {
        violations.push(
          `${record.orderId}: ${step.name} was done (${step.service} effect) and undone ${effect.undoneBy === undefined ? 0 : undos.length} times`,
        );
        continue;
      }
      if (status !== StepStatus.Compensated) {
        violations.push(`${record.orderId}: ${step.name} undone, but the record says ${status ?? 'nothing'}`);
      }
      undoneSteps.push({ step: step.name, at: undos[0]?.at ?? entry?.compensatedAt });
    }
    for (let later = 1; later < undoneSteps.length; later += 1) {
      const first = undoneSteps[later - 1];
      const second = undoneSteps[later];
      if (first?.at === undefined || second?.at === undefined) continue;
      if (second.at > first.at) {
        violations.push(
          `${record.orderId}: ${first.step} undone before ${second.step} (${second.at - first.at} ms earlier): not in reverse step order`,
        );
      }
    }
  }
  return violations;
}

/** A Processed order never started compensating: no log entry past Recorded, no undo downstream. */
function noProcessedWithCompensation(snapshot: CampaignSnapshot): string[] {
  const undoneOrders = countBy(snapshot.undos, (undo) => parseIdempotencyKey(undo.undoes)?.orderId ?? '?');
  const violations: string[] = [];
  for (const record of snapshot.finalRecords) {
    if (record.processState !== ProcessState.Processed) continue;
    for (const [step, entry] of Object.entries(record.compensationLog ?? {})) {
      if (entry.status !== CompensationStatus.Recorded) {
        violations.push(`${record.orderId}: Processed with the log entry of ${step} ${entry.status}`);
      }
    }
    const undos = undoneOrders.get(record.orderId) ?? 0;
    if (undos > 0) violations.push(`${record.orderId}: Processed with ${undos} undo(s) in the ledger`);
  }
  return violations;
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
