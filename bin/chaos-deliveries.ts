#!/usr/bin/env node
/**
 * npm run chaos:deliveries: drives seeded deliveries through the drone delivery choreography on the
 * local runtime while injecting faults at the infrastructure boundary, then checks the invariants
 * (lib/chaos/README.md). Exits 1 on any violation or a trivial run, 2 on bad arguments.
 *
 *   npm run chaos:deliveries -- [--deliveries 200] [--seed 1] [--max-in-flight 12] [--assembly DIR]
 *                    [--work DIR] [--without kind,kind] [--only kind,kind] [--min-delivered 0.6]
 *                    [--allowance-seconds 60] [--keep-data] [--clock wall|virtual] [--trace FILE]
 *
 * With --trace FILE the run is on a virtual clock seeded by --seed and writes the clock's trace
 * there, as npm run chaos does (bin/chaos.ts); the command that replays a run is printed after
 * its summary.
 */
import { CampaignArguments, definedOnly, runCampaignCommand } from '../lib/chaos/common/arguments';
import { replayLine } from '../lib/chaos/common/replay-line';
import { type DeliveryCampaignOptions, runDeliveryCampaign } from '../lib/chaos/deliveries/campaign';
import { DELIVERY_FAULT_KINDS } from '../lib/chaos/deliveries/faults';

const USAGE =
  'Usage: npm run chaos:deliveries -- [--deliveries N] [--seed N] [--max-in-flight N] [--assembly DIR] ' +
  '[--work DIR] [--without kinds] [--only kinds] [--min-delivered R] [--allowance-seconds S] [--keep-data] [--clock wall|virtual] [--trace FILE]';

const VALUE_FLAGS = [
  '--clock',
  '--deliveries',
  '--seed',
  '--max-in-flight',
  '--assembly',
  '--work',
  '--without',
  '--only',
  '--min-delivered',
  '--allowance-seconds',
  '--trace',
];

export function parseDeliveryChaosArguments(argv: readonly string[]): DeliveryCampaignOptions {
  const args = new CampaignArguments(argv, VALUE_FLAGS, ['--keep-data'], USAGE);
  return definedOnly<DeliveryCampaignOptions>({
    deliveries: args.integer('--deliveries', 1),
    seed: args.integer('--seed', 0),
    maxInFlight: args.integer('--max-in-flight', 1),
    assemblyDir: args.text('--assembly'),
    workDir: args.text('--work'),
    enabledKinds: args.kinds(DELIVERY_FAULT_KINDS),
    minDeliveredShare: args.share('--min-delivered'),
    schedulingAllowanceSeconds: args.integer('--allowance-seconds', 0),
    keepData: args.has('--keep-data'),
    clock: args.clock('--clock'),
    trace: args.text('--trace'),
  });
}

/** The line after the summary: the command that replays the run, or how to make one that does. */
export function deliveryReplayLine(argv: readonly string[], options: DeliveryCampaignOptions): string {
  return replayLine('chaos:deliveries', argv, options.trace !== undefined);
}

if (require.main === module) {
  const argv = process.argv.slice(2);
  runCampaignCommand(parseDeliveryChaosArguments, async (options) => {
    const report = await runDeliveryCampaign(options);
    return { ...report, summary: `${report.summary}\n${deliveryReplayLine(argv, options)}` };
  });
}
