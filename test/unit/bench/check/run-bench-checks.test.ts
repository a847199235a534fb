/**
 * `npm run bench:check` on a small project of its own (real git, real files): `--write` brings a
 * stale quoted figure, commit and date to the committed run and says which lines it changed;
 * without it the same doc is reported; every check's problems come back together.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RERUN, runBenchChecks } from '../../../../lib/bench/check';
import { commitAll, EVERY_FIGURE, git, resultsAt, write } from './git-fixture';

const STALE_DOC = [
  '# Cost',
  '',
  'At 1446737<!-- bench:commit -->, 2026-12-01<!-- bench:date -->: **$0.32<!-- bench:order-cost/processed.usdPer1000 --> per 1,000 orders**.',
  '',
].join('\n');

describe('runBenchChecks', () => {
  let root: string;
  let measuredAt: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'bench-check-'));
    git(root, 'init', '-q');
    write(root, 'lambdas/wing/handlers/agent.ts', 'export const agent = 1;\n');
    measuredAt = commitAll(root, 'the code the bench measured');
    const figures = EVERY_FIGURE.map((figure) =>
      figure.id === 'order-cost'
        ? {
            ...figure,
            measurements: [{ key: 'processed.usdPer1000', label: 'cost', value: 0.3158, unit: 'USD' }],
          }
        : figure,
    );
    write(root, 'bench/results.json', `${JSON.stringify(resultsAt(measuredAt, { figures }), null, 2)}\n`);
    write(root, 'bench/charts/.keep', '');
    write(root, 'docs/cost.md', STALE_DOC);
    commitAll(root, 'the results and the docs');
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('reports the stale doc without --write, and changes nothing', () => {
    const log: string[] = [];
    expect(runBenchChecks({ root, write: false, log: (line) => log.push(line) })).toEqual([
      `docs/cost.md:3: commit: quoted 1446737, measured ${measuredAt} in bench/results.json (write ${measuredAt.slice(0, 7)})`,
      'docs/cost.md:3: date: quoted 2026-12-01, measured 2026-12-02 (startedAt 2026-12-02T04:59:26.613Z) in bench/results.json (write 2026-12-02)',
      'docs/cost.md:3: order-cost/processed.usdPer1000: quoted 0.32, measured 0.3158 in bench/results.json (write 0.316)',
    ]);
    expect(log).toEqual([]);
    expect(readFileSync(join(root, 'docs/cost.md'), 'utf8')).toBe(STALE_DOC);
  });

  it('with --write, rewrites the figures to the run and names the lines it changed', () => {
    const log: string[] = [];
    expect(runBenchChecks({ root, write: true, log: (line) => log.push(line) })).toEqual([]);
    expect(log).toEqual(['rewrote docs/cost.md: lines 3 (reread the words around them)']);
    expect(readFileSync(join(root, 'docs/cost.md'), 'utf8')).toBe(
      STALE_DOC.replace('1446737', measuredAt.slice(0, 7))
        .replace('2026-12-01', '2026-12-02')
        .replace('$0.32<', '$0.316<'),
    );
  });

  it('returns the results-at-HEAD and the charts problems with the quoted figures', () => {
    write(root, 'lambdas/wing/handlers/agent.ts', 'export const agent = 2;\n');
    write(root, 'bench/charts/order-cost.svg', '<svg>another run</svg>\n');
    const problems = runBenchChecks({ root, write: true, log: () => undefined });
    expect(problems).toEqual([
      expect.stringContaining('1 file the figures measure changed since bench/results.json'),
      `bench/charts/order-cost.svg: no figure of the results draws it (a chart of another run?): ${RERUN}`,
    ]);
  });
});
