/**
 * Runs figures one after the other, each in a scratch directory of its own. A figure that throws
 * is recorded with its reason and the next one still runs; a figure not in the registry is listed
 * as not built. A figure that needs others (Figure.needs) gets their results, and fails naming
 * them when they did not run before it or failed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Figure, FigureId, FigureResult } from './figure';
import type { FigureFailure } from './results';

export interface RunFiguresOptions {
  readonly ids: readonly FigureId[];
  readonly registry: Partial<Record<FigureId, Figure>>;
  readonly quick: boolean;
  /** Leave each scratch directory in place (its path is logged). */
  readonly keep: boolean;
  /** One line for the terminal (stderr). */
  readonly log: (line: string) => void;
  /** @default Date.now */
  readonly now?: () => number;
}

export interface FiguresRun {
  readonly figures: FigureResult[];
  readonly failed: FigureFailure[];
  readonly notBuilt: FigureId[];
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function runFigures(options: RunFiguresOptions): Promise<FiguresRun> {
  const now = options.now ?? Date.now;
  const run: FiguresRun = { figures: [], failed: [], notBuilt: [] };
  const earlier = new Map<FigureId, FigureResult>();
  for (const id of options.ids) {
    const figure = options.registry[id];
    if (!figure) {
      options.log(`[${id}] not built yet`);
      run.notBuilt.push(id);
      continue;
    }
    const workDir = mkdtempSync(join(tmpdir(), `bench-${id}-`));
    const started = now();
    const progress = (message: string) =>
      options.log(`[${id} ${((now() - started) / 1000).toFixed(1)} s] ${message}`);
    progress(`${figure.title}${options.quick ? ' (quick)' : ''}`);
    try {
      const missing = (figure.needs ?? []).filter((needed) => !earlier.has(needed));
      if (missing.length > 0) {
        throw new Error(
          `it needs ${missing.join(' and ')} measured in the same run, before it (${missing.map((needed) => `--only ${needed}`).join(' ')})`,
        );
      }
      const result = await figure.run({ quick: options.quick, workDir, progress, earlier });
      if (result.id !== id) throw new Error(`it returned the result of '${result.id}'`);
      run.figures.push(result);
      earlier.set(id, result);
      progress('done');
    } catch (error) {
      // Which figure, why, and where: the others still run.
      progress(`FAILED: ${messageOf(error)}`);
      if (error instanceof Error && error.stack) options.log(error.stack);
      run.failed.push({ id, message: messageOf(error) });
    } finally {
      if (options.keep) progress(`scratch directory kept: ${workDir}`);
      else rmSync(workDir, { recursive: true, force: true });
    }
  }
  return run;
}
