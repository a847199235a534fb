/**
 * `npm run bench [-- --quick] [--only <figure id>]`: runs the benchmark figures (lib/bench) and
 * prints their results. Minimal first version: the table, results.json and charts come next.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIGURE_IDS, type FigureId } from '../lib/bench/core/figure';
import { FIGURES } from '../lib/bench/figures';

async function main(argv: readonly string[]): Promise<void> {
  const quick = argv.includes('--quick');
  const onlyIndex = argv.indexOf('--only');
  const only = onlyIndex >= 0 ? argv[onlyIndex + 1] : undefined;
  if (only !== undefined && !(FIGURE_IDS as readonly string[]).includes(only)) {
    throw new Error(`--only '${only}' names no figure; figures: ${FIGURE_IDS.join(', ')}`);
  }
  const ids = FIGURE_IDS.filter((id) => only === undefined || id === only);
  for (const id of ids) {
    const figure = FIGURES[id as FigureId];
    if (!figure) {
      console.log(`${id}: not built yet`);
      continue;
    }
    const workDir = mkdtempSync(join(tmpdir(), `bench-${id}-`));
    const started = Date.now();
    try {
      const result = await figure.run({
        quick,
        workDir,
        progress: (message) =>
          console.error(`[${id} ${((Date.now() - started) / 1000).toFixed(1)} s] ${message}`),
      });
      console.log(JSON.stringify(result, null, 2));
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
