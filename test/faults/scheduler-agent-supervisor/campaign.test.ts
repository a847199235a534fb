/**
 * The short chaos campaign of `npm test`: about 100 seeded orders through the real app on the local
 * runtime with every fault kind injected, then every invariant checked. Every kind includes the
 * compensation kinds (permanent failures at each step, flaky and refused compensations, attempt
 * faults on compensation requests) and admission-pressure: the faults project's assembly is
 * synthesized with an admission limit of 16 (test/faults/global-setup.ts), below the campaign's 24
 * submissions outstanding. The full campaign (1,000 orders) is `npm run chaos`; see lib/chaos/README.md.
 */
import { ProcessState } from '../../../lambdas/scheduler-agent-supervisor/contracts';
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
      // The run exercised what it claims to: orders rolled back and refused rollbacks, attempt
      // faults that hit compensation requests (the supervisor resumed them), admission's 429s.
      const ended = (state: string) =>
        report.snapshot.finalRecords.filter((record) => record.processState === state).length;
      expect(ended(ProcessState.Compensated)).toBeGreaterThan(0);
      expect(ended(ProcessState.CompensationFailed)).toBeGreaterThan(0);
      expect(report.compensationFaultsFired).toBeGreaterThan(0);
      expect(report.facts.admission.limit).toBeLessThan(24);
    },
    CAMPAIGN_TIMEOUT_MILLIS,
  );
});
