/**
 * Small git projects for the bench checks' tests: real git in a temporary directory, commits with
 * an identity of their own, and results of a full run (every figure, no measurements) at a commit.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FIGURE_IDS, type FigureResult } from '../../../../lib/bench/core/figure';
import type { BenchResults } from '../../../../lib/bench/core/results';

const IDENTITY = [
  '-c',
  'user.name=bench',
  '-c',
  'user.email=bench@example.com',
  '-c',
  'commit.gpgsign=false',
];

export function git(root: string, ...args: string[]): string {
  return execFileSync('git', [...IDENTITY, ...args], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

export function commitAll(root: string, message: string): string {
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', message);
  return git(root, 'rev-parse', 'HEAD').trim();
}

/** Every figure of the bench, as a full run holds them (their measurements do not matter here). */
export const EVERY_FIGURE: FigureResult[] = FIGURE_IDS.map((id) => ({
  id,
  title: id,
  measurements: [],
  targets: [],
  notes: [],
  charts: [],
}));

export function resultsAt(sha: string, overrides: Partial<BenchResults> = {}): BenchResults {
  return {
    schemaVersion: 1,
    commit: { sha, dirty: false },
    startedAt: '2026-12-02T04:59:26.613Z',
    durationSeconds: 416,
    quick: false,
    machine: {
      cpuModel: 'AMD EPYC',
      cpus: 2,
      totalMemoryGiB: 23.5,
      node: 'v20',
      platform: 'linux',
      release: '6',
    },
    figures: EVERY_FIGURE,
    notBuilt: [],
    failed: [],
    ...overrides,
  };
}
