import { parseBenchArguments } from '../../../lib/bench/core/arguments';
import { FIGURE_IDS } from '../../../lib/bench/core/figure';

describe('npm run bench arguments', () => {
  it('runs every figure, full size, by default', () => {
    expect(parseBenchArguments([])).toEqual({ quick: false, keep: false, figures: [...FIGURE_IDS] });
  });

  it('reads --quick, --keep and --out', () => {
    expect(parseBenchArguments(['--quick', '--keep', '--out', '/tmp/b'])).toEqual({
      quick: true,
      keep: true,
      figures: [...FIGURE_IDS],
      outDir: '/tmp/b',
    });
  });

  it('keeps the figures --only names, in the run order whatever the order given', () => {
    expect(parseBenchArguments(['--only', 'functions', '--only', 'supervisor-sweep']).figures).toEqual([
      'supervisor-sweep',
      'functions',
    ]);
  });

  it('refuses a figure that does not exist, a missing value and an unknown flag', () => {
    expect(() => parseBenchArguments(['--only', 'speed'])).toThrow("--only 'speed' names no figure");
    expect(() => parseBenchArguments(['--only'])).toThrow('--only needs a value');
    expect(() => parseBenchArguments(['--out', '--quick'])).toThrow('--out needs a value');
    expect(() => parseBenchArguments(['--fast'])).toThrow("unknown argument '--fast'");
  });
});
