/**
 * Issue 22, item 4: a delivery chaos campaign replays. Two runs of one seed with a trace (a virtual
 * clock seeded by it, the campaign's harness one of its actors) give the same trace, line for line,
 * and the same verdicts. Short: twelve deliveries with every fault kind (the runtime's restart
 * included), on the local profile's timings (its own assembly, synthesized once for both runs). On a
 * difference the test names the first line that differs.
 */
import { join } from 'node:path';
import { type DeliveryCampaignOptions, runDeliveryCampaign } from '../../../lib/chaos/deliveries/campaign';
import { DELIVERY_FAULT_KINDS } from '../../../lib/chaos/deliveries/faults';
import { synthesizeLocal } from '../../../lib/harness/assembly';
import { firstDifference, TEST_WORK_DIR, testLog, tracedTwice } from '../support';

jest.setTimeout(900_000);

const WORK_DIR = join(TEST_WORK_DIR, 'delivery-campaign-replay');

const OPTIONS: DeliveryCampaignOptions = {
  deliveries: 12,
  seed: 3,
  enabledKinds: DELIVERY_FAULT_KINDS,
  workDir: WORK_DIR,
  log: testLog,
};

it('gives the same trace and verdicts twice for a seed', async () => {
  const assemblyDir = join(WORK_DIR, 'cdk.out');
  synthesizeLocal(assemblyDir);
  const [first, second] = await tracedTwice(WORK_DIR, (trace) =>
    runDeliveryCampaign({ ...OPTIONS, assemblyDir, trace }),
  );
  // Not a trivial trace: the deliveries' requests, the consumers, the relays, the harness.
  expect(first.trace.length).toBeGreaterThan(2_000);
  expect(first.trace.some((line) => line.includes('by harness'))).toBe(true);
  expect(first.trace.some((line) => line.includes('request POST /v1/deliveries'))).toBe(true);
  expect(first.trace.some((line) => line.includes('harness restart'))).toBe(true);
  expect(first.trace.some((line) => line.includes('gave up waiting'))).toBe(false);
  expect(second.verdicts).toEqual(first.verdicts);
  expect(firstDifference(first.trace, second.trace)).toBeUndefined();
});
