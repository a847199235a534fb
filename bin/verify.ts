/**
 * `npm run verify [-- --quick] [-- --bounds '<json>']`: generates the protocol models from the code
 * and checks them with spin (docs/verification.md): every property must hold within the bounds,
 * exhaustively, and every broken variant must yield a counterexample, printed as the actors' steps.
 * `--quick` (npm test) checks the orders model's liveness within smaller bounds; with no argument
 * the full run also checks liveness at the default bounds and safety within each of WIDER_BOUNDS
 * (about 20 minutes); `--bounds` checks the orders model within other bounds (e.g.
 * '{"maxFailures":2}'). Exit 1 on a failed check or a variant without a counterexample; 2 on a bad
 * argument.
 */
import { deliveriesSuite, describeCheck, formatTrail, ordersSuite, verify } from '../lib/verify';

const USAGE = 'usage: npm run verify [-- --quick] [-- --bounds \'{"maxFailures":2}\']';

function main(argv: readonly string[]): number {
  let bounds: Record<string, number> | undefined;
  let quick = false;
  for (let index = 0; index < argv.length; index++) {
    if (argv[index] === '--quick') {
      quick = true;
    } else if (argv[index] === '--bounds' && argv[index + 1] !== undefined) {
      try {
        bounds = JSON.parse(argv[++index] as string);
      } catch (error) {
        console.error(`--bounds must be JSON: ${(error as Error).message}\n${USAGE}`);
        return 2;
      }
    } else {
      console.error(`unknown argument: ${argv[index]}\n${USAGE}`);
      return 2;
    }
  }
  let suites: ReturnType<typeof ordersSuite>[];
  try {
    suites = [ordersSuite({ ...(bounds !== undefined && { bounds }), quick }), deliveriesSuite()];
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  for (const suite of suites) {
    for (const model of suite.models) {
      console.log(`${model.name}: bounds ${JSON.stringify(model.bounds)}`);
      for (const property of model.properties) console.log(`  - ${property}`);
    }
  }
  const report = verify(suites, (line) => console.log(line));
  for (const { variant, result } of report.variants) {
    console.log(`\n${variant.model.name} (${variant.description}):\n${formatTrail(result)}`);
  }
  for (const problem of report.problems) console.error(`\n${problem}`);
  const seconds = report.checks.reduce((sum, { result }) => sum + result.seconds, 0);
  console.log(
    `\n${report.checks.length} checks, ${report.variants.length} broken variants; search time ${seconds.toFixed(1)} s`,
  );
  for (const { result } of report.checks) console.log(describeCheck(result));
  return report.problems.length === 0 ? 0 : 1;
}

process.exitCode = main(process.argv.slice(2));
