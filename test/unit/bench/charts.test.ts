import { chartFileNames, isChartOf, renderSvgs, toVegaLite } from '../../../lib/bench/core/charts';
import type { ChartSpec } from '../../../lib/bench/core/figure';

const bars: ChartSpec = {
  kind: 'bar',
  title: 'Bundle size <per handler> & bare',
  xLabel: 'handler',
  yLabel: 'KB',
  points: [
    { series: 'ours', x: 'agent', y: 370 },
    { series: 'ours', x: 'starter', y: 318 },
    { series: 'baseline', x: 'agent', y: 1 },
  ],
};

const lines: ChartSpec = {
  kind: 'line',
  title: 'Read units of one sweep',
  xLabel: 'records',
  yLabel: 'RCU',
  logScale: true,
  points: [
    { series: 'ours', x: 1000, y: 3 },
    { series: 'ours', x: 20000, y: 3.2 },
    { series: 'scan', x: 1000, y: 130 },
    { series: 'scan', x: 20000, y: 2600 },
  ],
};

/** The SVG elements drawn inside the one mark container of a class (`rect`, `symbol`). */
function marksIn(svg: string, markClass: string): number {
  const container = new RegExp(`<g class="mark-${markClass} role-mark[^"]*"[^>]*>(.*?)</g>`).exec(svg);
  return container?.[1]?.match(/<path /g)?.length ?? 0;
}

describe('toVegaLite', () => {
  it('keeps every point, the labels and the order of the categories', () => {
    const spec = toVegaLite(bars);
    expect(spec.title).toBe(bars.title);
    expect(spec.data.values).toEqual(bars.points);
    expect(spec.mark.type).toBe('bar');
    expect(spec.encoding.x).toMatchObject({ field: 'x', type: 'nominal', title: 'handler', sort: null });
    expect(spec.encoding.y).toMatchObject({ field: 'y', type: 'quantitative', title: 'KB' });
    expect(spec.encoding.y).not.toHaveProperty('scale');
    // Two series: their bars stand side by side, not stacked.
    expect(spec.encoding.xOffset).toMatchObject({ field: 'series' });
  });

  it('draws a line per series on a quantitative x, with a log y when asked', () => {
    const spec = toVegaLite(lines);
    expect(spec.mark).toMatchObject({ type: 'line', point: true });
    expect(spec.encoding.x).toMatchObject({ field: 'x', type: 'quantitative', title: 'records' });
    expect(spec.encoding.y).toMatchObject({ scale: { type: 'log' } });
    expect(spec.encoding).not.toHaveProperty('xOffset');
  });

  it('does not offset bars when no category has more than one series', () => {
    const single = toVegaLite({ ...bars, points: bars.points.filter((point) => point.series === 'ours') });
    expect(single.encoding).not.toHaveProperty('xOffset');
    const apart = toVegaLite({
      ...bars,
      points: [...single.data.values, { series: 'bare', x: 'bare', y: 1 }],
    });
    expect(apart.encoding).not.toHaveProperty('xOffset');
  });
});

describe('renderSvgs (vega + vega-lite, headless)', () => {
  let barSvg = '';
  let lineSvg = '';
  beforeAll(() => {
    [barSvg = '', lineSvg = ''] = renderSvgs([toVegaLite(bars), toVegaLite(lines)]);
  });

  it('renders one SVG per spec, each with its title', () => {
    expect(barSvg.startsWith('<svg')).toBe(true);
    expect(barSvg).toContain('Bundle size &lt;per handler&gt; &amp; bare');
    expect(lineSvg.startsWith('<svg')).toBe(true);
    expect(lineSvg).toContain('Read units of one sweep');
  });

  it('draws one mark per point', () => {
    expect(marksIn(barSvg, 'rect')).toBe(bars.points.length);
    expect(marksIn(lineSvg, 'symbol')).toBe(lines.points.length);
  });

  it('renders nothing for no spec, without starting a process', () => {
    expect(renderSvgs([])).toEqual([]);
  });
});

describe('chart file names', () => {
  it('names a lone chart after its figure and numbers several', () => {
    expect(chartFileNames('functions', 1)).toEqual(['functions.svg']);
    expect(chartFileNames('functions', 2)).toEqual(['functions-1.svg', 'functions-2.svg']);
    expect(chartFileNames('functions', 0)).toEqual([]);
  });

  it('tells a figure chart from another figure chart', () => {
    expect(isChartOf('recovery', 'recovery.svg')).toBe(true);
    expect(isChartOf('recovery', 'recovery-3.svg')).toBe(true);
    expect(isChartOf('recovery', 'recovery-x.svg')).toBe(false);
    expect(isChartOf('order-cost', 'order-cost-extra.svg')).toBe(false);
    expect(isChartOf('functions', 'local-throughput.svg')).toBe(false);
  });
});
