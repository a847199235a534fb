/**
 * `npm run bench:check [-- --write]`: checks what the docs say about the bench against the
 * committed bench/results.json (docs/performance.md, "Quoted figures" and "Results at HEAD"):
 * every marked figure in every Markdown file reads as measured, results.json measures the code
 * the tree holds, and bench/charts/ holds exactly the charts it draws. `--write` first rewrites
 * each marked figure, commit and date to the results (and lists the lines it changed: reread the
 * words around them). Exit 1 on any problem, each named with what to run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  checkQuotedFigures,
  committedChartProblems,
  gitIn,
  readMarkdownDocuments,
  readResults,
  resultsAtHeadProblems,
  rewriteQuotedFigures,
} from '../lib/bench/check';
import { PROJECT_ROOT } from '../lib/local-runtime';

const USAGE = 'usage: npm run bench:check [-- --write]';

function main(argv: readonly string[]): number {
  const unknown = argv.filter((argument) => argument !== '--write');
  if (unknown.length > 0) {
    console.error(`unknown argument: ${unknown.join(' ')}\n${USAGE}`);
    return 2;
  }
  const results = readResults(join(PROJECT_ROOT, 'bench', 'results.json'));
  let documents = readMarkdownDocuments(PROJECT_ROOT);
  if (argv.includes('--write')) {
    documents = documents.map((document) => {
      const { text, changedLines } = rewriteQuotedFigures(document, results);
      if (changedLines.length === 0) return document;
      writeFileSync(join(PROJECT_ROOT, document.path), text);
      console.log(
        `rewrote ${document.path}: lines ${changedLines.join(', ')} (reread the words around them)`,
      );
      return { path: document.path, text };
    });
  }
  const problems = [
    ...checkQuotedFigures(documents, results),
    ...resultsAtHeadProblems(results, gitIn(PROJECT_ROOT)),
    ...committedChartProblems(results, join(PROJECT_ROOT, 'bench', 'charts')),
  ];
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) return 1;
  console.log(
    `bench/results.json (commit ${results.commit.sha.slice(0, 12)}, ${results.startedAt}) is the results at HEAD, and the docs quote it as measured`,
  );
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
