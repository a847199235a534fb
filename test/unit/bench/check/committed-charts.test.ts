/**
 * The committed-charts check on a charts directory of its own, with the real renderer (vega, as
 * `npm run bench` draws them): the charts the results draw pass, an edited, missing or extra one fails.
 */
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { committedChartProblems, RERUN } from '../../../../lib/bench/check';
import { renderSvgs, toVegaLite } from '../../../../lib/bench/core/charts';
import type { ChartSpec, FigureResult } from '../../../../lib/bench/core/figure';
import type { BenchResults } from '../../../../lib/bench/core/results';
import { resultsAt } from './git-fixture';

const chart = (title: string): ChartSpec => ({
  kind: 'bar',
  title,
  xLabel: 'state',
  yLabel: 'transitions',
  points: [
    { series: 'ours', x: 'Processed', y: 10 },
    { series: 'ours', x: 'Recovered', y: 14 },
  ],
});

const figure = (id: FigureResult['id'], charts: ChartSpec[]): FigureResult => ({
  id,
  title: id,
  measurements: [],
  targets: [],
  notes: [],
  charts,
});

const results: BenchResults = resultsAt('abcdef0123456789abcdef0123456789abcdef01', {
  figures: [figure('order-cost', [chart('cost')]), figure('functions', [chart('sizes'), chart('init')])],
  notBuilt: [],
  failed: [],
});

describe('committedChartProblems', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'committed-charts-'));
  });

  beforeEach(() => {
    const svgs = renderSvgs(results.figures.flatMap((each) => each.charts.map(toVegaLite)));
    ['order-cost.svg', 'functions-1.svg', 'functions-2.svg'].forEach((name, index) => {
      writeFileSync(join(dir, name), `${svgs[index]}\n`);
    });
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('passes the charts the results draw, byte for byte', () => {
    expect(committedChartProblems(results, dir)).toEqual([]);
  });

  it('fails an edited chart, a missing one and one no figure of the results draws', () => {
    writeFileSync(join(dir, 'functions-2.svg'), '<svg>an older run</svg>\n');
    unlinkSync(join(dir, 'order-cost.svg'));
    writeFileSync(join(dir, 'campaign-speed.svg'), '<svg>another run</svg>\n');
    expect(committedChartProblems(results, dir)).toEqual([
      `bench/charts/order-cost.svg: missing, a chart of figure 'order-cost': ${RERUN}`,
      `bench/charts/functions-2.svg: not the chart the results draw for figure 'functions': ${RERUN}`,
      `bench/charts/campaign-speed.svg: no figure of the results draws it (a chart of another run?): ${RERUN}`,
    ]);
    unlinkSync(join(dir, 'campaign-speed.svg'));
  });
});
