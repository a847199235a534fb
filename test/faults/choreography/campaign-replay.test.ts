/**
 * Issue 22, item 4: a delivery chaos campaign replays. Two runs of one seed with a trace (a virtual
 * clock seeded by it, the campaign's harness one of its actors) give the same trace, line for line,
 * and the same verdicts. Short: twelve deliveries, every fault kind but the one that does not replay
 * yet (DELIVERY_KINDS_NOT_REPLAYED: runtime-restart), on the local profile's timings (its own
 * assembly, synthesized once for both runs). On a difference the test names the first line that
 * differs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DeliveryCampaignOptions, runDeliveryCampaign } from '../../../lib/chaos/deliveries/campaign';
import { DELIVERY_FAULT_KINDS, DELIVERY_KINDS_NOT_REPLAYED } from '../../../lib/chaos/deliveries/faults';
import { synthesizeLocal } from '../../../lib/harness/assembly';
import { TEST_WORK_DIR, testLog } from '../support';

jest.setTimeout(900_000);

const WORK_DIR = join(TEST_WORK_DIR, 'delivery-campaign-replay');

const OPTIONS: DeliveryCampaignOptions = {
  deliveries: 12,
  seed: 3,
  enabledKinds: DELIVERY_FAULT_KINDS.filter((kind) => !DELIVERY_KINDS_NOT_REPLAYED.includes(kind)),
  workDir: WORK_DIR,
  log: testLog,
};

/** One traced run of the campaign: its trace's lines and each invariant's and guard's count. */
async function tracedRun(
  assemblyDir: string,
  name: string,
): Promise<{ trace: string[]; verdicts: string[] }> {
  const trace = join(WORK_DIR, `${name}.trace`);
  const report = await runDeliveryCampaign({ ...OPTIONS, assemblyDir, trace });
  const verdicts = [...report.result.invariants, ...report.result.guards].map(
    (entry) => `${entry.id}: ${entry.violations.length}`,
  );
  return { trace: readFileSync(trace, 'utf8').split('\n'), verdicts };
}

it('gives the same trace and verdicts twice for a seed', async () => {
  const assemblyDir = join(WORK_DIR, 'cdk.out');
  synthesizeLocal(assemblyDir);
  const first = await tracedRun(assemblyDir, 'first');
  const second = await tracedRun(assemblyDir, 'second');
  // Not a trivial trace: the deliveries' requests, the consumers, the relays, the harness.
  expect(first.trace.length).toBeGreaterThan(2_000);
  expect(first.trace.some((line) => line.includes('by harness'))).toBe(true);
  expect(first.trace.some((line) => line.includes('request POST /v1/deliveries'))).toBe(true);
  expect(first.trace.some((line) => line.includes('gave up waiting'))).toBe(false);
  expect(second.verdicts).toEqual(first.verdicts);
  const differs = first.trace.findIndex((line, index) => second.trace[index] !== line);
  const firstDifference =
    differs === -1 && first.trace.length === second.trace.length
      ? undefined
      : { line: differs + 1, first: first.trace[differs], second: second.trace[differs] };
  expect(firstDifference).toBeUndefined();
});
