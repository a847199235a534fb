import { checkQuotedFigures, rewriteQuotedFigures } from '../../../../lib/bench/check';
import type { FigureResult } from '../../../../lib/bench/core/figure';
import type { BenchResults } from '../../../../lib/bench/core/results';
import { resultsAt } from './git-fixture';

const SHA = 'abcdef0123456789abcdef0123456789abcdef01';

const orderCost: FigureResult = {
  id: 'order-cost',
  title: 'State transitions and cost per 1,000 orders',
  measurements: [
    { key: 'processed.usdPer1000', label: 'cost', value: 0.3158, unit: 'USD' },
    { key: 'processed.usdPer1000.Step Functions', label: 'Step Functions', value: 0.25, unit: 'USD' },
    { key: 'processed.orders', label: 'orders', value: 1234, unit: 'count' },
    { key: 'size.lambdas/agent', label: 'size', value: 377.8, unit: 'KB' },
  ],
  targets: [],
  notes: [],
  charts: [],
};

const results: BenchResults = resultsAt(SHA, {
  figures: [orderCost],
  notBuilt: [],
  failed: [],
});

/** A run's heading as a doc quotes it, then the given lines. */
function doc(...lines: string[]): { path: string; text: string } {
  return {
    path: 'docs/x.md',
    text: [`Run at abcdef0<!-- bench:commit --> on 2026-12-02<!-- bench:date -->.`, ...lines].join('\n'),
  };
}

