/**
 * "Results at HEAD" (docs/performance.md): the committed bench/results.json must measure the code
 * the tree holds. Its commit cannot be HEAD (committing the results makes a new HEAD), so what is
 * checked is what can be: results.json is a full run of a clean tree in which every figure ran, and no file
 * the figures measure differs between results.json's commit and the working tree (`git diff
 * --name-only <commit> -- <paths>`, plus files not yet tracked). That needs the commit in the
 * clone's history: without it (a shallow clone) the check fails saying so, it does not pass.
 */
import { execFileSync } from 'node:child_process';
import { FIGURE_IDS } from '../core/figure';
import type { BenchResults } from '../core/results';

/**
 * What the figures measure: a change under any of these may move a figure. The wings, the platform
 * and the shared code they deploy, the local runtime the figures run on, the harness and chaos
 * campaign some figures drive, the bench itself, and the dependencies and CDK context.
 */
export const MEASURED_PATHS: readonly string[] = [
  'lambdas',
  'lib',
  'bin/bench.ts',
  'package.json',
  'package-lock.json',
  'cdk.json',
];

/**
 * Under those paths, what measures nothing: prose, the release tooling (no figure synthesizes a
 * release template), and this check and the quoted-figures check themselves.
 */
export const NOT_MEASURED: readonly RegExp[] = [/\.md$/, /^lib\/release\//, /^lib\/bench\/check\//];

/** Runs git in the repository and returns its stdout; throws when git exits non-zero. */
export type Git = (args: readonly string[]) => string;

export function gitIn(root: string): Git {
  return (args) =>
    execFileSync('git', [...args], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** What a message about stale results asks for. */
export const RERUN =
  'run `npm run bench` on a clean tree, then `npm run bench:check -- --write` to refresh the quoted figures, and commit bench/ with the change';

/** How many changed files a message lists before "and N more". */
const LISTED = 10;

/**
 * Why the committed results are not the results at HEAD, one line each (empty: they are).
 * `resultsName` is how messages name the file.
 */
export function resultsAtHeadProblems(
  results: BenchResults,
  git: Git,
  resultsName = 'bench/results.json',
): string[] {
  const problems: string[] = [];
  const sha = results.commit.sha;
  const run = `${resultsName} (commit ${sha.slice(0, 12)}, ${results.startedAt})`;
  if (results.quick) problems.push(`${run} is a --quick run, not a measurement: ${RERUN}`);
  if (results.commit.dirty) problems.push(`${run} was measured on a tree with local changes: ${RERUN}`);
  for (const failure of results.failed) {
    problems.push(`${run}: figure '${failure.id}' failed (${failure.message}): fix it, then ${RERUN}`);
  }
  for (const id of results.notBuilt) problems.push(`${run}: figure '${id}' was not built: ${RERUN}`);
  const ran = new Set(results.figures.map((figure) => figure.id));
  for (const id of FIGURE_IDS) {
    if (
      !ran.has(id) &&
      !results.notBuilt.includes(id) &&
      !results.failed.some((failure) => failure.id === id)
    ) {
      problems.push(`${run} does not hold figure '${id}' (an \`--only\` run?): ${RERUN}`);
    }
  }
  try {
    git(['cat-file', '-e', `${sha}^{commit}`]);
  } catch {
    problems.push(
      `${run}: commit ${sha} is not in this clone's history (a shallow clone? \`git fetch --unshallow\`), so nothing can tell whether the figures measure HEAD`,
    );
    return problems;
  }
  const changed = [
    ...git(['diff', '--name-only', sha, '--', ...MEASURED_PATHS]).split('\n'),
    ...git(['ls-files', '--others', '--exclude-standard', '--', ...MEASURED_PATHS]).split('\n'),
  ]
    .filter((path) => path !== '' && !NOT_MEASURED.some((pattern) => pattern.test(path)))
    .sort();
  if (changed.length > 0) {
    const listed = changed.slice(0, LISTED).join(', ');
    const more = changed.length > LISTED ? ` and ${changed.length - LISTED} more` : '';
    const files = changed.length === 1 ? '1 file' : `${changed.length} files`;
    problems.push(`${files} the figures measure changed since ${run}: ${listed}${more}; ${RERUN}`);
  }
  return problems;
}
