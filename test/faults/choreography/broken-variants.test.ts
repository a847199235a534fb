/**
 * The delivery checker is itself tested: the campaign runs an assembly whose bundled assets carry
 * deliberate bugs (planted at the asset level; the sources stay correct), and the checker must name
 * the invariant each bug breaks.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runDeliveryCampaign } from '../../../lib/chaos/deliveries/campaign';
import { DeliveryFaultKind } from '../../../lib/chaos/deliveries/faults';
import { DEFAULT_DELIVERY_FAULT_RATES } from '../../../lib/chaos/deliveries/plan';
import { BROKEN_VARIANTS, plantBrokenVariants } from '../../../lib/harness/assembly';
import { testClockMode } from '../../support/test-clock';
import { assemblyUnderTest, TEST_WORK_DIR, testLog } from '../support';

const CAMPAIGN_TIMEOUT_MILLIS = 6 * 60_000;

describe('delivery chaos checker against broken variants', () => {
  const afterCleanup: Array<() => void> = [];
  afterAll(() => {
    for (const cleanup of afterCleanup) cleanup();
  });

  it(
    'reports a double-booked drone, a second terminal event and a read model that took a duplicate',
    async () => {
      mkdirSync(TEST_WORK_DIR, { recursive: true });
      const brokenDir = join(mkdtempSync(join(TEST_WORK_DIR, 'broken-deliveries-')), 'cdk.out');
      afterCleanup.push(() => rmSync(dirname(brokenDir), { recursive: true, force: true }));
      plantBrokenVariants(assemblyUnderTest(), brokenDir, [
        BROKEN_VARIANTS.droneSchedulerDropsVersionCondition,
        BROKEN_VARIANTS.deliveryTerminalStatusChanges,
        BROKEN_VARIANTS.projectionTakesDuplicates,
      ]);
      // Bursts (one delivery more than drones, all at once) with the fleet's reads answered in pairs
      // make the drone scheduler book concurrently; poison naming too-heavy, out-of-range and failing deliveries brings them a
      // second terminal decision; duplicates reach the read model's projection. On the virtual clock
      // a seed's schedule is fixed: seed 6 meets all three bugs since deliveries alternate between
      // the requesters (seed 4, chosen before, no longer raced two bookings of one drone).
      const report = await runDeliveryCampaign({
        deliveries: 14,
        seed: 6,
        assemblyDir: brokenDir,
        clock: testClockMode(),
        workDir: TEST_WORK_DIR,
        enabledKinds: [DeliveryFaultKind.SqsDuplicate, DeliveryFaultKind.PoisonMessage],
        rates: { ...DEFAULT_DELIVERY_FAULT_RATES, sqsDuplicate: 0.6, poisonForDelivery: 0.4 },
        shares: { tooHeavy: 0.2, outOfRange: 0.2, flightFail: 0.1, burst: 1 },
        garbageMessages: 0,
        minDeliveriesPerKind: 3,
        minDeliveredShare: 0,
        maxWaitAfterLastMillis: 60_000,
        fleetReadDelayMillis: 2_000,
        log: testLog,
      });
      console.log(report.summary);
      const violations = (id: string) =>
        report.result.invariants.find((entry) => entry.id === id)?.violations ?? [];
      expect(report.result.passed).toBe(false);
      expect(violations('no-drone-double-booked')).toEqual(
        expect.arrayContaining([expect.stringMatching(/^drone-\d+: \S+ and \S+ overlap \(/)]),
      );
      expect(violations('lifecycle-in-sequence')).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/: Delivery(Failed|Cancelled) #\d+ after the terminal /),
        ]),
      );
      expect(violations('state-matches-events')).toEqual(
        expect.arrayContaining([expect.stringMatching(/: read model history \[.+\] vs events seen \[.+\]$/)]),
      );
    },
    CAMPAIGN_TIMEOUT_MILLIS,
  );
});
