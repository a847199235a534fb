/**
 * The project's own docs against the committed bench run (docs/performance.md, "Quoted figures"):
 * every figure a Markdown file marks reads as bench/results.json measured it, with the run's
 * commit and date. A figure quoted stale, or a marker the results cannot answer, fails here.
 */
import { join } from 'node:path';
import { checkQuotedFigures, readMarkdownDocuments, readResults } from '../../../../lib/bench/check';

const ROOT = join(__dirname, '../../../..');

describe('the docs quote the committed bench run as measured', () => {
  const results = readResults(join(ROOT, 'bench', 'results.json'));
  const documents = readMarkdownDocuments(ROOT);

  it('reads the docs that quote figures (docs/performance.md among them)', () => {
    const performance = documents.find((document) => document.path === join('docs', 'performance.md'));
    expect(performance?.text).toMatch(/<!-- bench:commit -->/);
    expect(performance?.text.match(/<!-- bench:[^>]*\/[^>]*-->/g)?.length ?? 0).toBeGreaterThan(20);
  });

  it('every marked figure, commit and date is the run of bench/results.json', () => {
    expect(checkQuotedFigures(documents, results)).toEqual([]);
  });
});
