/**
 * What a bench run leaves behind: results.json (the figures with the machine and the commit they
 * were measured on), one SVG per chart, and the table printed on the terminal.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { chartFileNames, isChartOf } from './charts';
import type { FigureId, FigureResult, TargetCheck } from './figure';

export const RESULTS_SCHEMA_VERSION = 1;

export interface MachineInfo {
  readonly cpuModel: string;
  readonly cpus: number;
  readonly totalMemoryGiB: number;
  /** Node.js version, e.g. `v20.20.2`. */
  readonly node: string;
  readonly platform: NodeJS.Platform;
  /** Operating system release (os.release()). */
  readonly release: string;
}

export interface CommitInfo {
  /** `git rev-parse HEAD`. */
  readonly sha: string;
  /** Whether the working tree had changes (`git status --porcelain` not empty) when the run started. */
  readonly dirty: boolean;
}

/** A figure that threw: the runner went on with the others and exits 1. */
export interface FigureFailure {
  readonly id: FigureId;
  readonly message: string;
}

export interface BenchResults {
  readonly schemaVersion: typeof RESULTS_SCHEMA_VERSION;
  readonly commit: CommitInfo;
  /** ISO 8601. */
  readonly startedAt: string;
  readonly durationSeconds: number;
  readonly quick: boolean;
  readonly machine: MachineInfo;
  readonly figures: readonly FigureResult[];
  /** Figures asked for that are not in the registry yet. */
  readonly notBuilt: readonly FigureId[];
  readonly failed: readonly FigureFailure[];
}

export function machineInfo(): MachineInfo {
  const processors = cpus();
  return {
    cpuModel: processors[0]?.model.trim() ?? 'unknown',
    cpus: processors.length,
    totalMemoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: process.platform,
    release: release(),
  };
}

export function commitInfo(repositoryRoot: string): CommitInfo {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: repositoryRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { sha: git('rev-parse', 'HEAD').trim(), dirty: git('status', '--porcelain').trim() !== '' };
}

/** A number for people: thousands separated; no decimals from 100, two from 1, three below 1. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const magnitude = Math.abs(value);
  const fractionDigits = Number.isInteger(value) || magnitude >= 100 ? 0 : magnitude >= 1 ? 2 : 3;
  return value.toLocaleString('en-US', { maximumFractionDigits: fractionDigits });
}

function formatBound(target: TargetCheck): string {
  return `${target.comparison === 'atMost' ? '<=' : '>='} ${formatNumber(target.bound)}`;
}

export const TABLE_HEADER = ['Figure', 'Measurement', 'Value', 'Target', 'Met'] as const;

/**
 * The terminal table: each figure's measurements, then its targets (measured value, bound, met?),
 * then a line for each figure that threw or is not built yet.
 */
export function tableRows(results: Pick<BenchResults, 'figures' | 'failed' | 'notBuilt'>): string[][] {
  const rows: string[][] = [[...TABLE_HEADER]];
  for (const figure of results.figures) {
    for (const measurement of figure.measurements) {
      rows.push([
        figure.id,
        measurement.label,
        `${formatNumber(measurement.value)} ${measurement.unit}`,
        '',
        '',
      ]);
    }
    for (const target of figure.targets) {
      rows.push([
        figure.id,
        `target: ${target.description}`,
        formatNumber(target.actual),
        formatBound(target),
        target.met ? 'yes' : 'NO',
      ]);
    }
  }
  for (const failure of results.failed) rows.push([failure.id, `FAILED: ${failure.message}`, '', '', '']);
  for (const id of results.notBuilt) rows.push([id, 'not built yet', '', '', '']);
  return rows;
}

/** The chart files of each figure, in the order of its charts. */
export function chartFiles(figures: readonly FigureResult[]): { id: FigureId; fileName: string }[] {
  return figures.flatMap((figure) =>
    chartFileNames(figure.id, figure.charts.length).map((fileName) => ({ id: figure.id, fileName })),
  );
}

/**
 * Writes `<outDir>/results.json` and `<outDir>/charts/<file>` (svgs in chartFiles order). Charts
 * an earlier run left for the figures of this run are removed first, so none outlives its figure.
 */
export function writeResults(
  outDir: string,
  results: BenchResults,
  ranFigures: readonly FigureId[],
  svgs: readonly string[],
): { resultsFile: string; chartPaths: string[] } {
  const chartsDir = join(outDir, 'charts');
  mkdirSync(chartsDir, { recursive: true });
  for (const fileName of readdirSync(chartsDir)) {
    if (ranFigures.some((id) => isChartOf(id, fileName))) rmSync(join(chartsDir, fileName));
  }
  const files = chartFiles(results.figures);
  if (files.length !== svgs.length) {
    throw new Error(`${svgs.length} SVGs for ${files.length} charts`);
  }
  const chartPaths = files.map(({ fileName }, index) => {
    const path = join(chartsDir, fileName);
    writeFileSync(path, `${svgs[index]}\n`);
    return path;
  });
  const resultsFile = join(outDir, 'results.json');
  // A figure's batches are for the figures that need them; the figure that reads them records what it used.
  const figures = results.figures.map(({ batches: _batches, ...figure }) => figure);
  writeFileSync(resultsFile, `${JSON.stringify({ ...results, figures }, null, 2)}\n`);
  return { resultsFile, chartPaths };
}
