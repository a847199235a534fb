/**
 * Charts of the figures: each ChartSpec becomes a Vega-Lite spec (pure, below), rendered to SVG by
 * the vega and vega-lite packages in render-svg.mjs (a child `node` process: see there why).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { ChartSpec, FigureId } from './figure';

/** The Vega-Lite major version the specs are written for (the pinned vega-lite devDependency). */
const VEGA_LITE_SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
const WIDTH = 560;
const HEIGHT = 300;

/** The subset of a Vega-Lite spec that toVegaLite writes. */
export interface VegaLiteSpec {
  readonly $schema: string;
  readonly title: string;
  readonly width: number;
  readonly height: number;
  readonly background: string;
  readonly data: { readonly values: readonly { series: string; x: string | number; y: number }[] };
  readonly mark: { readonly type: 'bar' | 'line'; readonly point?: boolean; readonly tooltip: boolean };
  readonly encoding: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/**
 * One mark per point: a bar per point (one colour per series), or a line per series with a point
 * mark on each point.
 */
export function toVegaLite(chart: ChartSpec): VegaLiteSpec {
  const bar = chart.kind === 'bar';
  // Bars of one category side by side, when a category has several; otherwise each takes its slot.
  const seriesOf = new Map<string, Set<string>>();
  for (const point of chart.points) {
    const key = String(point.x);
    seriesOf.set(key, (seriesOf.get(key) ?? new Set()).add(point.series));
  }
  const sideBySide = bar && [...seriesOf.values()].some((series) => series.size > 1);
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: chart.title,
    width: WIDTH,
    height: HEIGHT,
    background: 'white',
    data: { values: chart.points.map(({ series, x, y }) => ({ series, x, y })) },
    mark: bar ? { type: 'bar', tooltip: true } : { type: 'line', point: true, tooltip: true },
    encoding: {
      // Categories keep the figure's order (sort: null), not Vega-Lite's alphabetical one.
      x: bar
        ? { field: 'x', type: 'nominal', title: chart.xLabel, sort: null, axis: { labelAngle: -40 } }
        : { field: 'x', type: 'quantitative', title: chart.xLabel },
      y: {
        field: 'y',
        type: 'quantitative',
        title: chart.yLabel,
        ...(chart.logScale ? { scale: { type: 'log' } } : {}),
      },
      color: { field: 'series', type: 'nominal', title: null, sort: null, legend: { labelLimit: 400 } },
      ...(sideBySide ? { xOffset: { field: 'series', sort: null } } : {}),
    },
  };
}

const RENDERER = join(__dirname, 'render-svg.mjs');

/** SVG documents of the specs, in order (one `node` process renders them all). */
export function renderSvgs(specs: readonly VegaLiteSpec[]): string[] {
  if (specs.length === 0) return [];
  const output = execFileSync(process.execPath, [RENDERER], {
    input: JSON.stringify(specs),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const svgs = JSON.parse(output) as unknown;
  if (!Array.isArray(svgs) || svgs.length !== specs.length || !svgs.every((svg) => typeof svg === 'string')) {
    throw new Error(`render-svg.mjs answered ${String(output).slice(0, 200)} for ${specs.length} specs`);
  }
  return svgs;
}

/** `<figure-id>.svg` for a figure's only chart, `<figure-id>-1.svg` ... `-n.svg` for several. */
export function chartFileNames(id: FigureId, count: number): string[] {
  if (count === 1) return [`${id}.svg`];
  return Array.from({ length: count }, (_, index) => `${id}-${index + 1}.svg`);
}

/** Whether a file in the charts directory is one of the figure's charts (from this or an earlier run). */
export function isChartOf(id: FigureId, fileName: string): boolean {
  return fileName === `${id}.svg` || new RegExp(`^${id}-\\d+\\.svg$`).test(fileName);
}
