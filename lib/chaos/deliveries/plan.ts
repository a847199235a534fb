/**
 * The delivery campaign's plan: which deliveries exist (happy, too heavy, out of range, failing in
 * flight, bursts on the fleet), which faults each meets, and which outcomes each may end in. A pure
 * function of the settings (seed and the synthesized service limits included).
 */
import {
  type DeliveryStatus,
  type OutboxDestination,
  ServiceName,
  DeliveryStatus as Status,
  type SubmitDeliveryRequest,
} from '../../../lambdas/choreography/contracts';
import { FAULTED_CONSUMERS, type FaultedConsumer } from '../../harness/deliveries-snapshots';
import { mulberry32, pick, type Random, shuffled } from '../common/random';
import { DELIVERY_FAULT_KINDS, DeliveryFaultKind } from './faults';

export type Scenario = 'happy' | 'too-heavy' | 'out-of-range' | 'flight-fail';

/**
 * The consumers whose SQS event source delivers copies: the services' and the ingestion read
 * model's projection (a subscriber of the bus, whose history must take each event once).
 */
export const DUPLICATED_CONSUMERS = [...FAULTED_CONSUMERS, ServiceName.Ingestion] as const;
export type DuplicatedConsumer = (typeof DUPLICATED_CONSUMERS)[number];

/**
 * The relay destinations whose publish calls fail (the alert bus is not on a delivery's path). Not
 * the delivery queue: the SQS client sends to the queue URL's host, past the awsApi proxy.
 */
export const FAULTED_DESTINATIONS = ['requests-topic', 'delivery-bus'] as const;
export type FaultedDestination = (typeof FAULTED_DESTINATIONS)[number] & OutboxDestination;

/** The synthesized limits the plan builds its deliveries against (from SERVICE_SETTINGS). */
export interface ServiceLimits {
  readonly maxPayloadGrams: number;
  readonly maxRangeKm: number;
  readonly failingDeliveryPrefix: string;
  readonly maxReceiveAttempts: number;
  /** Drones in the fleet: a burst is one more delivery than this, asking for the same window. */
  readonly drones: number;
}

export interface DeliveryFaultRates {
  readonly consumerKilled: number;
  readonly sqsDuplicate: number;
  readonly sqsLateCopy: number;
  readonly relayPublishError: number;
  readonly relayFailedEntry: number;
  readonly dependencyTimeout: number;
  /** Unknown-version or schema-invalid messages naming the delivery, sent to a consumer queue. */
  readonly poisonForDelivery: number;
}

export interface ScenarioShares {
  readonly tooHeavy: number;
  readonly outOfRange: number;
  readonly flightFail: number;
  /** Share of happy deliveries submitted in bursts (groups of drones + 1 at the same instant). */
  readonly burst: number;
}

export interface DeliveryPlanSettings {
  readonly deliveries: number;
  readonly seed: number;
  readonly limits: ServiceLimits;
  readonly rates: DeliveryFaultRates;
  readonly shares: ScenarioShares;
  /** Garbage messages (not JSON, no delivery id) sent to consumer queues: unattributed poison. */
  readonly garbageMessages: number;
  /** Every enabled per-delivery kind gets at least this many deliveries. */
  readonly minDeliveriesPerKind: number;
  readonly enabledKinds: readonly DeliveryFaultKind[];
}

export const DEFAULT_DELIVERY_FAULT_RATES: DeliveryFaultRates = {
  consumerKilled: 0.04,
  sqsDuplicate: 0.05,
  sqsLateCopy: 0.04,
  relayPublishError: 0.04,
  relayFailedEntry: 0.03,
  dependencyTimeout: 0.04,
  poisonForDelivery: 0.02,
};

export const DEFAULT_SCENARIO_SHARES: ScenarioShares = {
  tooHeavy: 0.08,
  outOfRange: 0.06,
  flightFail: 0.06,
  burst: 0.15,
};

