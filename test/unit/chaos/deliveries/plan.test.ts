import { deliveryTerminalBound, longestLadderMillis } from '../../../../lib/chaos/deliveries/bounds';
import { DELIVERY_FAULT_KINDS } from '../../../../lib/chaos/deliveries/faults';
import { checkDeliveryCampaign } from '../../../../lib/chaos/deliveries/invariants';
import {
  DEFAULT_DELIVERY_FAULT_RATES,
  DEFAULT_SCENARIO_SHARES,
  type DeliveryPlanSettings,
  planDeliveries,
} from '../../../../lib/chaos/deliveries/plan';
import { renderDeliverySummary } from '../../../../lib/chaos/deliveries/report';

/** Limits pinned for these tests (not the profile's: the assertions are arithmetic on them). */
const limits = {
  maxPayloadGrams: 5_000,
  maxRangeKm: 20,
  failingDeliveryPrefix: 'FLIGHT-FAIL-',
  maxReceiveAttempts: 3,
  drones: 3,
};
const settings: DeliveryPlanSettings = {
  deliveries: 200,
  seed: 5,
  limits,
  rates: DEFAULT_DELIVERY_FAULT_RATES,
  shares: DEFAULT_SCENARIO_SHARES,
  garbageMessages: 3,
  minDeliveriesPerKind: 2,
  enabledKinds: DELIVERY_FAULT_KINDS,
};