describe('checkQuotedFigures', () => {
  it('passes figures that read as the bench writes the measured value', () => {
    const document = doc(
      '**$0.316<!-- bench:order-cost/processed.usdPer1000 --> per 1,000 orders**, Step Functions',
      '$0.25<!-- bench:order-cost/processed.usdPer1000.Step Functions -->; 1,234<!-- bench:order-cost/processed.orders -->',
      'orders, 378<!-- bench:order-cost/size.lambdas/agent --> KB, in 416<!-- bench:run/durationSeconds --> s on',
      '2<!-- bench:run/machine.cpus --> cores.',
    );
    expect(checkQuotedFigures([document], results)).toEqual([]);
  });

  it('fails a figure that differs, naming the file and line, the key, the quoted and the measured value', () => {
    const document = doc('costs $0.32<!-- bench:order-cost/processed.usdPer1000 --> per 1,000');
    expect(checkQuotedFigures([document], results)).toEqual([
      'docs/x.md:2: order-cost/processed.usdPer1000: quoted 0.32, measured 0.3158 in bench/results.json (write 0.316)',
    ]);
  });

  it('holds counts to their thousands separators and drops trailing zeros', () => {
    const document = doc(
      '1234<!-- bench:order-cost/processed.orders --> orders, $0.250<!-- bench:order-cost/processed.usdPer1000.Step Functions -->',
    );
    expect(checkQuotedFigures([document], results)).toEqual([
      'docs/x.md:2: order-cost/processed.orders: quoted 1234, measured 1234 in bench/results.json (write 1,234)',
      'docs/x.md:2: order-cost/processed.usdPer1000.Step Functions: quoted 0.250, measured 0.25 in bench/results.json (write 0.25)',
    ]);
  });

  it('fails a marker naming a key or a figure results.json does not hold', () => {
    const document = doc(
      '$0.2<!-- bench:order-cost/delivered.usdPer1000 --> a delivery; 6<!-- bench:capacity/orders.firstBinding -->',
      '5<!-- bench:run/machine.cores --> cores',
    );
    expect(checkQuotedFigures([document], results)).toEqual([
      "docs/x.md:2: order-cost/delivered.usdPer1000: quoted 0.2, but bench/results.json has no measurement 'delivered.usdPer1000' in figure 'order-cost'",
      "docs/x.md:2: capacity/orders.firstBinding: quoted 6, but figure 'capacity' is not in bench/results.json (its figures: order-cost)",
      "docs/x.md:3: run/machine.cores: quoted 5, but bench/results.json has no number at 'machine.cores'",
    ]);
  });

  it("fails a quoted commit or date that is not the run's", () => {
    const document = {
      path: 'README.md',
      text: 'bench at 1446737<!-- bench:commit -->, 2026-12-01<!-- bench:date -->: $0.316<!-- bench:order-cost/processed.usdPer1000 -->',
    };
    expect(checkQuotedFigures([document], results)).toEqual([
      `README.md:1: commit: quoted 1446737, measured ${SHA} in bench/results.json (write abcdef0)`,
      'README.md:1: date: quoted 2026-12-01, measured 2026-12-02 (startedAt 2026-12-02T04:59:26.613Z) in bench/results.json (write 2026-12-02)',
    ]);
  });

  it('fails a file that quotes figures without naming the run', () => {
    const document = {
      path: 'README.md',
      text: '$0.316<!-- bench:order-cost/processed.usdPer1000 --> per 1,000',
    };
    expect(checkQuotedFigures([document], results)).toEqual([
      "README.md: quotes bench figures but not the run's commit (add `<!-- bench:commit -->` right after it)",
      "README.md: quotes bench figures but not the run's date (add `<!-- bench:date -->` right after it)",
    ]);
  });

  it('fails a marker with no number right before it, and a marker that names nothing', () => {
    const document = doc(
      '$0.316 <!-- bench:order-cost/processed.usdPer1000 --> per 1,000',
      'at <!-- bench:commit --> and 3<!-- bench:usdPer1000 -->',
    );
    expect(checkQuotedFigures([document], results)).toEqual([
      'docs/x.md:2: order-cost/processed.usdPer1000: no number right before the marker (write the figure, then the marker, with no space)',
      'docs/x.md:3: commit: no commit (7 to 40 hex digits) right before the marker (write the figure, then the marker, with no space)',
      "docs/x.md:3: '<!-- bench:usdPer1000 -->': a marker names 'commit', 'date', 'run/<field>' or '<figure id>/<measurement key>'",
    ]);
  });

  it('reads no marker in code spans or fenced blocks, and asks nothing of a file without markers', () => {
    const document = {
      path: 'docs/how.md',
      text: [
        'Write `$0.32<!-- bench:order-cost/processed.usdPer1000 -->` like this:',
        '```markdown',
        '9<!-- bench:order-cost/nothing -->',
        '```',
        'The chaos campaign (npm run chaos, at ea301db): 1,000 orders in 478.7 s.',
      ].join('\n'),
    };
    expect(checkQuotedFigures([document], results)).toEqual([]);
  });

  it('names the results file as it is told', () => {
    const document = doc('$0.3<!-- bench:order-cost/processed.usdPer1000 -->');
    expect(checkQuotedFigures([document], results, '.local/bench/results.json')).toEqual([
      'docs/x.md:2: order-cost/processed.usdPer1000: quoted 0.3, measured 0.3158 in .local/bench/results.json (write 0.316)',
    ]);
  });
});

describe('rewriteQuotedFigures', () => {
  it('rewrites stale figures, the commit and the date to the run, and leaves the words and unknown keys', () => {
    const document = {
      path: 'README.md',
      text: [
        'bench at 1446737<!-- bench:commit --> on 2026-12-01<!-- bench:date -->:',
        '**$0.32<!-- bench:order-cost/processed.usdPer1000 --> per 1,000 orders** (not met)',
        'unchanged 1,234<!-- bench:order-cost/processed.orders --> and 7<!-- bench:order-cost/nothing -->',
      ].join('\n'),
    };
    const rewritten = rewriteQuotedFigures(document, results);
    expect(rewritten.changedLines).toEqual([1, 2]);
    expect(rewritten.text).toBe(
      [
        'bench at abcdef0<!-- bench:commit --> on 2026-12-02<!-- bench:date -->:',
        '**$0.316<!-- bench:order-cost/processed.usdPer1000 --> per 1,000 orders** (not met)',
        'unchanged 1,234<!-- bench:order-cost/processed.orders --> and 7<!-- bench:order-cost/nothing -->',
      ].join('\n'),
    );
    expect(checkQuotedFigures([{ path: 'README.md', text: rewritten.text }], results)).toEqual([
      "README.md:3: order-cost/nothing: quoted 7, but bench/results.json has no measurement 'nothing' in figure 'order-cost'",
    ]);
  });
});
