/**
 * The campaign's judge: a pure function from what was observed (final state records, samples taken
 * while the run went on, the downstream ledger, the operator alerts, the fault log) to a verdict per
 * invariant, plus the guards that fail a run as trivial. Nothing here talks to the system, so each
 * rule is tested with synthetic snapshots, one violation at a time.
 */
import {
  AlertType,
  CompensationStatus,
  ORDER_STEPS,
  operationKey,
  ProcessState,
  StepStatus,
  TERMINAL_STATES,
  type WorkflowTimings,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { type FaultEvent, type FaultKind } from './faults';

/** One CompensationLog.<Step> entry as the checker needs it. */
export interface CompensationEntrySnapshot {
  /** Recorded | Compensating | Compensated | Failed. */
  readonly status: string;
  /** Created for a TimedOut step undone just in case (the step may never have been done). */
  readonly uncertain?: boolean;
  /** CompensatedAt, epoch millis. */
  readonly compensatedAt?: number;
  /** The compensating service's answer: false when it had nothing to undo. */
  readonly undone?: boolean;
}

export interface RecordSnapshot {
  readonly orderId: string;
  readonly processState: string;
  readonly lockedBy?: string;
  readonly failureCount: number;
  /** Compensation attempts the supervisor declared failed. @default 0 */
  readonly compensationFailureCount?: number;
  readonly attempt: number;
  /** Step name -> Status. */
  readonly steps: Readonly<Record<string, string>>;
  /** Step name -> its compensation log entry (absent: no entry). */
  readonly compensationLog?: Readonly<Record<string, CompensationEntrySnapshot>>;
}

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
}

export interface LedgerEffect {
  readonly service: string;
  readonly idempotencyKey: string;
  /** The compensation key that undid it; absent while it stands. */
  readonly undoneBy?: string;
}

/** A compensation's answer in the ledger (once per compensation key). */
export interface LedgerUndoSnapshot {
  readonly service: string;
  /** The compensation's own key, `<orderId>:<CompensationName>`. */
  readonly idempotencyKey: string;
  /** The key of the effect it undoes, `<orderId>:<StepName>`. */
  readonly undoes: string;
  /** True: an effect was undone; false: there was none (the key was closed instead). */
  readonly undone: boolean;
  /** When the service recorded it, epoch millis. */
  readonly at?: number;
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

export interface AlertSnapshot {
  readonly detailType: string;
  readonly orderId?: string;
  readonly reason?: string;
}

/** A stop/start of the runtime: work in flight then (an execution, a supervisor run) is cut short. */
export interface RestartWindow {
  /** Alerts that reached the inbox before this were drained and kept. */
  readonly lastDrainAt: number;
  readonly stoppedAt: number;
  readonly readyAt: number;
}

export interface CampaignSnapshot {
  readonly timings: WorkflowTimings;
  readonly terminalBoundMillis: number;
  readonly orders: readonly OrderOutcome[];
  readonly finalRecords: readonly RecordSnapshot[];
  readonly samples: readonly RecordSample[];
  readonly ledger: readonly LedgerEffect[];
  /** The downstream's compensation answers (undos). */
  readonly undos: readonly LedgerUndoSnapshot[];
  readonly admission: AdmissionObservation;
  readonly alerts: readonly AlertSnapshot[];
  readonly faults: readonly FaultEvent[];
  readonly enabledKinds: readonly FaultKind[];
  readonly restarts: readonly RestartWindow[];
  /** The run is trivial below this share of Processed orders (of all planned orders). */
  readonly minProcessedShare: number;
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
  | 'planned-outcomes';

export type GuardId = 'orders-accepted' | 'processed-share' | 'every-fault-kind-fired';

export interface Verdict<Id extends string> {
  readonly id: Id;
  readonly title: string;
  readonly violations: readonly string[];
}

export interface CheckResult {
  readonly invariants: readonly Verdict<InvariantId>[];
  readonly guards: readonly Verdict<GuardId>[];
  /**
   * Error or CompensationFailed orders with no alert whose terminal state came while a restart cut
   * short the work that alerts (`<orderId> (<state>)`).
   */
  readonly alertsLostAtRestart: readonly string[];
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
    'every order planned to fail ends as planned (outage: Error; permanent failure: Compensated; refused compensation: CompensationFailed), or by a threshold (Error before its failing step ran, CompensationFailed once compensation attempts ran out)',
};

export const GUARD_TITLES: Readonly<Record<GuardId, string>> = {
  'orders-accepted': 'every planned order was accepted by the API',
  'processed-share': 'enough orders were Processed for the run to mean something',
  'every-fault-kind-fired': 'every enabled fault kind fired at least once',
};

const TERMINAL: readonly string[] = TERMINAL_STATES;
/** Where a lock may be held: the states an attempt works in. */
const LOCKED_STATES: readonly string[] = [ProcessState.Processing, ProcessState.CompensationInProgress];
const SERVICE_OF_STEP = new Map<string, string>(ORDER_STEPS.map((step) => [step.name, step.service]));
/** A restart may swallow an alert published up to this long after the last drain began. */
const ALERT_DRAIN_MARGIN_MILLIS = 2_000;
/** Examples listed per violated invariant; the count is always complete. */
const MAX_EXAMPLES = 10;

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
  const alertsLostAtRestart: string[] = [];
  const invariants: Verdict<InvariantId>[] = [
    verdict('terminal-within-bound', terminalWithinBound(snapshot, records)),
    verdict('one-effect-per-key', oneEffectPerKey(snapshot)),
    verdict('processed-one-effect-per-step', processedOneEffectPerStep(snapshot)),
    verdict(
      'error-exactly-one-alert',
      exactlyOneAlert(snapshot, ProcessState.Error, AlertType.OrderFailed, alertsLostAtRestart),
    ),
    verdict(
      'compensation-failed-alerted',
      exactlyOneAlert(
        snapshot,
        ProcessState.CompensationFailed,
        AlertType.CompensationFailed,
        alertsLostAtRestart,
      ),
    ),
    verdict('compensation-exact', compensationExact(snapshot)),
    verdict('no-processed-with-compensation', noProcessedWithCompensation(snapshot)),
    verdict('lock-only-while-processing', lockOnlyWhileProcessing(snapshot)),
    verdict('failure-count-within-threshold', failureCountWithinThreshold(snapshot)),
    verdict('in-flight-within-limit', inFlightWithinLimit(snapshot)),
    verdict('accepted-never-refused', [...snapshot.admission.refusedAfterAcceptance]),
    verdict('planned-failures-not-processed', plannedFailuresNotProcessed(snapshot, records)),
    verdict('planned-outcomes', plannedOutcomes(snapshot, records)),
  ];
  const guards: Verdict<GuardId>[] = [
    guard('orders-accepted', ordersAccepted(snapshot)),
    guard('processed-share', processedShare(snapshot, records)),
    guard('every-fault-kind-fired', everyFaultKindFired(snapshot)),
  ];
  const passed = [...invariants, ...guards].every((entry) => entry.violations.length === 0);
  return { invariants, guards, alertsLostAtRestart, passed };
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
    const allowed = snapshot.terminalBoundMillis + restartDowntimeDuring(snapshot.restarts, order);
    const took = order.terminalAt - order.acceptedAt;
    if (took > allowed) {
      violations.push(`${order.orderId}: ${record.processState} after ${took} ms, bound ${allowed} ms`);
    }
  }
  return violations;
}

