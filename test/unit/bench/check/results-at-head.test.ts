/**
 * The results-at-HEAD check on small git repositories of its own (real git, in temporary
 * directories): what changes ask for a new bench run, what does not, and a shallow clone that
 * cannot tell.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitIn, resultsAtHeadProblems } from '../../../../lib/bench/check';
import { commitAll, EVERY_FIGURE, git, resultsAt, write } from './git-fixture';

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
