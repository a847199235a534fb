/**
 * `npm run bench:check [-- --write]`: checks what the docs say about the bench against the
 * committed bench/results.json (docs/performance.md, "Quoted figures and results at HEAD"): every
 * marked figure in every Markdown file reads as measured, results.json measures the code the tree
 * holds, and bench/charts/ holds exactly the charts it draws. `--write` first rewrites each marked
 * figure, commit and date to the results (and lists the lines it changed: reread the words around
 * them). Exit 1 on any problem, each named with what to run; 2 on an unknown argument.
 */
import { runBenchChecks } from '../lib/bench/check';
import { PROJECT_ROOT } from '../lib/local-runtime';

const USAGE = 'usage: npm run bench:check [-- --write]';

function main(argv: readonly string[]): number {
  const unknown = argv.filter((argument) => argument !== '--write');
  if (unknown.length > 0) {
    console.error(`unknown argument: ${unknown.join(' ')}\n${USAGE}`);
    return 2;
  }
  const problems = runBenchChecks({
    root: PROJECT_ROOT,
    write: argv.includes('--write'),
    log: (line) => console.log(line),
  });
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) return 1;
  console.log(
    'bench/results.json is the results at HEAD, its charts are committed, and the docs quote it as measured',
  );
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
