/** The command line of `npm run bench` (bin/bench.ts). */
import { FIGURE_IDS, type FigureId } from './figure';

export interface BenchArguments {
  /** `--quick`: the smoke run `npm test` includes (small sizes; targets reported, never enforced). */
  readonly quick: boolean;
  /** `--only <id>` (repeatable): the figures to run, in FIGURE_IDS order; all of them without it. */
  readonly figures: readonly FigureId[];
  /** `--out DIR`: where results.json and charts/ go. @default - bench/ (full run) or .local/bench/ (quick) */
  readonly outDir?: string;
  /** `--keep`: leave each figure's scratch directory in place (its path is printed). */
  readonly keep: boolean;
}

export const BENCH_USAGE =
  'usage: npm run bench [-- --quick] [--only <figure id>]... [--out DIR] [--keep]\n' +
  `figures: ${FIGURE_IDS.join(', ')}`;

function isFigureId(value: string): value is FigureId {
  return (FIGURE_IDS as readonly string[]).includes(value);
}

/** The arguments, or an Error naming the one that is wrong (the runner prints it with BENCH_USAGE). */
export function parseBenchArguments(argv: readonly string[]): BenchArguments {
  let quick = false;
  let keep = false;
  let outDir: string | undefined;
  const only = new Set<FigureId>();
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    const value = (): string => {
      const next = argv[index + 1];
      if (next === undefined || next.startsWith('--')) throw new Error(`${argument} needs a value`);
      index += 1;
      return next;
    };
    switch (argument) {
      case '--quick':
        quick = true;
        break;
      case '--keep':
        keep = true;
        break;
      case '--only': {
        const id = value();
        if (!isFigureId(id)) throw new Error(`--only '${id}' names no figure`);
        only.add(id);
        break;
      }
      case '--out':
        outDir = value();
        break;
      default:
        throw new Error(`unknown argument '${argument}'`);
    }
  }
  const figures = FIGURE_IDS.filter((id) => only.size === 0 || only.has(id));
  return { quick, keep, figures, ...(outDir === undefined ? {} : { outDir }) };
}
