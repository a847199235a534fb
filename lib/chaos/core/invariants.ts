/**
 * The campaign's judge: a pure function from what was observed (final state records, samples taken
 * while the run went on, the downstream ledger, the operator alerts, the fault log) to a verdict per
 * invariant, plus the guards that fail a run as trivial. Nothing here talks to the system, so each
 * rule is tested with synthetic snapshots, one violation at a time.
 */
import {
  ORDER_STEPS,
  ProcessState,
  type WorkflowTimings,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { type FaultEvent, type FaultKind } from './faults';

export interface RecordSnapshot {
  readonly orderId: string;
  readonly processState: string;
  readonly lockedBy?: string;
  readonly failureCount: number;
  readonly attempt: number;
  /** Step name -> Status. */
  readonly steps: Readonly<Record<string, string>>;
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
}

export interface LedgerEffect {
  readonly service: string;
  readonly idempotencyKey: string;
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
  | 'lock-only-while-processing'
  | 'failure-count-within-threshold'
  | 'planned-failures-not-processed';

export type GuardId = 'orders-accepted' | 'processed-share' | 'every-fault-kind-fired';

export interface Verdict<Id extends string> {
  readonly id: Id;
  readonly title: string;
  readonly violations: readonly string[];
}

export interface CheckResult {
  readonly invariants: readonly Verdict<InvariantId>[];
  readonly guards: readonly Verdict<GuardId>[];
  /** Error orders with no alert whose Error came while a restart cut short the work that alerts. */
  readonly alertsLostAtRestart: readonly string[];
  readonly passed: boolean;
}

export const INVARIANT_TITLES: Readonly<Record<InvariantId, string>> = {
  'terminal-within-bound': 'every accepted order is terminal (Processed or Error) within the bound',
  'one-effect-per-key': 'at most one downstream effect per idempotency key (order and step)',
  'processed-one-effect-per-step': 'every Processed order has exactly one effect per step',
  'error-exactly-one-alert':
    'every Error order raised exactly one OrderFailed alert (and no other order did)',
  'lock-only-while-processing': 'no record holds LockedBy unless Processing',
  'failure-count-within-threshold': 'FailureCount never passes maxFailures',
  'planned-failures-not-processed': 'no order planned to fail (PERM-FAIL, outage) is Processed',
};

export const GUARD_TITLES: Readonly<Record<GuardId, string>> = {
  'orders-accepted': 'every planned order was accepted by the API',
  'processed-share': 'enough orders were Processed for the run to mean something',
  'every-fault-kind-fired': 'every enabled fault kind fired at least once',
};

const TERMINAL: readonly string[] = [ProcessState.Processed, ProcessState.Error];
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
    verdict('error-exactly-one-alert', errorExactlyOneAlert(snapshot, alertsLostAtRestart)),
    verdict('lock-only-while-processing', lockOnlyWhileProcessing(snapshot)),
    verdict('failure-count-within-threshold', failureCountWithinThreshold(snapshot)),
    verdict('planned-failures-not-processed', plannedFailuresNotProcessed(snapshot, records)),
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

function errorExactlyOneAlert(snapshot: CampaignSnapshot, lostAtRestart: string[]): string[] {
  const failedAlerts = snapshot.alerts.filter((alert) => alert.detailType === 'OrderFailed');
  const alertsByOrder = countBy(failedAlerts, (alert) => alert.orderId ?? '(no orderId)');
  const violations: string[] = [];
  const errorOrders = new Set<string>();
  for (const record of snapshot.finalRecords) {
    if (record.processState !== ProcessState.Error) continue;
    errorOrders.add(record.orderId);
    const count = alertsByOrder.get(record.orderId) ?? 0;
    if (count === 1) continue;
    if (count === 0 && errorDuringRestart(snapshot, record.orderId)) {
      lostAtRestart.push(record.orderId);
      continue;
    }
    violations.push(`${record.orderId}: Error with ${count} OrderFailed alerts`);
  }
  for (const [orderId, count] of alertsByOrder) {
    if (!errorOrders.has(orderId))
      violations.push(`${orderId}: ${count} OrderFailed alerts but not in Error`);
  }
  return violations;
}

/**
 * The order turned Error in a window that a restart cut short: the execution or supervisor run that
 * wrote Error may have been stopped before it published the alert.
 */
function errorDuringRestart(snapshot: CampaignSnapshot, orderId: string): boolean {
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
    if (record.lockedBy === undefined || record.processState === ProcessState.Processing) continue;
    const key = `${record.orderId} ${record.processState} ${record.lockedBy}`;
    if (seen.has(key)) continue;
    seen.add(key);
    violations.push(`${record.orderId}: ${record.processState} but LockedBy ${record.lockedBy}`);
  }
  return violations;
}

function failureCountWithinThreshold(snapshot: CampaignSnapshot): string[] {
  const worst = new Map<string, number>();
  for (const record of [...snapshot.samples, ...snapshot.finalRecords]) {
    if (record.failureCount > snapshot.timings.maxFailures) {
      worst.set(record.orderId, Math.max(worst.get(record.orderId) ?? 0, record.failureCount));
    }
  }
  return [...worst].map(
    ([orderId, count]) => `${orderId}: FailureCount ${count} > maxFailures ${snapshot.timings.maxFailures}`,
  );
}

function plannedFailuresNotProcessed(
  snapshot: CampaignSnapshot,
  records: Map<string, RecordSnapshot>,
): string[] {
  return snapshot.orders
    .filter((order) => order.mustFail && records.get(order.orderId)?.processState === ProcessState.Processed)
    .map((order) => `${order.orderId}: planned to fail but Processed`);
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
