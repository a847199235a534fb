/**
 * The contract every benchmark figure follows (docs/performance.md, issue 11). A figure measures
 * one question (what a sweep costs, what an order costs, ...) and returns its measurements next to
 * the baseline measured in the same run: absolute times on a shared 2-core machine are noise, so
 * every figure that has a target states it as a ratio or a count.
 */
import type { RuntimeUsage } from '../../local-runtime';

/** The figures of `npm run bench`, in the order they run and print. */
export const FIGURE_IDS = [
  'supervisor-sweep',
  'order-cost',
  'delivery-cost',
  // After both cost figures: it reads their batches (Figure.needs).
  'capacity',
  'local-throughput',
  'recovery',
  'functions',
  'campaign-speed',
] as const;
export type FigureId = (typeof FIGURE_IDS)[number];

/** What the runner hands each figure. */
export interface BenchContext {
  /** `--quick`: a smoke run (smaller sizes, fewer repetitions); its figures prove the code runs, not the targets. */
  readonly quick: boolean;
  /** A scratch directory of this figure alone, removed after the run unless `--keep`. */
  readonly workDir: string;
  /** One line of progress for the terminal (the runner prefixes the figure id and elapsed time). */
  progress(message: string): void;
  /** The results of the figures that ran before this one in this run and did not fail. */
  readonly earlier: ReadonlyMap<FigureId, FigureResult>;
}

/**
 * A batch of requests a figure measured, as the meter counted its work: what a figure hands to the
 * figures that need it (the capacity model reads the cost figures' batches). Not written to
 * results.json: the figure that reads it records what it used.
 */
export interface MeteredBatch {
  /** What one request is, e.g. `order`, `delivery`. */
  readonly unit: string;
  /** Requests in the batch. */
  readonly units: number;
  readonly work: RuntimeUsage;
}

/** One measured number. */
export interface Measurement {
  /** Stable key within the figure (results.json consumers read it), e.g. `ours.rcu.20000`. */
  readonly key: string;
  /** Words for the table, e.g. `Read units of one sweep, 20,000 records (ours)`. */
  readonly label: string;
  readonly value: number;
  /** `RCU`, `ms`, `KB`, `orders/s`, `USD`, `count`, `ratio`, ... */
  readonly unit: string;
}

/** A target of the issue, checked against this run's measurements. */
export interface TargetCheck {
  /** The target in words, with its bound, e.g. `20k/1k read-unit ratio <= 1.1 (ours)`. */
  readonly description: string;
  /** The measured value the bound applies to. */
  readonly actual: number;
  readonly bound: number;
  readonly comparison: 'atMost' | 'atLeast';
  /** Whether the target is met. Quick runs report it too, but nobody fails on it. */
  readonly met: boolean;
}

/**
 * A chart of the figure, drawn by the runner with the charting library (one SVG per figure):
 * the runner turns it into a Vega-Lite spec. `series` tells ours from the baseline.
 */
export interface ChartSpec {
  readonly kind: 'bar' | 'line';
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  /** x is a category (bar) or a number (line). */
  readonly points: readonly { readonly series: string; readonly x: string | number; readonly y: number }[];
  /** Use a log scale on y (e.g. when the baseline is 20x ours). */
  readonly logScale?: boolean;
}

export interface FigureResult {
  readonly id: FigureId;
  readonly title: string;
  readonly measurements: readonly Measurement[];
  readonly targets: readonly TargetCheck[];
  /** How it was measured, what it does not cover, what a change would save: said in words. */
  readonly notes: readonly string[];
  readonly charts: readonly ChartSpec[];
  /** Batches the figure measured, by name, for the figures that need them. @default - none */
  readonly batches?: Readonly<Record<string, MeteredBatch>>;
}

export interface Figure {
  readonly id: FigureId;
  readonly title: string;
  /**
   * Figures whose results this one reads (BenchContext.earlier): they must come before it in
   * FIGURE_IDS and succeed in the same run, or this one fails naming them. @default - none
   */
  readonly needs?: readonly FigureId[];
  run(context: BenchContext): Promise<FigureResult>;
}

/** A target check from its parts (met is derived, never written by hand). */
export function checkTarget(
  description: string,
  actual: number,
  comparison: TargetCheck['comparison'],
  bound: number,
): TargetCheck {
  const met = comparison === 'atMost' ? actual <= bound : actual >= bound;
  return { description, actual, bound, comparison, met };
}
