/**
 * What `npm run bench:check` does, on a project root (bin/bench-check.ts is its command line):
 * optionally rewrites the quoted figures to the committed run, then runs every check of
 * docs/performance.md's "Quoted figures and results at HEAD" and returns their problems.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { committedChartProblems } from './committed-charts';
import { checkQuotedFigures, readMarkdownDocuments, rewriteQuotedFigures } from './quoted-figures';
import { readResults } from './read-results';
import { gitIn, resultsAtHeadProblems } from './results-at-head';

export interface BenchCheckOptions {
  /** The project root: bench/results.json, bench/charts/ and the Markdown files are read under it. */
  readonly root: string;
  /** Rewrite each marked figure, commit and date to bench/results.json first (`--write`). */
  readonly write: boolean;
  /** One line for the terminal: each file `write` changed, with its lines. */
  readonly log: (line: string) => void;
}

/** Every problem found, one line each naming what to run (empty: the docs quote the results at HEAD). */
export function runBenchChecks(options: BenchCheckOptions): string[] {
  const results = readResults(join(options.root, 'bench', 'results.json'));
  let documents = readMarkdownDocuments(options.root);
  if (options.write) {
    documents = documents.map((document) => {
      const { text, changedLines } = rewriteQuotedFigures(document, results);
      if (changedLines.length === 0) return document;
      writeFileSync(join(options.root, document.path), text);
      options.log(
        `rewrote ${document.path}: lines ${changedLines.join(', ')} (reread the words around them)`,
      );
      return { path: document.path, text };
    });
  }
  return [
    ...checkQuotedFigures(documents, results),
    ...resultsAtHeadProblems(results, gitIn(options.root)),
    ...committedChartProblems(results, join(options.root, 'bench', 'charts')),
  ];
}