const km = (a: { lat: number; lon: number }, b: { lat: number; lon: number }) => {
  const rad = Math.PI / 180;
  const h =
    Math.sin(((b.lat - a.lat) * rad) / 2) ** 2 +
    Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(((b.lon - a.lon) * rad) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
};

describe('planDeliveries', () => {
  const plan = planDeliveries(settings);

  it('is reproducible from the seed and changes with it', () => {
    expect(planDeliveries(settings)).toEqual(plan);
    expect(planDeliveries({ ...settings, seed: 6 }).deliveries.map((entry) => entry.scenario)).not.toEqual(
      plan.deliveries.map((entry) => entry.scenario),
    );
  });

  it('builds each scenario against the synthesized limits', () => {
    for (const delivery of plan.deliveries) {
      const weight = delivery.request.packages.reduce((sum, item) => sum + item.weightGrams, 0);
      const distance = km(delivery.request.pickup, delivery.request.dropoff);
      expect(delivery.deliveryId.startsWith(limits.failingDeliveryPrefix)).toBe(
        delivery.scenario === 'flight-fail',
      );
      expect(weight > limits.maxPayloadGrams).toBe(delivery.scenario === 'too-heavy');
      expect(distance > limits.maxRangeKm).toBe(delivery.scenario === 'out-of-range');
      expect(delivery.request.packages.every((item) => item.weightGrams <= 25_000)).toBe(true);
    }
    for (const scenario of ['happy', 'too-heavy', 'out-of-range', 'flight-fail']) {
      expect(plan.deliveries.some((entry) => entry.scenario === scenario)).toBe(true);
    }
  });

  it('gives every per-delivery kind its minimum, bursts of drones + 1 happy deliveries, and garbage', () => {
    const keys = [
      'consumerKilled',
      'sqsDuplicate',
      'sqsLateCopy',
      'relayPublishError',
      'relayFailedEntry',
      'dependencyTimeout',
      'poison',
    ] as const;
    for (const key of keys) {
      expect(
        plan.deliveries.filter((entry) => entry.faults[key] !== undefined).length,
      ).toBeGreaterThanOrEqual(2);
    }
    const bursts = new Map<number, number>();
    for (const entry of plan.deliveries) {
      if (entry.burst === undefined) continue;
      expect(entry.scenario).toBe('happy');
      bursts.set(entry.burst, (bursts.get(entry.burst) ?? 0) + 1);
    }
    expect([...bursts.values()].some((size) => size === limits.drones + 1)).toBe(true);
    expect(plan.garbage).toHaveLength(3);
    expect(
      planDeliveries({ ...settings, enabledKinds: [] }).deliveries.every(
        (entry) => Object.keys(entry.faults).length === 0,
      ),
    ).toBe(true);
  });

  it('allows each scenario only its outcomes', () => {
    for (const entry of plan.deliveries) {
      if (entry.scenario === 'happy') expect(entry.allowedOutcomes).toEqual(['Delivered', 'Failed']);
      if (entry.scenario === 'out-of-range' || entry.scenario === 'flight-fail')
        expect(entry.allowedOutcomes).toEqual(['Failed']);
      if (entry.scenario === 'too-heavy') expect(entry.allowedOutcomes).not.toContain('Delivered');
    }
  });

  it('refuses settings it cannot plan', () => {
    expect(() => planDeliveries({ ...settings, deliveries: 0 })).toThrow(
      'deliveries must be a positive integer',
    );
    expect(() => planDeliveries({ ...settings, limits: { ...limits, maxPayloadGrams: 200_000 } })).toThrow(
      'no valid request is too heavy',
    );
    expect(() => planDeliveries({ ...settings, enabledKinds: ['nope' as never] })).toThrow(
      "Unknown fault kind 'nope'",
    );
  });
});

describe('delivery terminal bound', () => {
  it('takes the longest remediation ladder and the settings term by term', () => {
    // NO_DRONE_AVAILABLE: RETRY, RETRY, PIVOT before GIVE_UP: 2 + 4 + 8 s (max 10: 2 + 4 + 8).
    expect(longestLadderMillis({ retryBaseSeconds: 2, retryMaxSeconds: 10 })).toEqual({
      millis: 14_000,
      code: 'NO_DRONE_AVAILABLE',
    });
    const bound = deliveryTerminalBound({
      remediation: { retryBaseSeconds: 1, retryMaxSeconds: 2 },
      maxReceiveAttempts: 3,
      visibilityTimeoutSeconds: 10,
      functionTimeoutSeconds: 5,
      flight: { pickupMillis: 500, flightMillis: 1_500 },
      relayRetryMillis: 4_000,
      faultsPerDelivery: 2,
      schedulingAllowanceMillis: 30_000,
    });
    expect(bound.terms.map((term) => term.millis)).toEqual([5_000, 90_000, 8_000, 2_000, 30_000]);
    expect(bound.totalMillis).toBe(135_000);
  });
});

describe('delivery summary', () => {
  it('shows scenarios, every fault kind, the bound, each verdict and the result', () => {
    const snapshot = {
      terminalBoundMillis: 10_000,
      deliveries: [
        {
          deliveryId: 'a',
          scenario: 'happy' as const,
          allowedOutcomes: ['Delivered' as const],
          acceptedAt: 0,
        },
      ],
      deliveryItems: [{ deliveryId: 'a', status: 'Correlating', sequence: 0, outbox: [] }],
      ingestionItems: [],
      lifecycleEvents: [],
      assignments: [],
      assignmentSamples: [],
      droneSamples: [],
      deadLettersSent: [],
      deadLetterMarkers: [],
      remediationDecisions: [],
      faults: [{ kind: 'sqs-duplicate' as const, at: 0, deliveryIds: ['a'] }],
      enabledKinds: ['sqs-duplicate' as const],
      restarts: [],
      minDeliveredShare: 0,
      appDenials: [],
      requesterIsolation: {
        requesters: ['pharmacy', 'bakery'],
        probes: [{ reader: 'bakery', owner: 'pharmacy', deliveryId: 'a', status: 404 }],
      },
    };
    const text = renderDeliverySummary({
      snapshot,
      result: checkDeliveryCampaign(snapshot),
      bound: { totalMillis: 10_000, terms: [{ name: 'all', millis: 10_000 }] },
      seed: 4,
      wallMillis: 2_000,
    });
    for (const kind of DELIVERY_FAULT_KINDS) expect(text).toContain(kind);
    expect(text).toContain(
      "requesters: pharmacy, bakery (deliveries alternate); reads of another's delivery: 404; of one's own: none",
    );
    expect(text).toMatch(/happy\s+1\s+1\s+0\s+0\s+0\s+1/);
    expect(text).toMatch(/FAIL\s+invariant\s+terminal-within-bound\s+1/);
    expect(text).toContain('a (happy): still Correlating');
    expect(text.trim().endsWith('RESULT: FAIL')).toBe(true);
  });
});
