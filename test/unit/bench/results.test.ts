import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkTarget, type FigureResult } from '../../../lib/bench/core/figure';
import {
  type BenchResults,
  chartFiles,
  formatNumber,
  machineInfo,
  RESULTS_SCHEMA_VERSION,
  TABLE_HEADER,
  tableRows,
  writeResults,
} from '../../../lib/bench/core/results';

const chart = { kind: 'bar', title: 't', xLabel: 'x', yLabel: 'y', points: [] } as const;

const functions: FigureResult = {
  id: 'functions',
  title: 'Functions',
  measurements: [
    { key: 'size.agent', label: 'Bundle size, agent', value: 370.4, unit: 'KB' },
    { key: 'functions', label: 'Functions', value: 28, unit: 'count' },
  ],
  targets: [
    checkTarget('largest bundle <= 500 KB', 370.4, 'atMost', 500),
    checkTarget('slowest cold init <= 100 ms', 412.25, 'atMost', 100),
  ],
  notes: ['how it was measured'],
  charts: [chart, chart],
};

const sweep: FigureResult = {
  id: 'supervisor-sweep',
  title: 'Sweep',
  measurements: [{ key: 'ratio', label: '20k/1k ratio (ours)', value: 1.0312, unit: 'ratio' }],
  targets: [checkTarget('20k/1k ratio >= 0.5', 0.75, 'atLeast', 0.5)],
  notes: [],
  charts: [chart],
};

function results(figures: readonly FigureResult[]): BenchResults {
  return {
    schemaVersion: RESULTS_SCHEMA_VERSION,
    commit: { sha: 'a'.repeat(40), dirty: false },
    startedAt: '2026-01-01T00:00:00.000Z',
    durationSeconds: 12.3,
    quick: true,
    machine: machineInfo(),
    figures,
    notBuilt: ['recovery'],
    failed: [{ id: 'order-cost', message: 'DynamoDB Local did not start' }],
  };
}

describe('formatNumber', () => {
  it('separates thousands and keeps decimals only where they matter', () => {
    expect(formatNumber(20000)).toBe('20,000');
    expect(formatNumber(1234.56)).toBe('1,235');
    expect(formatNumber(370.44)).toBe('370');
    expect(formatNumber(12.345)).toBe('12.35');
    expect(formatNumber(0.04567)).toBe('0.046');
    expect(formatNumber(-3.5)).toBe('-3.5');
    expect(formatNumber(Number.NaN)).toBe('NaN');
  });
});

describe('tableRows', () => {
  const rows = tableRows(results([functions, sweep]));

  it('starts with the header', () => {
    expect(rows[0]).toEqual([...TABLE_HEADER]);
  });

  it('lists each measurement with its value and unit, then each target with bound and verdict', () => {
    expect(rows.slice(1)).toEqual([
      ['functions', 'Bundle size, agent', '370 KB', '', ''],
      ['functions', 'Functions', '28 count', '', ''],
      ['functions', 'target: largest bundle <= 500 KB', '370', '<= 500', 'yes'],
      ['functions', 'target: slowest cold init <= 100 ms', '412', '<= 100', 'NO'],
      ['supervisor-sweep', '20k/1k ratio (ours)', '1.03 ratio', '', ''],
      ['supervisor-sweep', 'target: 20k/1k ratio >= 0.5', '0.75', '>= 0.5', 'yes'],
      ['order-cost', 'FAILED: DynamoDB Local did not start', '', '', ''],
      ['recovery', 'not built yet', '', '', ''],
    ]);
  });

  it('gives every row as many cells as the header', () => {
    for (const row of rows) expect(row).toHaveLength(TABLE_HEADER.length);
  });
});

describe('machineInfo', () => {
  it('describes this machine', () => {
    const machine = machineInfo();
    expect(machine.cpus).toBeGreaterThan(0);
    expect(machine.totalMemoryGiB).toBeGreaterThan(0);
    expect(machine.node).toBe(process.version);
    expect(machine.platform).toBe(process.platform);
    expect(machine.cpuModel).not.toBe('');
  });
});

describe('writeResults', () => {
  let outDir: string;
  beforeEach(() => {
    outDir = mkdtempSync(join(tmpdir(), 'bench-results-'));
  });
  afterEach(() => rmSync(outDir, { recursive: true, force: true }));

  it('writes results.json and one SVG per chart, named after its figure', () => {
    const document = results([functions, sweep]);
    const written = writeResults(
      outDir,
      document,
      ['functions', 'supervisor-sweep'],
      ['<svg>1</svg>', '<svg>2</svg>', '<svg>3</svg>'],
    );

    expect(JSON.parse(readFileSync(join(outDir, 'results.json'), 'utf8'))).toEqual(document);
    expect(readdirSync(join(outDir, 'charts')).sort()).toEqual([
      'functions-1.svg',
      'functions-2.svg',
      'supervisor-sweep.svg',
    ]);
    expect(readFileSync(join(outDir, 'charts', 'functions-2.svg'), 'utf8')).toBe('<svg>2</svg>\n');
    expect(written.chartPaths).toEqual(
      chartFiles(document.figures).map(({ fileName }) => join(outDir, 'charts', fileName)),
    );
  });

  it("removes the charts an earlier run left for this run's figures, and only those", () => {
    writeResults(outDir, results([functions, sweep]), ['functions', 'supervisor-sweep'], ['a', 'b', 'c']);
    writeFileSync(join(outDir, 'charts', 'functions-3.svg'), 'stale');

    writeResults(outDir, results([]), ['functions'], []);

    expect(readdirSync(join(outDir, 'charts'))).toEqual(['supervisor-sweep.svg']);
  });

  it("leaves a figure's batches out of results.json (they are for the figures that read them)", () => {
    const work = {
      stateMachines: {},
      functions: {},
      queues: {},
      tables: {},
      apis: {},
      buses: {},
      topics: {},
    };
    const withBatches = { ...sweep, batches: { processed: { unit: 'order', units: 2, work } } };
    writeResults(outDir, results([withBatches]), ['supervisor-sweep'], ['<svg/>']);
    expect(JSON.parse(readFileSync(join(outDir, 'results.json'), 'utf8'))).toEqual(results([sweep]));
  });

  it('refuses SVGs that do not match the charts', () => {
    expect(() => writeResults(outDir, results([functions]), ['functions'], ['<svg/>'])).toThrow(
      '1 SVGs for 2 charts',
    );
  });
});