export interface PlannedFaults {
  readonly consumerKilled?: { readonly service: FaultedConsumer };
  readonly sqsDuplicate?: { readonly service: DuplicatedConsumer };
  readonly sqsLateCopy?: { readonly service: DuplicatedConsumer; readonly delayMillis: number };
  /** `calls` consecutive publish calls of the delivery's first event to the destination fail. */
  readonly relayPublishError?: { readonly destination: FaultedDestination; readonly calls: number };
  readonly relayFailedEntry?: { readonly calls: number };
  /**
   * The service's DynamoDB commit fails (error) or hangs for the delivery's first message to it,
   * `failures` times: below maxReceiveAttempts redelivery recovers it; at it, the consumer
   * dead-letters DEPENDENCY_TIMEOUT and remediation retries.
   */
  readonly dependencyTimeout?: {
    readonly service: FaultedConsumer;
    readonly mode: 'error' | 'hang';
    readonly failures: number;
  };
  readonly poison?: {
    readonly service: FaultedConsumer;
    readonly kind: 'unknown-version' | 'schema-invalid';
  };
}

export interface DeliveryPlan {
  readonly index: number;
  readonly deliveryId: string;
  readonly scenario: Scenario;
  readonly request: SubmitDeliveryRequest;
  /** Deliveries of one burst are submitted together and ask for the same drones. */
  readonly burst?: number;
  readonly faults: PlannedFaults;
  /** The statuses the delivery may end in, given its scenario and faults. */
  readonly allowedOutcomes: readonly DeliveryStatus[];
}

export interface GarbagePoison {
  readonly service: FaultedConsumer;
  readonly body: string;
}

export interface DeliveryCampaignPlan {
  readonly seed: number;
  readonly deliveries: readonly DeliveryPlan[];
  readonly garbage: readonly GarbagePoison[];
}

const LATE_COPY_DELAYS_MILLIS = [1_500, 3_000] as const;
const KM_PER_DEGREE_LATITUDE = 111.2;
const MAX_PACKAGE_GRAMS = 25_000;

export function deliveryIdFor(
  seed: number,
  index: number,
  scenario: Scenario,
  limits: ServiceLimits,
): string {
  const base = `s${seed}-${String(index).padStart(5, '0')}`;
  return scenario === 'flight-fail' ? `${limits.failingDeliveryPrefix}${base}` : `chaos-${base}`;
}

export function validateDeliveryPlanSettings(settings: DeliveryPlanSettings): void {
  if (!Number.isInteger(settings.deliveries) || settings.deliveries < 1) {
    throw new Error(`deliveries must be a positive integer, got ${settings.deliveries}`);
  }
  if (!Number.isInteger(settings.seed) || settings.seed < 0 || settings.seed > 0xffffffff) {
    throw new Error(`seed must be an integer from 0 to 4294967295, got ${settings.seed}`);
  }
  for (const [name, rate] of [...Object.entries(settings.rates), ...Object.entries(settings.shares)]) {
    if (!(rate >= 0 && rate <= 1)) throw new Error(`rate ${name} must be within [0, 1], got ${rate}`);
  }
  const { shares } = settings;
  if (shares.tooHeavy + shares.outOfRange + shares.flightFail > 1) {
    throw new Error('the shares of too-heavy, out-of-range and flight-fail deliveries add up past 1');
  }
  for (const kind of settings.enabledKinds) {
    if (!DELIVERY_FAULT_KINDS.includes(kind)) {
      throw new Error(`Unknown fault kind '${kind}'. Known kinds: ${DELIVERY_FAULT_KINDS.join(', ')}`);
    }
  }
  if (settings.limits.maxPayloadGrams >= 5 * MAX_PACKAGE_GRAMS) {
    throw new Error(`maxPayloadGrams ${settings.limits.maxPayloadGrams}: no valid request is too heavy`);
  }
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(settings.limits.failingDeliveryPrefix)) {
    throw new Error(
      `failingDeliveryPrefix '${settings.limits.failingDeliveryPrefix}' cannot start a delivery id`,
    );
  }
}

