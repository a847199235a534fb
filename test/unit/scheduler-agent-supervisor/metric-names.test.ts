/**
 * Metric names have one home, the wing's contract (alarms and the dashboard read them from there):
 * no runtime file spells one out, and only the shared counter talks to Powertools Metrics, so a
 * handler can only count a name its wing's contract declares.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { OrderMetric } from '../../../lambdas/scheduler-agent-supervisor/contracts';

const LAMBDAS = join(__dirname, '../../../lambdas');
const CONTRACT = 'scheduler-agent-supervisor/contracts/metrics.ts';
const COUNTER = 'shared/observability.ts';

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const files = sources(LAMBDAS).map((path) => ({
  name: relative(LAMBDAS, path),
  text: readFileSync(path, 'utf8'),
}));

describe('metric names', () => {
  it('reads the runtime sources, the contract among them', () => {
    expect(files.map((file) => file.name)).toEqual(expect.arrayContaining([CONTRACT, COUNTER]));
  });

  it.each(Object.values(OrderMetric))('%s is written only in the contract', (metric) => {
    const literal = new RegExp(`['"\`]${metric}['"\`]`);
    const spelling = files.filter((file) => file.name !== CONTRACT && literal.test(file.text));
    expect(spelling.map((file) => file.name)).toEqual([]);
  });

  it('is counted only through the shared counter', () => {
    const callers = files.filter((file) => /\.addMetric\(|\.addMetrics\(|\bsingleMetric\(/.test(file.text));
    expect(callers.map((file) => file.name)).toEqual([COUNTER]);
  });
});
