#!/usr/bin/env node
/**
 * npm run chaos: drives seeded orders through the app on the local runtime while injecting faults at
 * the infrastructure boundary, then checks the invariants (lib/chaos/). Exits 1 on any violation
 * or a trivial run, 2 on bad arguments.
 *
 *   npm run chaos -- [--orders 1000] [--seed 1] [--max-in-flight 24] [--admission-limit 16]
 *                    [--assembly DIR] [--work DIR]
 *                    [--without kind,kind] [--only kind,kind] [--transient-rate 0.05]
 *                    [--min-processed 0.6] [--allowance-seconds 60] [--clock-skew-ms 1000] [--keep-data]
 *                    [--clock wall|virtual] [--timings default] [--trace FILE]
 *
 * With --trace FILE the run is on a virtual clock seeded by --seed and writes the clock's trace
 * there; the same command on the same commit writes the same file (a replay; lib/chaos/README.md,
 * Replay). The command that replays a run is printed after its summary.
 */
import { CampaignArguments, definedOnly, runCampaignCommand } from '../lib/chaos/common/arguments';
import { replayLine } from '../lib/chaos/common/replay-line';
import { type CampaignOptions, runCampaign } from '../lib/chaos/orders/campaign';
import { FAULT_KINDS } from '../lib/chaos/orders/faults';
import { DEFAULT_FAULT_RATES } from '../lib/chaos/orders/plan';
import { profileNamed } from '../lib/platform/config';

const USAGE =
  'Usage: npm run chaos -- [--orders N] [--seed N] [--max-in-flight N] [--admission-limit N] [--assembly DIR] [--work DIR] ' +
  '[--without kinds] [--only kinds] [--transient-rate R] [--min-processed R] [--allowance-seconds S] ' +
  '[--clock-skew-ms MS] [--keep-data] [--clock wall|virtual] [--timings PROFILE] [--trace FILE]';

const VALUE_FLAGS = [
  '--orders',
  '--seed',
  '--max-in-flight',
  '--admission-limit',
  '--assembly',
  '--work',
  '--without',
  '--only',
  '--transient-rate',
  '--min-processed',
  '--allowance-seconds',
  '--clock-skew-ms',
  '--clock',
  '--timings',
  '--trace',
];

export function parseChaosArguments(argv: readonly string[]): CampaignOptions {
  const args = new CampaignArguments(argv, VALUE_FLAGS, ['--keep-data'], USAGE);
  const enabledKinds = args.kinds(FAULT_KINDS);
  const transientRate = args.share('--transient-rate');
  const timingsFlag = args.text('--timings');
  return definedOnly<CampaignOptions>({
    orders: args.integer('--orders', 1),
    seed: args.integer('--seed', 0),
    maxInFlight: args.integer('--max-in-flight', 1),
    admissionLimit: args.integer('--admission-limit', 1),
    assemblyDir: args.text('--assembly'),
    workDir: args.text('--work'),
    enabledKinds,
    rates:
      transientRate === undefined
        ? undefined
        : { ...DEFAULT_FAULT_RATES, remoteTransientPerCall: transientRate },
    minProcessedShare: args.share('--min-processed'),
    schedulingAllowanceSeconds: args.integer('--allowance-seconds', 0),
    clockSkewMillis: args.integer('--clock-skew-ms', 0),
    keepData: args.has('--keep-data'),
    clock: args.clock('--clock'),
    timings: timingsFlag === undefined ? undefined : profileNamed(timingsFlag, '--timings'),
    trace: args.text('--trace'),
  });
}

/** The line after the summary: the command that replays the run, or how to make one that does. */
export function chaosReplayLine(argv: readonly string[], options: CampaignOptions): string {
  return replayLine('chaos', argv, options.trace !== undefined);
}

if (require.main === module) {
  const argv = process.argv.slice(2);
  runCampaignCommand(parseChaosArguments, async (options) => {
    const report = await runCampaign(options);
    return { ...report, summary: `${report.summary}\n${chaosReplayLine(argv, options)}` };
  });
}
