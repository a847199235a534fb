/**
 * The committed charts are the ones bench/results.json draws (docs/performance.md, "Results at
 * HEAD"): each chart of its figures is in bench/charts/ byte for byte as the runner renders it from
 * the results (rendering is deterministic), and no other SVG is there, so a chart never outlives
 * or precedes the run the docs quote.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderSvgs, toVegaLite, type VegaLiteSpec } from '../core/charts';
import { type BenchResults, chartFiles } from '../core/results';
import { RERUN } from './results-at-head';

/** Why the charts directory does not hold exactly the charts of the results, one line each. */
export function committedChartProblems(
  results: BenchResults,
  chartsDir: string,
  chartsName = 'bench/charts',
  render: (specs: readonly VegaLiteSpec[]) => string[] = renderSvgs,
): string[] {
  const expected = chartFiles(results.figures);
  const svgs = render(results.figures.flatMap((figure) => figure.charts.map(toVegaLite)));
  const problems: string[] = [];
  expected.forEach(({ id, fileName }, index) => {
    const path = join(chartsDir, fileName);
    if (!existsSync(path))
      problems.push(`${chartsName}/${fileName}: missing, a chart of figure '${id}': ${RERUN}`);
    else if (readFileSync(path, 'utf8') !== `${svgs[index]}\n`) {
      problems.push(`${chartsName}/${fileName}: not the chart the results draw for figure '${id}': ${RERUN}`);
    }
  });
  const names = new Set(expected.map(({ fileName }) => fileName));
  const present = existsSync(chartsDir) ? readdirSync(chartsDir) : [];
  for (const fileName of present.filter((name) => name.endsWith('.svg') && !names.has(name)).sort()) {
    problems.push(
      `${chartsName}/${fileName}: no figure of the results draws it (a chart of another run?): ${RERUN}`,
    );
  }
  return problems;
}
