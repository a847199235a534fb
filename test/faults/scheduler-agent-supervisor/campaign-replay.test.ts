/**
 * Issue 22, item 4: a chaos campaign replays. Two runs of one seed with a trace (a virtual clock
 * seeded by it, the campaign's harness one of its actors) give the same trace, line for line, and
 * the same verdicts. Short: twelve orders, at most four in flight, every fault kind but the one that
 * does not replay yet (KINDS_NOT_REPLAYED: runtime-restart) and admission-pressure (it needs more
 * orders in flight than the admission limit, 16: a longer run, measured apart in lib/chaos/README.md),
 * on the local profile's timings (its own assembly, synthesized once for both runs: the faults
 * layer's has the deployed timings, 29 minutes of the clock and 5 of the machine's a run, ~55 s
 * here). The runs go one after the other while the layer's other tests load the machine. On a
 * difference the test names the first line that differs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CampaignOptions, runCampaign } from '../../../lib/chaos/orders/campaign';
import { campaignAssembly } from '../../../lib/chaos/orders/campaign-setup';
import { FAULT_KINDS, FaultKind, KINDS_NOT_REPLAYED } from '../../../lib/chaos/orders/faults';
import { TEST_WORK_DIR, testLog } from '../support';

jest.setTimeout(900_000);

const WORK_DIR = join(TEST_WORK_DIR, 'campaign-replay');

const OPTIONS: CampaignOptions = {
  orders: 12,
  seed: 3,
  maxInFlight: 4,
  minOrdersPerKind: 1,
  minProcessedShare: 0,
  enabledKinds: FAULT_KINDS.filter(
    (kind) => !KINDS_NOT_REPLAYED.includes(kind) && kind !== FaultKind.AdmissionPressure,
  ),
  workDir: WORK_DIR,
  log: testLog,
};

/** One traced run of the campaign: its trace's lines and each invariant's and guard's count. */
async function tracedRun(
  assemblyDir: string,
  name: string,
): Promise<{ trace: string[]; verdicts: string[] }> {
  const trace = join(WORK_DIR, `${name}.trace`);
  const report = await runCampaign({ ...OPTIONS, assemblyDir, trace });
  const verdicts = [...report.result.invariants, ...report.result.guards].map(
    (entry) => `${entry.id}: ${entry.violations.length}`,
  );
  return { trace: readFileSync(trace, 'utf8').split('\n'), verdicts };
}

it('gives the same trace and verdicts twice for a seed', async () => {
  const assemblyDir = campaignAssembly(OPTIONS, testLog);
  const first = await tracedRun(assemblyDir, 'first');
  const second = await tracedRun(assemblyDir, 'second');
  // Not a trivial trace: the start-up, the orders' requests, invocations and faults, the harness.
  expect(first.trace.length).toBeGreaterThan(2_000);
  expect(first.trace.some((line) => line.includes('by harness'))).toBe(true);
  expect(first.trace.some((line) => line.includes('client POST /operator/orders/'))).toBe(true);
  expect(first.trace.some((line) => line.includes('gave up waiting'))).toBe(false);
  expect(second.verdicts).toEqual(first.verdicts);
  const differs = first.trace.findIndex((line, index) => second.trace[index] !== line);
  const firstDifference =
    differs === -1 && first.trace.length === second.trace.length
      ? undefined
      : { line: differs + 1, first: first.trace[differs], second: second.trace[differs] };
  expect(firstDifference).toBeUndefined();
});
