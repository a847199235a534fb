/**
 * The campaign plan: which orders exist and which faults each one meets. A pure function of the
 * settings (seed included), so a run can be reproduced and a failing order looked up by index.
 */

import { PERMANENT_FAILURE_SKU, ScenarioSku } from '../../../lambdas/fakes/contracts';
import {
  type CompensationName,
  DEFAULT_WORKFLOW_VERSION,
  type OperationName,
  ProcessState,
  type StepName,
  type SubmitOrderRequest,
  workflowSteps,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { mulberry32, pick, type Random, shuffled } from '../common/random';
import {
  ATTEMPT_FAULTS,
  type AttemptFault,
  COMPENSATION_TARGETED_FAULTS,
  type CompensationTargetedFault,
  FAILING_FAULTS,
  FAULT_KINDS,
  type FailingFault,
  FaultKind,
  OPERATOR_PLAN_KINDS,
  OPERATOR_PLANNED_OUTCOMES,
  OperatorPlanKind,
  PLANNED_OUTCOMES,
} from './faults';

export interface FaultRates {
  /** Share of orders planned to meet each attempt fault (an order meets at most one). */
  readonly attempt: Readonly<Record<AttemptFault, number>>;
  /**
   * Share of the orders whose steps will be compensated (permanent-failure, compensation-transient)
   * that also meet an attempt fault on one of their compensation requests.
   */
  readonly compensationAttempt: number;
  /** Share of orders with one SQS message (start or agent request) delivered twice. */
  readonly sqsDuplicate: number;
  /** Chance that any one remote call is answered 503 by the front door. */
  readonly remoteTransientPerCall: number;
  /**
   * Share of the orders with no attempt fault that the campaign, as operator, cancels early, cancels
   * once Processed, or submits with the OUTAGE sku to retry after ending the outage (operator-actions).
   */
  readonly operator: Readonly<Record<OperatorPlanKind, number>>;
  /**
   * Alert bus outage windows per planned alert (alert-bus-outage): the alerts the plan makes (an
   * order planned to end Error or CompensationFailed, an OUTAGE order before its retry) times this
   * rate, at least minOrdersPerKind windows.
   */
  readonly alertBusOutage: number;
}

export interface PlanSettings {
  readonly orders: number;
  readonly seed: number;
  readonly rates: FaultRates;
  /** Every planned per-order kind gets at least this many orders, so a short run still covers it. */
  readonly minOrdersPerKind: number;
  /** Kinds switched on; the others are neither planned nor injected (and not required to fire). */
  readonly enabledKinds: readonly FaultKind[];
}

export const DEFAULT_FAULT_RATES: FaultRates = {
  attempt: {
    [FaultKind.RemoteLatency]: 0.03,
    [FaultKind.RemoteOutage]: 0.01,
    [FaultKind.PermanentFailure]: 0.03,
    [FaultKind.CompensationTransient]: 0.02,
    [FaultKind.CompensationRefused]: 0.01,
    [FaultKind.AgentKilledAfterEffect]: 0.03,
    [FaultKind.TaskSuccessDropped]: 0.03,
    [FaultKind.TaskSuccessLate]: 0.03,
  },
  compensationAttempt: 0.5,
  sqsDuplicate: 0.05,
  remoteTransientPerCall: 0.05,
  operator: {
    [OperatorPlanKind.CancelEarly]: 0.03,
    [OperatorPlanKind.CancelProcessed]: 0.03,
    [OperatorPlanKind.OutageRetry]: 0.01,
  },
  alertBusOutage: 0.1,
};

/**
 * Where a planned duplicate delivery happens: the order's first start request, or the agent request
 * of an operation (a step, or a compensation the order will run).
 */
export type DuplicateTarget = 'start' | OperationName;

export interface OrderPlan {
  readonly index: number;
  readonly orderId: string;
  readonly request: SubmitOrderRequest;
  /** The order's one attempt fault; for the failing kinds, `step` is the step that fails. */
  readonly attemptFault?: { readonly kind: AttemptFault; readonly step: StepName };
  /**
   * An attempt fault on one of the order's compensation requests (keyed
   * `<orderId>:<CompensationName>`): only on orders whose completed steps will be undone.
   */
  readonly compensationFault?: {
    readonly kind: CompensationTargetedFault;
    readonly compensation: CompensationName;
  };
  /** Delay 0 delivers the copy alongside the original; a positive delay after it (usually processed). */
  readonly duplicate?: { readonly target: DuplicateTarget; readonly delayMillis: number };
  /** The plan makes success impossible (permanent refusal or an outage outlasting every attempt). */
  readonly mustFail: boolean;
  /**
   * How a failing plan must end (Error, Compensated or CompensationFailed), or an operator plan
   * (OPERATOR_PLANNED_OUTCOMES).
   */
  readonly expectedOutcome?: ProcessState;
  /** What the campaign does to it as operator (operator-actions; only on orders with no attempt fault). */
  readonly operator?: OperatorPlanKind;
}

/** How the alert bus fails a PutEvents in an outage window. */
export const AlertBusFailure = {
  /** HTTP 500 InternalException (the SDK retries it, each attempt failing while the window lasts). */
  Error: 'error',
  /** HTTP 200 with FailedEntryCount = the entries sent, each with an ErrorCode: how PutEvents drops an entry. */
  FailedEntry: 'failed-entry',
} as const;
export type AlertBusFailure = (typeof AlertBusFailure)[keyof typeof AlertBusFailure];

/**
 * One alert bus outage (alert-bus-outage). Windows are counted in alerts, not in time, so a short
 * run still has alerts to fail: window i opens at the first PutEvents carrying an alert the bus has
 * not seen before, once `afterAlerts` distinct alerts were seen and window i-1 has closed; from
 * then on every alert PutEvents fails (retries and redeliveries of earlier alerts too) for
 * `durationMillis`.
 */
export interface AlertBusOutage {
  readonly afterAlerts: number;
  readonly durationMillis: number;
  readonly failure: AlertBusFailure;
}

/**
 * An alert the relay could not publish is left in the outbox for the supervisor, which re-delivers
 * it once it is older than alertRedeliveryGraceSeconds (60 s by default). Short windows close well
 * before that (the backstop's first try delivers); long ones outlast it, so the backstop's own
 * publish fails too and a later run delivers. Windows alternate short and long, and the failures
 * alternate from a seeded start.
 */
const ALERT_OUTAGE_MILLIS = { short: [2_000, 8_000], long: [65_000, 80_000] } as const;

export interface CampaignPlan {
  readonly seed: number;
  readonly orders: readonly OrderPlan[];
  /** Alert bus outage windows, in the order they open (none when alert-bus-outage is off). */
  readonly alertBusOutages: readonly AlertBusOutage[];
  /**
   * Attempt faults by idempotency key (`<orderId>:<step>` or `<orderId>:<CompensationName>`), the
   * way the injector sees requests.
   */
  readonly attemptFaultsByKey: ReadonlyMap<string, AttemptFault>;
}

/**
 * The steps of the orders the campaign submits: those of the workflow version its assembly gives
 * new orders (synthesized without a workflowVersion context, so the default).
 */
export const CAMPAIGN_STEPS = workflowSteps(DEFAULT_WORKFLOW_VERSION);
const STEPS: readonly StepName[] = CAMPAIGN_STEPS.map((step) => step.name);
const SHIPPING_STEP: StepName = 'ScheduleShipping';
const DUPLICATE_DELAYS_MILLIS = [0, 1_500] as const;

/**
 * The steps a failing kind may fail at: a permanent failure anywhere (every prefix of steps gets
 * compensated, the empty one too); a flaky compensation needs something to undo, so past the first
 * step; the refused compensation is PERM-FAIL-SHIPPING (UNDO-FAIL refuses the refund first).
 */
const FAILING_STEPS: Readonly<Record<FailingFault, readonly StepName[]>> = {
  [FaultKind.RemoteOutage]: STEPS,
  [FaultKind.PermanentFailure]: STEPS,
  [FaultKind.CompensationTransient]: STEPS.slice(1),
  [FaultKind.CompensationRefused]: [SHIPPING_STEP],
};

function isFailing(kind: AttemptFault | undefined): kind is FailingFault {
  return kind !== undefined && FAILING_FAULTS.includes(kind);
}

/** Compensations the order will run, in the order they run (reverse step order), when it compensates. */
export function compensationsRun(
  kind: AttemptFault | undefined,
  failingStep: StepName | undefined,
): CompensationName[] {
  if (failingStep === undefined) return [];
  const done = CAMPAIGN_STEPS.slice(0, STEPS.indexOf(failingStep)).reverse();
  const names = done.map((step) => step.compensation.name as CompensationName);
  if (kind === FaultKind.PermanentFailure || kind === FaultKind.CompensationTransient) return names;
  // UNDO-FAIL: the first compensation is refused and the chain stops there.
  if (kind === FaultKind.CompensationRefused) return names.slice(0, 1);
  return [];
}

export function orderIdFor(seed: number, index: number): string {
  return `chaos-s${seed}-${String(index).padStart(5, '0')}`;
}

export function idempotencyKeyFor(orderId: string, step: OperationName): string {
  return `${orderId}:${step}`;
}

export function validatePlanSettings(settings: PlanSettings): void {
  if (!Number.isInteger(settings.orders) || settings.orders < 1) {
    throw new Error(`orders must be a positive integer, got ${settings.orders}`);
  }
  if (!Number.isInteger(settings.seed) || settings.seed < 0 || settings.seed > 0xffffffff) {
    throw new Error(`seed must be an integer from 0 to 4294967295, got ${settings.seed}`);
  }
  const rates: Array<[string, number]> = [
    ...Object.entries(settings.rates.attempt).map(([kind, rate]): [string, number] => [kind, rate]),
    ['compensationAttempt', settings.rates.compensationAttempt],
    ['sqsDuplicate', settings.rates.sqsDuplicate],
    ['remoteTransientPerCall', settings.rates.remoteTransientPerCall],
    ['alertBusOutage', settings.rates.alertBusOutage],
    ...Object.entries(settings.rates.operator).map(([kind, rate]): [string, number] => [kind, rate]),
  ];
  for (const [name, rate] of rates) {
    if (!(rate >= 0 && rate <= 1)) throw new Error(`rate ${name} must be within [0, 1], got ${rate}`);
  }
  for (const kind of settings.enabledKinds) {
    if (!FAULT_KINDS.includes(kind)) {
      throw new Error(`Unknown fault kind '${kind}'. Known kinds: ${FAULT_KINDS.join(', ')}`);
    }
  }
  if (
    settings.enabledKinds.includes(FaultKind.AlertBusOutage) &&
    !ALERTING_KINDS.some((kind) => settings.enabledKinds.includes(kind))
  ) {
    throw new Error(
      `${FaultKind.AlertBusOutage} needs alerts to fail: enable one of ${ALERTING_KINDS.join(', ')}`,
    );
  }
  const plannedKinds =
    ATTEMPT_FAULTS.filter((kind) => settings.enabledKinds.includes(kind)).length +
    (settings.enabledKinds.includes(FaultKind.OperatorActions) ? OPERATOR_PLAN_KINDS.length : 0);
  if (plannedKinds * settings.minOrdersPerKind > settings.orders) {
    throw new Error(
      `${settings.orders} orders cannot give ${plannedKinds} attempt fault kinds and operator plans ${settings.minOrdersPerKind} orders each`,
    );
  }
}

/**
 * Plans the campaign. Attempt faults are drawn per order at their rates, then topped up so each
 * enabled kind has at least minOrdersPerKind orders; duplicates are drawn independently.
 */
export function planCampaign(settings: PlanSettings): CampaignPlan {
  validatePlanSettings(settings);
  const random = mulberry32(settings.seed);
  const enabled = (kind: FaultKind) => settings.enabledKinds.includes(kind);
  const attemptKinds = ATTEMPT_FAULTS.filter(enabled);
  const assigned: Array<AttemptFault | undefined> = Array.from({ length: settings.orders }, () => {
    let draw = random();
    for (const kind of attemptKinds) {
      const rate = settings.rates.attempt[kind];
      if (draw < rate) return kind;
      draw -= rate;
    }
    return undefined;
  });
  topUp(assigned, attemptKinds, settings.minOrdersPerKind, random);

  const compensationKinds = COMPENSATION_TARGETED_FAULTS.filter(enabled);
  const orders = assigned.map((kind, index): OrderPlan => {
    const orderId = orderIdFor(settings.seed, index);
    const step = isFailing(kind) ? pick(FAILING_STEPS[kind], random) : pick(STEPS, random);
    const compensations = compensationsRun(kind, isFailing(kind) ? step : undefined);
    // A refused compensation ends the chain: faults on it would never fire.
    const targetable = kind === FaultKind.CompensationRefused ? [] : compensations;
    const compensationFault =
      targetable.length > 0 && compensationKinds.length > 0 && random() < settings.rates.compensationAttempt
        ? { kind: pick(compensationKinds, random), compensation: pick(targetable, random) }
        : undefined;
    const duplicated = enabled(FaultKind.SqsDuplicate) && random() < settings.rates.sqsDuplicate;
    return {
      index,
      orderId,
      request: orderRequest(orderId, index, kind, step),
      ...(kind ? { attemptFault: { kind, step } } : {}),
      ...(compensationFault ? { compensationFault } : {}),
      ...(duplicated
        ? {
            duplicate: {
              target: pick(duplicateTargetsOf(kind, step), random),
              delayMillis: pick(DUPLICATE_DELAYS_MILLIS, random),
            },
          }
        : {}),
      mustFail: isFailing(kind),
      ...(isFailing(kind) ? { expectedOutcome: PLANNED_OUTCOMES[kind] } : {}),
    };
  });
  if (compensationKinds.length > 0 && settings.minOrdersPerKind > 0) {
    ensureCompensationFaults(orders, settings.minOrdersPerKind, compensationKinds, random);
  }
  if (enabled(FaultKind.SqsDuplicate) && settings.minOrdersPerKind > 0) {
    ensureDuplicates(orders, settings.minOrdersPerKind, random);
  }
  if (enabled(FaultKind.OperatorActions)) {
    planOperatorActions(orders, settings.rates.operator, settings.minOrdersPerKind, random);
  }
  const attemptFaultsByKey = new Map<string, AttemptFault>();
  for (const order of orders) {
    if (order.attemptFault) {
      attemptFaultsByKey.set(
        idempotencyKeyFor(order.orderId, order.attemptFault.step),
        order.attemptFault.kind,
      );
    }
    if (order.compensationFault) {
      attemptFaultsByKey.set(
        idempotencyKeyFor(order.orderId, order.compensationFault.compensation),
        order.compensationFault.kind,
      );
    }
  }
  const alertBusOutages = enabled(FaultKind.AlertBusOutage)
    ? planAlertBusOutages(orders, settings.rates.alertBusOutage, settings.minOrdersPerKind, random)
    : [];
  return { seed: settings.seed, orders, alertBusOutages, attemptFaultsByKey };
}

/** Kinds whose orders raise an alert (Error, CompensationFailed, an OUTAGE order's Error). */
const ALERTING_KINDS: readonly FaultKind[] = [
  FaultKind.RemoteOutage,
  FaultKind.CompensationRefused,
  FaultKind.OperatorActions,
];

/** Alerts the plan makes: orders planned to end Error or CompensationFailed, OUTAGE orders once. */
export function plannedAlertCount(orders: readonly OrderPlan[]): number {
  return orders.filter(
    (order) =>
      order.expectedOutcome === ProcessState.Error ||
      order.expectedOutcome === ProcessState.CompensationFailed ||
      order.operator === OperatorPlanKind.OutageRetry,
  ).length;
}

/**
 * The alert bus outage windows: `rate` per planned alert, at least `minimum`, opening at seeded
 * alert counts within the first half of the planned alerts (so the windows, a long one's backstop
 * delivery included, end while other orders still run rather than lengthening the run).
 */
function planAlertBusOutages(
  orders: readonly OrderPlan[],
  rate: number,
  minimum: number,
  random: Random,
): AlertBusOutage[] {
  const alerts = plannedAlertCount(orders);
  const windows = Math.max(minimum, Math.round(alerts * rate), 1);
  const openings = Math.max(1, Math.ceil(alerts / 2));
  const afterAlerts = Array.from({ length: windows }, () => Math.floor(random() * openings)).sort(
    (left, right) => left - right,
  );
  const failures = Object.values(AlertBusFailure);
  const firstFailure = Math.floor(random() * failures.length);
  return afterAlerts.map((after, index) => {
    const [low, high] = index % 2 === 0 ? ALERT_OUTAGE_MILLIS.short : ALERT_OUTAGE_MILLIS.long;
    return {
      afterAlerts: after,
      durationMillis: Math.round(low + random() * (high - low)),
      failure: failures[(firstFailure + index) % failures.length] as AlertBusFailure,
    };
  });
}

/**
 * Requests of the order that will exist: the start, every step up to the failing one (all of them
 * when none fails for good) and the compensations it will run.
 */
function duplicateTargetsOf(kind: AttemptFault | undefined, step: StepName): DuplicateTarget[] {
  if (!isFailing(kind) || kind === FaultKind.RemoteOutage) return ['start', ...STEPS];
  return ['start', ...STEPS.slice(0, STEPS.indexOf(step) + 1), ...compensationsRun(kind, step)];
}

/**
 * Every compensating order can carry a compensation fault; make sure at least `minimum` do (as far
 * as there are such orders), cycling through the enabled kinds, so a short run still makes the
 * supervisor resume a compensation.
 */
function ensureCompensationFaults(
  orders: OrderPlan[],
  minimum: number,
  kinds: readonly CompensationTargetedFault[],
  random: Random,
): void {
  const candidates = shuffled(
    orders.flatMap((order, index) =>
      !order.compensationFault &&
      order.attemptFault &&
      order.attemptFault.kind !== FaultKind.CompensationRefused &&
      compensationsRun(order.attemptFault.kind, order.attemptFault.step).length > 0
        ? [index]
        : [],
    ),
    random,
  );
  let count = orders.filter((order) => order.compensationFault).length;
  while (count < minimum) {
    const index = candidates.pop();
    if (index === undefined) return;
    const order = orders[index] as OrderPlan;
    const attempt = order.attemptFault as NonNullable<OrderPlan['attemptFault']>;
    orders[index] = {
      ...order,
      compensationFault: {
        kind: kinds[count % kinds.length] as CompensationTargetedFault,
        compensation: pick(compensationsRun(attempt.kind, attempt.step), random),
      },
    };
    count += 1;
  }
}

function topUp(
  assigned: Array<AttemptFault | undefined>,
  kinds: readonly AttemptFault[],
  minimum: number,
  random: Random,
): void {
  const free = shuffled(
    assigned.flatMap((kind, index) => (kind === undefined ? [index] : [])),
    random,
  );
  for (const kind of kinds) {
    let count = assigned.filter((candidate) => candidate === kind).length;
    while (count < minimum) {
      const index = free.pop();
      if (index === undefined) {
        // Not enough fault-free orders left: take one from the most common kind above its minimum.
        const donor = assigned.findIndex(
          (candidate) =>
            candidate !== undefined &&
            candidate !== kind &&
            assigned.filter((other) => other === candidate).length > minimum,
        );
        if (donor < 0) throw new Error(`Cannot give fault kind ${kind} ${minimum} orders`);
        assigned[donor] = kind;
      } else {
        assigned[index] = kind;
      }
      count += 1;
    }
  }
}

function ensureDuplicates(orders: OrderPlan[], minimum: number, random: Random): void {
  const without = shuffled(
    orders.flatMap((order, index) => (order.duplicate ? [] : [index])),
    random,
  );
  let count = orders.length - without.length;
  while (count < minimum) {
    const index = without.pop();
    if (index === undefined) return;
    const order = orders[index] as OrderPlan;
    const targets = duplicateTargetsOf(order.attemptFault?.kind, order.attemptFault?.step ?? SHIPPING_STEP);
    orders[index] = {
      ...order,
      duplicate: { target: pick(targets, random), delayMillis: pick(DUPLICATE_DELAYS_MILLIS, random) },
    };
    count += 1;
  }
}

/**
 * Gives orders with no attempt fault an operator plan, drawn at its rate, then topped up to
 * `minimum` per kind. Outage-retry orders are taken from the first half of the plan: each waits
 * out maxFailures attempts before the campaign can retry it, so one submitted last would
 * lengthen the run by that much.
 */
function planOperatorActions(
  orders: OrderPlan[],
  rates: Readonly<Record<OperatorPlanKind, number>>,
  minimum: number,
  random: Random,
): void {
  const free = () => orders.flatMap((order, index) => (order.attemptFault || order.operator ? [] : [index]));
  const assign = (index: number, kind: OperatorPlanKind) => {
    const order = orders[index] as OrderPlan;
    orders[index] = {
      ...order,
      operator: kind,
      expectedOutcome: OPERATOR_PLANNED_OUTCOMES[kind],
      ...(kind === OperatorPlanKind.OutageRetry
        ? { request: { ...order.request, items: [{ sku: ScenarioSku.Outage, quantity: 1 }] } }
        : {}),
    };
  };
  const firstHalf = Math.max(1, Math.ceil(orders.length / 2));
  for (const index of free()) {
    let draw = random();
    for (const kind of OPERATOR_PLAN_KINDS) {
      const rate = rates[kind];
      if (draw < rate) {
        if (kind !== OperatorPlanKind.OutageRetry || index < firstHalf) assign(index, kind);
        break;
      }
      draw -= rate;
    }
  }
  for (const kind of OPERATOR_PLAN_KINDS) {
    let count = orders.filter((order) => order.operator === kind).length;
    const candidates = shuffled(
      free().filter((index) => kind !== OperatorPlanKind.OutageRetry || index < firstHalf),
      random,
    );
    while (count < minimum) {
      const index = candidates.pop();
      if (index === undefined) break;
      assign(index, kind);
      count += 1;
    }
  }
}

/** The SKUs that make the fake downstream play the order's failing fault, if it has one. */
export function scenarioSkusFor(kind: AttemptFault | undefined, step: StepName): string[] {
  if (!isFailing(kind) || kind === FaultKind.RemoteOutage) return [];
  const refusal = PERMANENT_FAILURE_SKU[CAMPAIGN_STEPS[STEPS.indexOf(step)]?.service ?? 'payment'];
  if (kind === FaultKind.CompensationTransient) return [refusal, ScenarioSku.UndoFlaky];
  if (kind === FaultKind.CompensationRefused) return [refusal, ScenarioSku.UndoFail];
  return [refusal];
}

function orderRequest(
  orderId: string,
  index: number,
  kind: AttemptFault | undefined,
  step: StepName,
): SubmitOrderRequest {
  const scenario = scenarioSkusFor(kind, step);
  return {
    orderId,
    customerId: `customer-${index % 97}`,
    items:
      scenario.length > 0
        ? scenario.map((sku) => ({ sku, quantity: (index % 3) + 1 }))
        : [{ sku: `SKU-${(index % 13) + 1}`, quantity: (index % 3) + 1 }],
    totalCents: 500 + ((index * 37) % 10_000),
    currency: 'EUR',
  };
}