/** The per-delivery kinds and how each is drawn. */
type PerDeliveryKind = Exclude<DeliveryFaultKind, 'runtime-restart'>;
const PER_DELIVERY: ReadonlyArray<{
  readonly kind: PerDeliveryKind;
  readonly key: keyof PlannedFaults;
  readonly rate: (rates: DeliveryFaultRates) => number;
  readonly draw: (random: Random, limits: ServiceLimits) => PlannedFaults;
}> = [
  {
    kind: DeliveryFaultKind.ConsumerKilled,
    key: 'consumerKilled',
    rate: (rates) => rates.consumerKilled,
    draw: (random) => ({ consumerKilled: { service: pick(FAULTED_CONSUMERS, random) } }),
  },
  {
    kind: DeliveryFaultKind.SqsDuplicate,
    key: 'sqsDuplicate',
    rate: (rates) => rates.sqsDuplicate,
    draw: (random) => ({ sqsDuplicate: { service: pick(DUPLICATED_CONSUMERS, random) } }),
  },
  {
    kind: DeliveryFaultKind.SqsLateCopy,
    key: 'sqsLateCopy',
    rate: (rates) => rates.sqsLateCopy,
    draw: (random) => ({
      sqsLateCopy: {
        service: pick(DUPLICATED_CONSUMERS, random),
        delayMillis: pick(LATE_COPY_DELAYS_MILLIS, random),
      },
    }),
  },
  {
    kind: DeliveryFaultKind.RelayPublishError,
    key: 'relayPublishError',
    rate: (rates) => rates.relayPublishError,
    // One failed call is absorbed by the SDK's own retries; four get through to the relay.
    draw: (random) => ({
      relayPublishError: { destination: pick(FAULTED_DESTINATIONS, random), calls: pick([1, 4], random) },
    }),
  },
  {
    kind: DeliveryFaultKind.RelayFailedEntry,
    key: 'relayFailedEntry',
    rate: (rates) => rates.relayFailedEntry,
    draw: (random) => ({ relayFailedEntry: { calls: pick([1, 2], random) } }),
  },
  {
    kind: DeliveryFaultKind.DependencyTimeout,
    key: 'dependencyTimeout',
    rate: (rates) => rates.dependencyTimeout,
    draw: (random, limits) => ({
      dependencyTimeout: {
        service: pick(FAULTED_CONSUMERS, random),
        mode: pick(['error', 'hang'] as const, random),
        failures: pick([1, limits.maxReceiveAttempts], random),
      },
    }),
  },
  {
    kind: DeliveryFaultKind.PoisonMessage,
    key: 'poison',
    rate: (rates) => rates.poisonForDelivery,
    draw: (random) => ({
      poison: {
        service: pick(FAULTED_CONSUMERS, random),
        kind: pick(['unknown-version', 'schema-invalid'] as const, random),
      },
    }),
  },
];

export function planDeliveries(settings: DeliveryPlanSettings): DeliveryCampaignPlan {
  validateDeliveryPlanSettings(settings);
  const random = mulberry32(settings.seed);
  const { limits, shares } = settings;
  // A burst is burstSize happy deliveries in a row (submitted together, asking for one drone more
  // than the fleet has): once one starts, the next ones are happy too, not drawn.
  const burstSize = limits.drones + 1;
  const scenarios: Scenario[] = [];
  const burstOf: (number | undefined)[] = [];
  let bursts = 0;
  let leftInBurst = 0;
  for (let index = 0; index < settings.deliveries; index += 1) {
    if (leftInBurst > 0) {
      scenarios.push('happy');
      burstOf.push(bursts - 1);
      leftInBurst -= 1;
      continue;
    }
    const draw = random();
    const scenario: Scenario =
      draw < shares.tooHeavy
        ? 'too-heavy'
        : draw < shares.tooHeavy + shares.outOfRange
          ? 'out-of-range'
          : draw < shares.tooHeavy + shares.outOfRange + shares.flightFail
            ? 'flight-fail'
            : 'happy';
    scenarios.push(scenario);
    if (scenario === 'happy' && random() < shares.burst / burstSize) {
      burstOf.push(bursts);
      bursts += 1;
      leftInBurst = burstSize - 1;
    } else {
      burstOf.push(undefined);
    }
  }
  const enabled = PER_DELIVERY.filter((entry) => settings.enabledKinds.includes(entry.kind));
  const faults: PlannedFaults[] = scenarios.map(() => {
    let planned: PlannedFaults = {};
    for (const entry of enabled) {
      if (random() < entry.rate(settings.rates)) planned = { ...planned, ...entry.draw(random, limits) };
    }
    return planned;
  });
  for (const entry of enabled) {
    const { key } = entry;
    let count = faults.filter((planned) => planned[key] !== undefined).length;
    const candidates = shuffled(
      faults.flatMap((planned, index) => (planned[key] === undefined ? [index] : [])),
      random,
    );
    while (count < settings.minDeliveriesPerKind) {
      const index = candidates.pop();
      if (index === undefined) break;
      faults[index] = { ...faults[index], ...entry.draw(random, limits) };
      count += 1;
    }
  }
  const deliveries = scenarios.map((scenario, index): DeliveryPlan => {
    const deliveryId = deliveryIdFor(settings.seed, index, scenario, limits);
    const planned = faults[index] ?? {};
    const burstId = burstOf[index];
    return {
      index,
      deliveryId,
      scenario,
      request: deliveryRequest(deliveryId, index, scenario, limits),
      ...(burstId !== undefined ? { burst: burstId } : {}),
      faults: planned,
      allowedOutcomes: allowedOutcomes(scenario, planned, limits),
    };
  });
  const garbage = settings.enabledKinds.includes(DeliveryFaultKind.PoisonMessage)
    ? Array.from({ length: settings.garbageMessages }, (_, index) => ({
        service: pick(FAULTED_CONSUMERS, random),
        body:
          index % 2 === 0 ? `chaos garbage ${settings.seed}-${index} {` : JSON.stringify({ hello: index }),
      }))
    : [];
  return { seed: settings.seed, deliveries, garbage };
}

