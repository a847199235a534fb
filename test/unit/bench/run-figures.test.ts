import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Figure, FigureId, FigureResult } from '../../../lib/bench/core/figure';
import { runFigures } from '../../../lib/bench/core/run-figures';

function resultOf(id: FigureId): FigureResult {
  return { id, title: id, measurements: [], targets: [], notes: [], charts: [] };
}

function figure(id: FigureId, run: Figure['run']): Figure {
  return { id, title: `title of ${id}`, run };
}

describe('runFigures', () => {
  it('reports a figure that throws, with its reason, and still runs the next one', async () => {
    const lines: string[] = [];
    const run = await runFigures({
      ids: ['supervisor-sweep', 'order-cost', 'functions'],
      registry: {
        'supervisor-sweep': figure('supervisor-sweep', async () => {
          throw new Error('DynamoDB Local did not start');
        }),
        functions: figure('functions', async (context) => {
          context.progress('measuring');
          return resultOf('functions');
        }),
      },
      quick: true,
      keep: false,
      log: (line) => lines.push(line),
      now: () => 0,
    });

    expect(run.failed).toEqual([{ id: 'supervisor-sweep', message: 'DynamoDB Local did not start' }]);
    expect(run.notBuilt).toEqual(['order-cost']);
    expect(run.figures.map((result) => result.id)).toEqual(['functions']);
    expect(lines).toContain('[supervisor-sweep 0.0 s] FAILED: DynamoDB Local did not start');
    expect(lines).toContain('[order-cost] not built yet');
    expect(lines).toContain('[functions 0.0 s] title of functions (quick)');
    expect(lines).toContain('[functions 0.0 s] measuring');
  });

  it("refuses a result that is another figure's", async () => {
    const run = await runFigures({
      ids: ['recovery'],
      registry: { recovery: figure('recovery', async () => resultOf('functions')) },
      quick: false,
      keep: false,
      log: () => {},
    });
    expect(run.failed).toEqual([{ id: 'recovery', message: "it returned the result of 'functions'" }]);
  });

  it('gives each figure its own scratch directory, removed after the run unless kept', async () => {
    const seen: string[] = [];
    const writing = (id: FigureId) =>
      figure(id, async (context) => {
        writeFileSync(join(context.workDir, 'scratch.txt'), id);
        seen.push(context.workDir);
        return resultOf(id);
      });
    const registry = { recovery: writing('recovery'), functions: writing('functions') };

    await runFigures({ ids: ['recovery', 'functions'], registry, quick: true, keep: false, log: () => {} });
    expect(new Set(seen).size).toBe(2);
    expect(seen.some((directory) => existsSync(directory))).toBe(false);

    const lines: string[] = [];
    await runFigures({
      ids: ['functions'],
      registry,
      quick: true,
      keep: true,
      log: (line) => lines.push(line),
    });
    const kept = seen[2] ?? '';
    expect(existsSync(join(kept, 'scratch.txt'))).toBe(true);
    expect(lines.some((line) => line.endsWith(`scratch directory kept: ${kept}`))).toBe(true);
    rmSync(kept, { recursive: true, force: true });
  });

  it('gives a figure the results of those it needs, and fails it naming those that did not run before it', async () => {
    const seen: string[] = [];
    const needing: Figure = {
      id: 'capacity',
      title: 'capacity',
      needs: ['order-cost', 'delivery-cost'],
      run: async (context) => {
        seen.push(...context.earlier.keys());
        return resultOf('capacity');
      },
    };
    const registry = {
      'order-cost': figure('order-cost', async () => resultOf('order-cost')),
      'delivery-cost': figure('delivery-cost', async () => resultOf('delivery-cost')),
      capacity: needing,
    };
    const ran = await runFigures({
      ids: ['order-cost', 'delivery-cost', 'capacity'],
      registry,
      quick: true,
      keep: false,
      log: () => {},
    });
    expect(ran.failed).toEqual([]);
    expect(seen).toEqual(['order-cost', 'delivery-cost']);

    const alone = await runFigures({
      ids: ['order-cost', 'capacity'],
      registry,
      quick: true,
      keep: false,
      log: () => {},
    });
    expect(alone.failed).toEqual([
      {
        id: 'capacity',
        message: 'it needs delivery-cost measured in the same run, before it (--only delivery-cost)',
      },
    ]);
  });
});
