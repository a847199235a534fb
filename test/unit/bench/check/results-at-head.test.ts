/**
 * The results-at-HEAD check on small git repositories of its own (real git, in temporary
 * directories): what changes ask for a new bench run, what does not, and a shallow clone that
 * cannot tell.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gitIn, resultsAtHeadProblems } from '../../../../lib/bench/check';
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

function git(root: string, ...args: string[]): string {
  return execFileSync('git', [...IDENTITY, ...args], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

function commitAll(root: string, message: string): string {
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', message);
  return git(root, 'rev-parse', 'HEAD').trim();
}

/** Every figure of the bench, as a full run holds them (their measurements do not matter here). */
const EVERY_FIGURE: FigureResult[] = FIGURE_IDS.map((id) => ({
  id,
  title: id,
  measurements: [],
  targets: [],
  notes: [],
  charts: [],
}));

function resultsAt(sha: string, overrides: Partial<BenchResults> = {}): BenchResults {
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

describe('resultsAtHeadProblems', () => {
  let root: string;
  let measuredAt: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'results-at-head-'));
    git(root, 'init', '-q');
    write(root, 'lambdas/wing/handlers/agent.ts', 'export const agent = 1;\n');
    write(root, 'lib/wing/stack.ts', 'export const stack = 1;\n');
    write(root, 'lib/release/templates.ts', 'export const templates = 1;\n');
    write(root, 'README.md', '# Project\n');
    write(root, 'test/unit/agent.test.ts', 'it("x", () => {});\n');
    measuredAt = commitAll(root, 'the code the bench measured');
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('passes when nothing the figures measure changed since results.json was measured', () => {
    write(root, 'bench/results.json', '{}\n');
    write(root, 'README.md', '# Project\n\nFigures quoted.\n');
    write(root, 'lib/wing/README.md', 'Prose.\n');
    write(root, 'lib/release/templates.ts', 'export const templates = 2;\n');
    write(root, 'test/unit/agent.test.ts', 'it("y", () => {});\n');
    commitAll(root, 'the results, the docs, the tests');
    expect(resultsAtHeadProblems(resultsAt(measuredAt), gitIn(root))).toEqual([]);
  });

  it('fails when a measured file changed in a later commit, naming it and what to run', () => {
    write(root, 'lambdas/wing/handlers/agent.ts', 'export const agent = 2;\n');
    commitAll(root, 'a change that may move a figure');
    expect(resultsAtHeadProblems(resultsAt(measuredAt), gitIn(root))).toEqual([
      `1 file the figures measure changed since bench/results.json (commit ${measuredAt.slice(0, 12)}, 2026-12-02T04:59:26.613Z): lambdas/wing/handlers/agent.ts; run \`npm run bench\` on a clean tree, then \`npm run bench:check -- --write\` to refresh the quoted figures, and commit bench/ with the change`,
    ]);
  });

  it('counts changes not committed yet, and new files not tracked yet', () => {
    write(root, 'lib/wing/stack.ts', 'export const stack = 2;\n');
    write(root, 'lib/wing/new-construct.ts', 'export const fresh = 1;\n');
    const [problem] = resultsAtHeadProblems(resultsAt(measuredAt), gitIn(root));
    expect(problem).toContain('2 files the figures measure changed since bench/results.json');
    expect(problem).toContain(': lib/wing/new-construct.ts, lib/wing/stack.ts; run `npm run bench`');
  });

  it('fails a quick run, a run of a tree with local changes, and a run whose figures failed, were not built or did not run', () => {
    const results = resultsAt(measuredAt, {
      quick: true,
      commit: { sha: measuredAt, dirty: true },
      figures: EVERY_FIGURE.filter(
        (figure) => !['functions', 'campaign-speed', 'recovery'].includes(figure.id),
      ),
      failed: [{ id: 'functions', message: 'esbuild failed' }],
      notBuilt: ['campaign-speed'],
    });
    const run = `bench/results.json (commit ${measuredAt.slice(0, 12)}, 2026-12-02T04:59:26.613Z)`;
    const rerun =
      'run `npm run bench` on a clean tree, then `npm run bench:check -- --write` to refresh the quoted figures, and commit bench/ with the change';
    expect(resultsAtHeadProblems(results, gitIn(root))).toEqual([
      `${run} is a --quick run, not a measurement: ${rerun}`,
      `${run} was measured on a tree with local changes: ${rerun}`,
      `${run}: figure 'functions' failed (esbuild failed): fix it, then ${rerun}`,
      `${run}: figure 'campaign-speed' was not built: ${rerun}`,
      `${run} does not hold figure 'recovery' (an \`--only\` run?): ${rerun}`,
    ]);
  });

  it('fails, saying why, in a shallow clone without the commit results.json was measured at', () => {
    write(root, 'lambdas/wing/handlers/agent.ts', 'export const agent = 2;\n');
    commitAll(root, 'a later commit');
    const clone = mkdtempSync(join(tmpdir(), 'results-at-head-shallow-'));
    try {
      git(clone, 'clone', '-q', '--depth', '1', `file://${root}`, 'repo');
      expect(resultsAtHeadProblems(resultsAt(measuredAt), gitIn(join(clone, 'repo')))).toEqual([
        `bench/results.json (commit ${measuredAt.slice(0, 12)}, 2026-12-02T04:59:26.613Z): commit ${measuredAt} is not in this clone's history (a shallow clone? \`git fetch --unshallow\`), so nothing can tell whether the figures measure HEAD`,
      ]);
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  });
});