/**
 * Time the runtime was down while an order (or a delivery) was in flight: nothing can progress
 * then. Shared by every campaign's terminal bound.
 */
export function restartDowntimeDuring(
  restarts: readonly RestartWindow[],
  subject: { readonly acceptedAt?: number | undefined; readonly terminalAt?: number | undefined },
): number {
  const start = subject.acceptedAt ?? 0;
  const end = subject.terminalAt ?? Number.POSITIVE_INFINITY;
  return restarts
    .filter((restart) => restart.readyAt > start && restart.lastDrainAt < end)
    .reduce((sum, restart) => sum + (restart.readyAt - restart.lastDrainAt), 0);
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
  const effectsByOrder = new Map<string, LedgerEffect[]>();
  for (const effect of snapshot.ledger) {
    const parsed = parseIdempotencyKey(effect.idempotencyKey);
    if (!parsed) continue;
    effectsByOrder.set(parsed.orderId, [...(effectsByOrder.get(parsed.orderId) ?? []), effect]);
  }
  const violations: string[] = [];
  for (const record of snapshot.finalRecords) {
    if (record.processState !== ProcessState.Processed) continue;
    const effects = effectsByOrder.get(record.orderId) ?? [];
    for (const step of ORDER_STEPS) {
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
 * Every order in `state` raised exactly one alert of `detailType`, and no order in another state
 * raised one. An order whose terminal state came while a restart cut short the work that alerts
 * (the supervisor run or execution that wrote it) and has none is listed, not counted.
 */
function exactlyOneAlert(
  snapshot: CampaignSnapshot,
  state: string,
  detailType: string,
  lostAtRestart: string[],
): string[] {
  const alerts = snapshot.alerts.filter((alert) => alert.detailType === detailType);
  const alertsByOrder = countBy(alerts, (alert) => alert.orderId ?? '(no orderId)');
  const violations: string[] = [];
  const inState = new Set<string>();
  for (const record of snapshot.finalRecords) {
    if (record.processState !== state) continue;
    inState.add(record.orderId);
    const count = alertsByOrder.get(record.orderId) ?? 0;
    if (count === 1) continue;
    if (count === 0 && terminalDuringRestart(snapshot, record.orderId)) {
      lostAtRestart.push(`${record.orderId} (${state})`);
      continue;
    }
    violations.push(`${record.orderId}: ${state} with ${count} ${detailType} alerts`);
  }
  for (const [orderId, count] of alertsByOrder) {
    if (!inState.has(orderId))
      violations.push(`${orderId}: ${count} ${detailType} alerts but not in ${state}`);
  }
  return violations;
}

/**
 * The order turned terminal (Error, CompensationFailed) in a window that a restart cut short: the
 * execution or supervisor run that wrote it may have been stopped before it published the alert.
 */
function terminalDuringRestart(snapshot: CampaignSnapshot, orderId: string): boolean {
  const terminalAt = snapshot.orders.find((order) => order.orderId === orderId)?.terminalAt;
  if (terminalAt === undefined) return false;
  return snapshot.restarts.some(
    (restart) =>
      terminalAt >= restart.lastDrainAt - ALERT_DRAIN_MARGIN_MILLIS && terminalAt <= restart.readyAt,
  );
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
    for (const step of ORDER_STEPS) {
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
    const failingStepRan =
      order.failingStep !== undefined && record.steps[order.failingStep] === StepStatus.Failed;
    if (record.processState === ProcessState.Error && !failingStepRan) continue;
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

export function countBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(keyOf(item), (counts.get(keyOf(item)) ?? 0) + 1);
  return counts;
}

/** The first few violations of a verdict, for printing; the full list stays in the result. */
export function examples(entry: Verdict<string>): readonly string[] {
  return entry.violations.slice(0, MAX_EXAMPLES);
}
