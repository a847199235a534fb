/**
 * The short delivery campaign of `npm test`: a few seeded deliveries through the drone delivery
 * choreography on the local runtime with the fault kinds that a local run can afford, then every
 * invariant checked. Kinds that make a consumer fail a receive (a killed consumer, a hung or
 * failing dependency, the runtime restart) cost the queue's visibility timeout (120 s on the local
 * profile) per receive: they run in `npm run chaos:deliveries` (lib/chaos/README.md).
 */

import { runDeliveryCampaign } from '../../../lib/chaos/deliveries/campaign';
import { DeliveryFaultKind } from '../../../lib/chaos/deliveries/faults';
import { DEFAULT_DELIVERY_FAULT_RATES } from '../../../lib/chaos/deliveries/plan';
import { testClockMode } from '../../support/test-clock';
import { assemblyUnderTest, TEST_WORK_DIR, testLog } from '../support';

const CAMPAIGN_TIMEOUT_MILLIS = 4 * 60_000;

describe('delivery chaos campaign (short)', () => {
  it(
    'keeps every invariant with the affordable fault kinds firing',
    async () => {
      const report = await runDeliveryCampaign({
        deliveries: Number(process.env.CHAOS_DELIVERIES ?? 8),
        seed: Number(process.env.CHAOS_SEED ?? 1),
        assemblyDir: assemblyUnderTest(),
        clock: testClockMode(),
        workDir: TEST_WORK_DIR,
        enabledKinds: [
          DeliveryFaultKind.SqsDuplicate,
          DeliveryFaultKind.SqsLateCopy,
          DeliveryFaultKind.RelayPublishError,
          DeliveryFaultKind.RelayFailedEntry,
          DeliveryFaultKind.PoisonMessage,
        ],
        rates: {
          ...DEFAULT_DELIVERY_FAULT_RATES,
          sqsDuplicate: 0.2,
          sqsLateCopy: 0.2,
          relayPublishError: 0.2,
        },
        minDeliveriesPerKind: 1,
        garbageMessages: 2,
        // Nothing here waits out a visibility timeout: a delivery not terminal a minute after the
        // last acceptance is reported (stricter than the bound, never looser).
        maxWaitAfterLastMillis: 60_000,
        log: testLog,
      });
      console.log(report.summary);
      const failed = [...report.result.invariants, ...report.result.guards].filter(
        (entry) => entry.violations.length > 0,
      );
      expect(failed.map((entry) => `${entry.id}: ${entry.violations.slice(0, 5).join('; ')}`)).toEqual([]);
      expect(report.result.passed).toBe(true);
    },
    CAMPAIGN_TIMEOUT_MILLIS,
  );
});
