/**
 * Issue 22, item 4: a chaos campaign replays. Two runs of one seed with a trace (a virtual clock
 * seeded by it, the campaign's harness one of its actors) give the same trace, line for line, and
 * the same verdicts. Short: twelve orders, at most four in flight, every fault kind but the
 * runtime's restart (see OPTIONS) and admission-pressure (it needs more orders in flight than the admission
 * limit, 16: a longer run, measured apart in lib/chaos/README.md),
 * on the local profile's timings (its own assembly, synthesized once for both runs: the faults
 * layer's has the deployed timings, 29 minutes of the clock and 5 of the machine's a run, ~55 s
 * here). The runs go one after the other while the layer's other tests load the machine. On a
 * difference the test names the first line that differs.
 */
import { join } from 'node:path';
import { type CampaignOptions, runCampaign } from '../../../lib/chaos/orders/campaign';
import { campaignAssembly } from '../../../lib/chaos/orders/campaign-setup';
import { FAULT_KINDS, FaultKind } from '../../../lib/chaos/orders/faults';
import { firstDifference, TEST_WORK_DIR, testLog, tracedTwice } from '../support';

jest.setTimeout(900_000);

const WORK_DIR = join(TEST_WORK_DIR, 'campaign-replay');

const OPTIONS: CampaignOptions = {
  orders: 12,
  seed: 3,
  maxInFlight: 4,
  minOrdersPerKind: 1,
  minProcessedShare: 0,
  // Not runtime-restart either, for now: with the compact workflow (issue 24) every restart point
  // tried (after 3, 4, 6, 7 and 9 of the 12 orders) freezes the seeded clock, the restart holding its
  // turn while the runtime's stop waits for work that needs a turn (the deadlock issue 23's note
  // describes for deliveries; before the compact shape, after 6 passed and after 3 froze). The wall-clock campaigns restart with orders in flight
  // (docs/chaos.md), and the deployed-timings campaign of this layer restarts too; the seeded
  // restart comes back with that fix.
  enabledKinds: FAULT_KINDS.filter(
    (kind) => kind !== FaultKind.AdmissionPressure && kind !== FaultKind.RuntimeRestart,
  ),
  workDir: WORK_DIR,
  log: testLog,
};

it('gives the same trace and verdicts twice for a seed', async () => {
  const assemblyDir = campaignAssembly(OPTIONS, testLog);
  const [first, second] = await tracedTwice(WORK_DIR, (trace) =>
    runCampaign({ ...OPTIONS, assemblyDir, trace }),
  );
  // Not a trivial trace: the start-up, the orders' requests, invocations and faults, the harness.
  expect(first.trace.length).toBeGreaterThan(2_000);
  expect(first.trace.some((line) => line.includes('by harness'))).toBe(true);
  expect(first.trace.some((line) => line.includes('client POST /operator/orders/'))).toBe(true);
  expect(first.trace.some((line) => line.includes('gave up waiting'))).toBe(false);
  expect(second.verdicts).toEqual(first.verdicts);
  expect(firstDifference(first.trace, second.trace)).toBeUndefined();
});
