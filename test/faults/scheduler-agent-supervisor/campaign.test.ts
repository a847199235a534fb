/**
 * The short chaos campaign of `npm test`: 60 seeded orders (enough for every kind to fire; fewer keeps
 * `npm test` under 20 minutes on 2 cores) through the real app on the local
 * runtime with every fault kind injected, then every invariant checked. Every kind includes the
 * compensation kinds (permanent failures at each step, flaky and refused compensations, attempt
 * faults on compensation requests) and admission-pressure: the faults project's assembly is
 * synthesized with an admission limit of 16 (test/faults/global-setup.ts), below the campaign's 24
 * submissions outstanding; and operator-actions: the campaign retries Error orders (OUTAGE ones
 * after ending the outage) and cancels planned orders early or once Processed, while orders
 * alternate between the two clients, whose reply queues it drains with each client's identity
 * (client-messages, reply-queue-isolation). The full campaign (1,000 orders) is `npm run chaos`; see lib/chaos/README.md.
 */
import { ProcessState } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { runCampaign } from '../../../lib/chaos/orders/campaign';
import { testClockMode } from '../../support/test-clock';
import { assemblyUnderTest, TEST_WORK_DIR, testLog } from '../support';

const CAMPAIGN_TIMEOUT_MILLIS = 12 * 60_000;

describe('chaos campaign (short)', () => {
  it(
    'keeps every invariant with every fault kind firing',
    async () => {
      const report = await runCampaign({
        orders: Number(process.env.CHAOS_ORDERS ?? 60),
        seed: Number(process.env.CHAOS_SEED ?? 1),
        assemblyDir: assemblyUnderTest(),
        clock: testClockMode(),
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
      // The campaign acted as operator: OUTAGE orders retried after their outage ended, planned
      // cancels applied; and both clients were told about their orders on their own queues.
      const applied = (action: string) =>
        report.snapshot.operator.actions.filter((a) => a.action === action && a.outcome === 'applied');
      const outageOrders = report.snapshot.orders.filter((order) => order.expectedOutcome === 'Processed');
      expect(outageOrders.length).toBeGreaterThan(0);
      for (const order of outageOrders) {
        expect(applied('retry').map((a) => a.orderId)).toContain(order.orderId);
      }
      expect(applied('cancel').length).toBeGreaterThan(0);
      for (const client of report.snapshot.clientMessages.clients) {
        expect(report.snapshot.clientMessages.deliveries.some((d) => d.queueOf === client)).toBe(true);
      }
    },
    CAMPAIGN_TIMEOUT_MILLIS,
  );
});
