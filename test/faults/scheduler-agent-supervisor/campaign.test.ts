/**
 * The short chaos campaign of `npm test`: about 100 seeded orders through the real app on the local
 * runtime with every fault kind injected, then every invariant checked. The full campaign (1,000
 * orders) is `npm run chaos`; see lib/chaos/README.md.
 */
import { runCampaign } from '../../../lib/chaos/runner/campaign';
import { assemblyUnderTest, TEST_WORK_DIR, testLog } from '../support';

const CAMPAIGN_TIMEOUT_MILLIS = 12 * 60_000;

describe('chaos campaign (short)', () => {
  it(
    'keeps every invariant with every fault kind firing',
    async () => {
      const report = await runCampaign({
        orders: Number(process.env.CHAOS_ORDERS ?? 100),
        seed: Number(process.env.CHAOS_SEED ?? 1),
        assemblyDir: assemblyUnderTest(),
        workDir: TEST_WORK_DIR,
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
