/**
 * The campaign plan: which orders exist and which faults each one meets. A pure function of the
 * settings (seed included), so a run can be reproduced and a failing order looked up by index.
 */

import { ScenarioSku } from '../../../lambdas/fakes/domain/remote-scenarios';
import {
  ORDER_STEPS,
  type StepName,
  type SubmitOrderRequest,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { ATTEMPT_FAULTS, type AttemptFault, FAILING_FAULTS, FAULT_KINDS, FaultKind } from './faults';
import { mulberry32, pick, type Random, shuffled } from './random';

export interface FaultRates {
  /** Share of orders planned to meet each attempt fault (an order meets at most one). */
  readonly attempt: Readonly<Record<AttemptFault, number>>;
  /** Share of orders with one SQS message (start or agent request) delivered twice. */
  readonly sqsDuplicate: number;
  /** Chance that any one remote call is answered 503 by the front door. */
  readonly remoteTransientPerCall: number;
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
    [FaultKind.AgentKilledAfterEffect]: 0.03,
    [FaultKind.TaskSuccessDropped]: 0.03,
    [FaultKind.TaskSuccessLate]: 0.03,
  },
  sqsDuplicate: 0.05,
  remoteTransientPerCall: 0.05,
};

/** Where a planned duplicate delivery happens: the order's first start request, or a step's request. */
export type DuplicateTarget = 'start' | StepName;

export interface OrderPlan {
  readonly index: number;
  readonly orderId: string;
  readonly request: SubmitOrderRequest;
  readonly attemptFault?: { readonly kind: AttemptFault; readonly step: StepName };
  /** Delay 0 delivers the copy alongside the original; a positive delay after it (usually processed). */
  readonly duplicate?: { readonly target: DuplicateTarget; readonly delayMillis: number };
  /** The plan makes success impossible (permanent refusal or an outage outlasting every attempt). */
  readonly mustFail: boolean;
}

export interface CampaignPlan {
  readonly seed: number;
  readonly orders: readonly OrderPlan[];
  /** Attempt faults by idempotency key (`<orderId>:<step>`), the way the injector sees requests. */
  readonly attemptFaultsByKey: ReadonlyMap<string, AttemptFault>;
}

const PAYMENT_STEP: StepName = 'ChargePayment';
const DUPLICATE_DELAYS_MILLIS = [0, 1_500] as const;

export function orderIdFor(seed: number, index: number): string {
  return `chaos-s${seed}-${String(index).padStart(5, '0')}`;
}

export function idempotencyKeyFor(orderId: string, step: StepName): string {
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
    ['sqsDuplicate', settings.rates.sqsDuplicate],
    ['remoteTransientPerCall', settings.rates.remoteTransientPerCall],
  ];
  for (const [name, rate] of rates) {
    if (!(rate >= 0 && rate <= 1)) throw new Error(`rate ${name} must be within [0, 1], got ${rate}`);
  }
  for (const kind of settings.enabledKinds) {
    if (!FAULT_KINDS.includes(kind)) {
      throw new Error(`Unknown fault kind '${kind}'. Known kinds: ${FAULT_KINDS.join(', ')}`);
    }
  }
  const plannedKinds = ATTEMPT_FAULTS.filter((kind) => settings.enabledKinds.includes(kind)).length;
  if (plannedKinds * settings.minOrdersPerKind > settings.orders) {
    throw new Error(
      `${settings.orders} orders cannot give ${plannedKinds} attempt fault kinds ${settings.minOrdersPerKind} orders each`,
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

  const steps = ORDER_STEPS.map((step) => step.name as StepName);
  const duplicateTargets: readonly DuplicateTarget[] = ['start', ...steps];
  const orders = assigned.map((kind, index): OrderPlan => {
    const orderId = orderIdFor(settings.seed, index);
    const step = kind === FaultKind.PermanentFailure ? PAYMENT_STEP : pick(steps, random);
    const duplicated = enabled(FaultKind.SqsDuplicate) && random() < settings.rates.sqsDuplicate;
    return {
      index,
      orderId,
      request: orderRequest(orderId, index, kind === FaultKind.PermanentFailure),
      ...(kind ? { attemptFault: { kind, step } } : {}),
      ...(duplicated
        ? {
            duplicate: {
              target: pick(duplicateTargets, random),
              delayMillis: pick(DUPLICATE_DELAYS_MILLIS, random),
            },
          }
        : {}),
      mustFail: kind !== undefined && FAILING_FAULTS.includes(kind),
    };
  });
  if (enabled(FaultKind.SqsDuplicate) && settings.minOrdersPerKind > 0) {
    ensureDuplicates(orders, settings.minOrdersPerKind, duplicateTargets, random);
  }
  const attemptFaultsByKey = new Map<string, AttemptFault>();
  for (const order of orders) {
    if (order.attemptFault) {
      attemptFaultsByKey.set(
        idempotencyKeyFor(order.orderId, order.attemptFault.step),
        order.attemptFault.kind,
      );
    }
  }
  return { seed: settings.seed, orders, attemptFaultsByKey };
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

function ensureDuplicates(
  orders: OrderPlan[],
  minimum: number,
  targets: readonly DuplicateTarget[],
  random: Random,
): void {
  const without = shuffled(
    orders.flatMap((order, index) => (order.duplicate ? [] : [index])),
    random,
  );
  let count = orders.length - without.length;
  while (count < minimum) {
    const index = without.pop();
    if (index === undefined) return;
    const order = orders[index] as OrderPlan;
    orders[index] = {
      ...order,
      duplicate: { target: pick(targets, random), delayMillis: pick(DUPLICATE_DELAYS_MILLIS, random) },
    };
    count += 1;
  }
}

function orderRequest(orderId: string, index: number, permanentFailure: boolean): SubmitOrderRequest {
  return {
    orderId,
    customerId: `customer-${index % 97}`,
    items: [
      {
        sku: permanentFailure ? ScenarioSku.PermanentFailure : `SKU-${(index % 13) + 1}`,
        quantity: (index % 3) + 1,
      },
    ],
    totalCents: 500 + ((index * 37) % 10_000),
    currency: 'EUR',
  };
}