/**
 * What a delivery may end in. Happy deliveries may fail (the fleet is shared: a busy fleet walks the
 * NO_DRONE_AVAILABLE ladder to GIVE_UP) but are never cancelled; only PACKAGE_TOO_HEAVY compensates.
 * Too heavy: cancelled, or failed when a fault made remediation give up first. Out of range and
 * failing flights: failed.
 */
export function allowedOutcomes(
  scenario: Scenario,
  faults: PlannedFaults,
  limits: Pick<ServiceLimits, 'maxReceiveAttempts'>,
): DeliveryStatus[] {
  const mayGiveUp =
    faults.poison !== undefined ||
    (faults.dependencyTimeout !== undefined &&
      faults.dependencyTimeout.failures >= limits.maxReceiveAttempts);
  switch (scenario) {
    case 'happy':
      return [Status.Delivered, Status.Failed];
    case 'too-heavy':
      return mayGiveUp ? [Status.Cancelled, Status.Failed] : [Status.Cancelled];
    case 'out-of-range':
    case 'flight-fail':
      return [Status.Failed];
  }
}

function deliveryRequest(
  deliveryId: string,
  index: number,
  scenario: Scenario,
  limits: ServiceLimits,
): SubmitDeliveryRequest {
  const pickup = { lat: 47 + (index % 50) * 0.001, lon: 8 + (index % 37) * 0.001 };
  const distanceKm = scenario === 'out-of-range' ? limits.maxRangeKm * 2 + 1 : limits.maxRangeKm * 0.3;
  const dropoff = { lat: pickup.lat + distanceKm / KM_PER_DEGREE_LATITUDE, lon: pickup.lon };
  const packages =
    scenario === 'too-heavy'
      ? tooHeavyPackages(deliveryId, limits.maxPayloadGrams)
      : [
          {
            packageId: `${deliveryId}-p1`.slice(0, 64),
            weightGrams: Math.max(1, Math.min(1_000 + (index % 7) * 100, limits.maxPayloadGrams)),
            size: 'SMALL' as const,
          },
        ];
  return { deliveryId, ownerId: `owner-${index % 23}`, pickup, dropoff, packages };
}

function tooHeavyPackages(deliveryId: string, maxPayloadGrams: number): SubmitDeliveryRequest['packages'] {
  const total = maxPayloadGrams + 1;
  const count = Math.max(1, Math.ceil(total / MAX_PACKAGE_GRAMS));
  const each = Math.ceil(total / count);
  return Array.from({ length: count }, (_, index) => ({
    packageId: `${deliveryId.slice(0, 58)}-p${index + 1}`,
    weightGrams: each,
    size: 'LARGE' as const,
  }));
}
