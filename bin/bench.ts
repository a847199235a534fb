/**
 * `npm run bench [-- --quick] [--only <figure id>]... [--out DIR] [--keep]`: runs the benchmark
 * figures (lib/bench, docs/performance.md), with progress on stderr, then writes results.json and
 * the charts (bench/, or .local/bench/ for --quick so `npm test` leaves the tree clean) and prints
 * the table. A figure that throws is reported and the others still run; the exit code is then 1.
 * Targets not met do not fail the run: they are what the figures report.
 */
import { join, relative, resolve } from 'node:path';
import { BENCH_USAGE, parseBenchArguments } from '../lib/bench/core/arguments';
import { renderSvgs, toVegaLite } from '../lib/bench/core/charts';
import {
  type BenchResults,
  commitInfo,
  machineInfo,
  RESULTS_SCHEMA_VERSION,
  tableRows,
  writeResults,
} from '../lib/bench/core/results';
import { runFigures } from '../lib/bench/core/run-figures';
import { FIGURES } from '../lib/bench/figures';
import { formatTable } from '../lib/harness/text-table';
import { PROJECT_ROOT } from '../lib/local-runtime';

const FULL_RUN_DIR = join(PROJECT_ROOT, 'bench');
const QUICK_RUN_DIR = join(PROJECT_ROOT, '.local', 'bench');

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function main(argv: readonly string[]): Promise<number> {
  let args: ReturnType<typeof parseBenchArguments>;
  try {
    args = parseBenchArguments(argv);
  } catch (error) {
    console.error(`${messageOf(error)}\n${BENCH_USAGE}`);
    return 2;
  }
  const outDir = resolve(args.outDir ?? (args.quick ? QUICK_RUN_DIR : FULL_RUN_DIR));
  const startedAt = new Date();
  const commit = commitInfo(PROJECT_ROOT);
  const { figures, failed, notBuilt } = await runFigures({
    ids: args.figures,
    registry: FIGURES,
    quick: args.quick,
    keep: args.keep,
    log: (line) => console.error(line),
  });

  const results: BenchResults = {
    schemaVersion: RESULTS_SCHEMA_VERSION,
    commit,
    startedAt: startedAt.toISOString(),
    durationSeconds: Math.round((Date.now() - startedAt.getTime()) / 100) / 10,
    quick: args.quick,
    machine: machineInfo(),
    figures,
    notBuilt,
    failed,
  };
  const svgs = renderSvgs(figures.flatMap((figure) => figure.charts.map(toVegaLite)));
  const { resultsFile, chartPaths } = writeResults(outDir, results, args.figures, svgs);

  console.log(formatTable(tableRows(results)));
  const shown = (path: string) => relative(process.cwd(), path) || path;
  console.log(
    `\nResults: ${shown(resultsFile)}; charts: ${chartPaths.map(shown).join(', ') || 'none'}` +
      ` (${results.durationSeconds} s, commit ${commit.sha.slice(0, 12)}${commit.dirty ? ' with local changes' : ''})`,
  );
  if (failed.length > 0) {
    console.error(`Failed: ${failed.map((failure) => failure.id).join(', ')}`);
    return 1;
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  },
);
