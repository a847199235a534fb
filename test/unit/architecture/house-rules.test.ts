/**
 * The house's rules, read from the code's own imports (README "Repository layout"): which area may
 * import which, and no import cycles. A rule broken here is a layout decision to revisit, not a
 * test to loosen: the local runtime runs any cloud assembly, wings share only the platform and
 * shared code, product code never imports tests.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

const ROOT = resolve(__dirname, '../../..');
const SOURCE_ROOTS = ['bin', 'lib', 'lambdas', 'console/src'];

/** An area of the house: the first folder levels that name it. */
function areaOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'bin') return 'bin';
  if (parts[0] === 'test') return 'test';
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : (parts[0] ?? file);
}

/**
 * What each area may import besides itself. A wing (`*\/scheduler-agent-supervisor`, later
 * `*\/choreography`) reads only the platform, the shared code and itself; the fakes stand in for a
 * wing's downstream services and may read that wing's contracts, but no wing imports them; the
 * local runtime knows no app at all.
 */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  'lambdas/shared': [],
  'lambdas/scheduler-agent-supervisor': ['lambdas/shared'],
  'lambdas/choreography': ['lambdas/shared'],
  'lambdas/fakes': ['lambdas/shared', 'lambdas/scheduler-agent-supervisor', 'lambdas/choreography'],
  'lib/platform': ['lambdas/shared'],
  'lib/local-runtime': [],
  'lib/scheduler-agent-supervisor': [
    'lib/platform',
    'lib/local-runtime',
    'lambdas/shared',
    'lambdas/scheduler-agent-supervisor',
  ],
  'lib/choreography': ['lib/platform', 'lib/local-runtime', 'lambdas/shared', 'lambdas/choreography'],
  'lib/fakes': [
    'lib/platform',
    'lambdas/shared',
    'lambdas/fakes',
    'lambdas/scheduler-agent-supervisor',
    'lambdas/choreography',
  ],
  'lib/chaos': [
    'lib/local-runtime',
    'lambdas/shared',
    'lambdas/scheduler-agent-supervisor',
    'lambdas/choreography',
    'lambdas/fakes',
  ],
  // Benchmarks measure the apps on the local runtime, like the chaos campaign.
  'lib/bench': [
    'lib/platform',
    'lib/local-runtime',
    'lib/chaos',
    'lib/scheduler-agent-supervisor',
    'lib/choreography',
    'lambdas/shared',
    'lambdas/scheduler-agent-supervisor',
    'lambdas/choreography',
    'lambdas/fakes',
  ],
  // Release tooling (the released templates and the upgrade check) knows CloudFormation, no stack;
  // bin/ synthesizes the stacks it checks.
  'lib/release': [],
  // The operator console's page: typed against the wings' contracts (its local backend is in bin);
  // deployed, it signs its calls with the shared SigV4 request (lambdas/shared/signed-request.ts).
  'console/src': ['lambdas/scheduler-agent-supervisor', 'lambdas/choreography', 'lambdas/shared'],
  bin: [
    'console/src',
    'lib/bench',
    'lib/platform',
    'lib/local-runtime',
    'lib/scheduler-agent-supervisor',
    'lib/choreography',
    'lib/fakes',
    'lib/chaos',
    'lib/release',
    'lambdas/shared',
    'lambdas/scheduler-agent-supervisor',
    'lambdas/choreography',
  ],
};

function sourceFiles(directory: string): string[] {
  return readdirSync(join(ROOT, directory)).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|js)$/.test(name) ? [path] : [];
  });
}

function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = join(dirname(from), specifier);
  for (const candidate of [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    `${base}.js`,
    join(base, 'index.ts'),
    join(base, 'index.js'),
  ]) {
    try {
      if (statSync(join(ROOT, candidate)).isFile()) return relative(ROOT, join(ROOT, candidate));
    } catch {
      // not this candidate
    }
  }
  throw new Error(`${from}: import '${specifier}' names no file`);
}

/** Every relative import of every product file (type-only imports included: they couple too). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of SOURCE_ROOTS.flatMap(sourceFiles)) {
    const info = ts.preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true);
    const targets = info.importedFiles
      .map((imported) => resolveImport(file, imported.fileName))
      .filter((target): target is string => target !== undefined);
    graph.set(file, targets);
  }
  return graph;
}

function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'visiting');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'visiting') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe('house rules', () => {
  const graph = importGraph();

  it('reads the whole product tree', () => {
    expect(graph.size).toBeGreaterThan(50);
    expect([...graph.keys()].some((file) => file.startsWith('lib/local-runtime/'))).toBe(true);
  });

  it('every area is known, and imports only what it may', () => {
    const broken: string[] = [];
    for (const [file, targets] of graph) {
      const area = areaOf(file);
      const allowed = ALLOWED[area];
      if (allowed === undefined) {
        broken.push(`${file}: area '${area}' has no rule (add it to ALLOWED with the README's layout)`);
        continue;
      }
      for (const target of targets) {
        const targetArea = areaOf(target);
        if (targetArea !== area && !allowed.includes(targetArea)) {
          broken.push(`${file} -> ${target} (${area} may not import ${targetArea})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('has no import cycles', () => {
    expect(cycles(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('catches what it claims to catch', () => {
    const planted = new Map<string, string[]>([
      ['lib/local-runtime/a.ts', ['lib/local-runtime/b.ts']],
      ['lib/local-runtime/b.ts', ['lib/local-runtime/a.ts']],
    ]);
    expect(cycles(planted)).toHaveLength(1);
    expect(areaOf('lambdas/scheduler-agent-supervisor/domain/agent.ts')).toBe(
      'lambdas/scheduler-agent-supervisor',
    );
    expect(ALLOWED['lib/local-runtime']).not.toContain('lambdas/scheduler-agent-supervisor');
  });
});
