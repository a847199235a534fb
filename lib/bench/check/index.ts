/**
 * The checks of what the docs say about the bench (docs/performance.md, "Quoted figures" and
 * "Results at HEAD"): `npm run bench:check` and the unit test of the docs run them.
 */
export { committedChartProblems } from './committed-charts';
export {
  checkQuotedFigures,
  type FigureReference,
  parseReference,
  type QuotedDocument,
  readMarkdownDocuments,
  rewriteQuotedFigures,
  runDate,
} from './quoted-figures';
export { readResults } from './read-results';
export {
  type Git,
  gitIn,
  MEASURED_PATHS,
  NOT_MEASURED,
  RERUN,
  resultsAtHeadProblems,
} from './results-at-head';
export { type BenchCheckOptions, runBenchChecks } from './run-bench-checks';
