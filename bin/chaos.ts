#!/usr/bin/env node
/**
 * npm run chaos: drives seeded orders through the app on the local runtime while injecting faults at
 * the infrastructure boundary, then checks the invariants (lib/chaos/). Exits 1 on any violation
 * or a trivial run, 2 on bad arguments.
 *
 *   npm run chaos -- [--orders 1000] [--seed 1] [--max-in-flight 24] [--assembly DIR] [--work DIR]
 *                    [--without kind,kind] [--only kind,kind] [--transient-rate 0.05]
 *                    [--min-processed 0.6] [--allowance-seconds 60] [--clock-skew-ms 1000] [--keep-data]
 */
import { FAULT_KINDS, type FaultKind } from '../lib/chaos/core/faults';
import { DEFAULT_FAULT_RATES } from '../lib/chaos/core/plan';
import { type CampaignOptions, runCampaign } from '../lib/chaos/runner/campaign';

// This machine's tools run on Node 20 while the deployed Lambdas run on nodejs22.x; the SDK's
// Node 20 end-of-support notice says nothing actionable here, so local tools silence it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const USAGE =
  'Usage: npm run chaos -- [--orders N] [--seed N] [--max-in-flight N] [--assembly DIR] [--work DIR] ' +
  '[--without kinds] [--only kinds] [--transient-rate R] [--min-processed R] [--allowance-seconds S] ' +
  '[--clock-skew-ms MS] [--keep-data]';

const VALUE_FLAGS = [
  '--orders',
  '--seed',
  '--max-in-flight',
  '--assembly',
  '--work',
  '--without',
  '--only',
  '--transient-rate',
  '--min-processed',
  '--allowance-seconds',
  '--clock-skew-ms',
];

function parseKinds(flag: string, text: string): FaultKind[] {
  const kinds = text.split(',').map((kind) => kind.trim());
  for (const kind of kinds) {
    if (!FAULT_KINDS.includes(kind as FaultKind)) {
      throw new Error(`${flag}: unknown fault kind '${kind}'. Known: ${FAULT_KINDS.join(', ')}`);
    }
  }
  return kinds as FaultKind[];
}

function parseNumber(
  flag: string,
  text: string,
  check: (value: number) => boolean,
  expected: string,
): number {
  const value = Number(text);
  if (!Number.isFinite(value) || !check(value)) throw new Error(`${flag} must be ${expected}, got '${text}'`);
  return value;
}

export function parseChaosArguments(argv: readonly string[]): CampaignOptions {
  const values = new Map<string, string>();
  let keepData = false;
  for (let index = 0; index < argv.length; index += 1) {
    const flag = argv[index] ?? '';
    if (flag === '--keep-data') {
      keepData = true;
      continue;
    }
    if (!VALUE_FLAGS.includes(flag)) throw new Error(`Unknown argument '${flag}'. ${USAGE}`);
    const value = argv[index + 1];
    if (value === undefined || value.startsWith('--')) throw new Error(`${flag} needs a value. ${USAGE}`);
    values.set(flag, value);
    index += 1;
  }
  const integer = (flag: string, min: number) => {
    const text = values.get(flag);
    return text === undefined
      ? undefined
      : parseNumber(flag, text, (value) => Number.isInteger(value) && value >= min, `an integer >= ${min}`);
  };
  const share = (flag: string) => {
    const text = values.get(flag);
    return text === undefined
      ? undefined
      : parseNumber(flag, text, (value) => value >= 0 && value <= 1, 'a number from 0 to 1');
  };
  if (values.has('--only') && values.has('--without')) throw new Error('Use --only or --without, not both');
  const only = values.get('--only');
  const without = values.get('--without');
  const enabledKinds = only
    ? parseKinds('--only', only)
    : without
      ? FAULT_KINDS.filter((kind) => !parseKinds('--without', without).includes(kind))
      : undefined;
  const transientRate = share('--transient-rate');
  const options: Record<string, unknown> = {
    orders: integer('--orders', 1),
    seed: integer('--seed', 0),
    maxInFlight: integer('--max-in-flight', 1),
    assemblyDir: values.get('--assembly'),
    workDir: values.get('--work'),
    enabledKinds,
    rates:
      transientRate === undefined
        ? undefined
        : { ...DEFAULT_FAULT_RATES, remoteTransientPerCall: transientRate },
    minProcessedShare: share('--min-processed'),
    schedulingAllowanceSeconds: integer('--allowance-seconds', 0),
    clockSkewMillis: integer('--clock-skew-ms', 0),
    keepData,
  };
  return Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as CampaignOptions;
}

async function main(): Promise<number> {
  let options: CampaignOptions;
  try {
    options = parseChaosArguments(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  const report = await runCampaign(options);
  console.log(`\n${report.summary}`);
  return report.result.passed ? 0 : 1;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (error: Error) => {
      console.error(`chaos campaign crashed: ${error.stack ?? error.message}`);
      process.exit(1);
    },
  );
}
