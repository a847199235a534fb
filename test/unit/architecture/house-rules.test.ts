/**
 * The house's rules, read from the code's own imports (README "Repository layout"): which area may
 * import which, and no import cycles. A rule broken here is a layout decision to revisit, not a
 * test to loosen: the local runtime runs any cloud assembly, wings share only the platform and
 * shared code, product code never imports tests, tooling reaches a wing through its public face,
 * and no file or function grows past its size without a reason written next to it. The graph and
 * the sizes are read by scripts/house.ts (`npm run house` prints the measures).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { constructProps, cycles, functionSpans, importGraph, lineCount, ROOT } from '../../../scripts/house';

/** An area of the house: the first folder levels that name it. */
function areaOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'bin' || parts[0] === 'scripts') return parts[0];
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
  // The tooling's harness: the system drivers and what they read (snapshots), the assembly facts,
  // statistics, the one signed operator client, text tables: used by chaos, bench and bin.
  'lib/harness': [
    'lib/local-runtime',
    'lambdas/shared',
    'lambdas/scheduler-agent-supervisor',
    'lambdas/choreography',
    'lambdas/fakes',
  ],
  'lib/chaos': [
    'lib/harness',
    'lib/local-runtime',
    'lambdas/shared',
    'lambdas/scheduler-agent-supervisor',
    'lambdas/choreography',
    'lambdas/fakes',
  ],
  // Benchmarks measure the apps on the local runtime, like the chaos campaign.
  'lib/bench': [
    'lib/harness',
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
  // The protocol models (issue 25): generated from the wings' own rules (their public faces) and
  // checked by spin; no runtime, no harness.
  'lib/verify': ['lambdas/shared', 'lambdas/scheduler-agent-supervisor', 'lambdas/choreography'],
  // Build scripts: the published event schemas are generated from the choreography's contracts.
  scripts: ['lib/choreography', 'lambdas/choreography', 'lambdas/shared'],
  // Release tooling (the released templates and the upgrade check) knows CloudFormation, no stack;
  // bin/ synthesizes the stacks it checks.
  'lib/release': [],
  // The operator console's page: typed against the wings' contracts (its local backend is in bin);
  // deployed, it signs its calls with the shared SigV4 request (lambdas/shared/signed-request.ts).
  'console/src': [
    'console/contract',
    'lambdas/scheduler-agent-supervisor',
    'lambdas/choreography',
    'lambdas/shared',
  ],
  // The console's contract with its local backend (routes, bodies, state counts): shared by the
  // page and bin/console-server.ts, so Node code never imports the browser app.
  'console/contract': ['lambdas/scheduler-agent-supervisor', 'lambdas/choreography', 'lambdas/shared'],
  bin: [
    'lib/harness',
    'console/contract',
    'lib/bench',
    'lib/platform',
    'lib/local-runtime',
    'lib/scheduler-agent-supervisor',
    'lib/choreography',
    'lib/fakes',
    'lib/chaos',
    'lib/release',
    'lib/verify',
    'lambdas/shared',
    'lambdas/scheduler-agent-supervisor',
    'lambdas/choreography',
  ],
};

/** The wings whose inside (adapters, domain, handlers) tooling may not reach. */
const WING_INSIDE = /^lambdas\/(scheduler-agent-supervisor|choreography|fakes)\/(adapters|domain|handlers)\//;
/** Tooling: its harness, the chaos campaigns, the benchmarks, the protocol models and the commands. */
const TOOLING = /^(lib\/harness|lib\/chaos|lib\/bench|lib\/verify|bin)\//;

/** Past this many lines a source file is split, unless it is listed below with its reason. */
const FILE_LINE_LIMIT = 600;

/**
 * Files still over the limit: each may not grow past its ceiling (its size when listed), and an
 * entry whose file has come under the limit fails until it is removed.
 */
const OVERSIZED_FILES: Readonly<Record<string, { readonly ceiling: number; readonly why: string }>> = {
  'lib/local-runtime/stepfunctions/runtime.ts': {
    ceiling: 619,
    why: "the runtime's one class, its API and execution loop; the rest is execution.ts, runtime-types.ts, states-copy.ts",
  },
  'lambdas/scheduler-agent-supervisor/contracts/transitions/table.ts': {
    ceiling: 656,
    why: "one table of every transition, read as a whole (issue 24 added the compact shape's two agent transitions, issue 25 beginCompensationUncertain); its shared clauses are builders.ts",
  },
};

/** Past this many lines a function is split, unless a `long-function:` comment above it says why. */
const FUNCTION_LINE_LIMIT = 120;

/**
 * Functions still over the limit without a written reason, with their ceilings (the same ratchet as
 * the files): `file:name` -> ceiling. Empty since issue 21: a function that grows past the limit is
 * split or says why, it does not join a list.
 */
const LONG_FUNCTIONS: Readonly<Record<string, number>> = {};

/** What a ratchet finds: new breaks, entries past their ceiling, entries that no longer apply. */
function ratchet(
  found: ReadonlyMap<string, number>,
  known: Readonly<Record<string, number>>,
  unlisted: (key: string, size: number) => string = (key, size) =>
    `${key}: ${size} lines (split it, or write why next to it)`,
): string[] {
  const problems: string[] = [];
  for (const [key, size] of found) {
    const ceiling = known[key];
    if (ceiling === undefined) problems.push(unlisted(key, size));
    else if (size > ceiling) problems.push(`${key}: ${size} lines, past its ceiling of ${ceiling}`);
  }
  for (const key of Object.keys(known)) {
    if (!found.has(key)) problems.push(`${key}: no longer applies; remove it from the list`);
  }
  return problems;
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

  it('tooling reaches a wing only through its public face (its contracts, composition/ and kit)', () => {
    const reaches: string[] = [];
    for (const [file, targets] of graph) {
      if (!TOOLING.test(file)) continue;
      for (const target of targets) if (WING_INSIDE.test(target)) reaches.push(`${file} -> ${target}`);
    }
    expect(reaches).toEqual([]);
  });

  it(`no source file is over ${FILE_LINE_LIMIT} lines unless listed with its reason, and none grows`, () => {
    const oversized = new Map<string, number>();
    for (const file of graph.keys()) {
      const lines = lineCount(file);
      if (lines > FILE_LINE_LIMIT) oversized.set(file, lines);
    }
    const ceilings = Object.fromEntries(
      Object.entries(OVERSIZED_FILES).map(([file, { ceiling }]) => [file, ceiling]),
    );
    expect(ratchet(oversized, ceilings)).toEqual([]);
  });

  it(`no function is over ${FUNCTION_LINE_LIMIT} lines without a written reason, and none grows`, () => {
    const long = new Map<string, number>();
    for (const file of graph.keys()) {
      if (!/\.(ts|tsx)$/.test(file)) continue;
      for (const span of functionSpans(file)) {
        if (span.lines > FUNCTION_LINE_LIMIT && span.reason === undefined) {
          long.set(
            `${span.file}:${span.name}`,
            Math.max(span.lines, long.get(`${span.file}:${span.name}`) ?? 0),
          );
        }
      }
    }
    expect(ratchet(long, LONG_FUNCTIONS)).toEqual([]);
  });

  it('documents every construct prop, and says what each optional one defaults to (CDK style)', () => {
    const constructs = [...graph.keys()].filter((file) =>
      /^lib\/(platform|scheduler-agent-supervisor|choreography|fakes)\//.test(file),
    );
    const props = constructs.flatMap(constructProps);
    expect(props.length).toBeGreaterThan(100);
    const undocumented = props
      .filter((prop) => !prop.documented || (prop.optional && !prop.hasDefault))
      .map(
        (prop) => `${prop.file}: ${prop.prop} ${prop.documented ? 'has no @default' : 'has no doc comment'}`,
      );
    expect(undocumented).toEqual([]);
  });

  it('gives data and log retention once per stack (DataSettings), never through construct props', () => {
    const constructs = [...graph.keys()].filter((file) =>
      /^lib\/(platform|scheduler-agent-supervisor|choreography|fakes)\//.test(file),
    );
    // StaticSite.logRetentionDays is its bucket's access-log expiry, not the stack's log retention.
    const ownFacts = new Set(['DataSettingsProps.retainData', 'DataSettingsProps.logRetentionDays']);
    ownFacts.add('StaticSiteProps.logRetentionDays');
    const passedThrough = constructs
      .flatMap(constructProps)
      .filter((prop) => /\.(retainData|logRetentionDays|removalPolicy)$/.test(prop.prop))
      .filter((prop) => !ownFacts.has(prop.prop))
      .map((prop) => `${prop.file}: ${prop.prop} (read DataSettings.of(this) instead)`);
    expect(passedThrough).toEqual([]);
  });

  it('reads time in the local runtime through its one clock (clock/), or says why the wall clock', () => {
    const WALL_TIME = /\bDate\.now\(\)|new Date\(\)|\bset(Timeout|Interval)\(/;
    const unexplained = [...graph.keys()]
      .filter((file) => file.startsWith('lib/local-runtime/') && !file.startsWith('lib/local-runtime/clock/'))
      // The sandbox reads its own Date, which worker.js itself points at the runtime's clock.
      .filter((file) => file !== 'lib/local-runtime/lambda/worker.js')
      .flatMap((file) => {
        const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
        return lines
          .map((line, index) => ({ line, index }))
          .filter(({ line }) => WALL_TIME.test(line) && !/^\s*(\*|\/\/)/.test(line))
          .filter(({ line, index }) => !`${lines[index - 1] ?? ''}${line}`.includes('wall clock:'))
          .map(({ index }) => `${file}:${index + 1}`);
      });
    expect(unexplained).toEqual([]);
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
    expect(WING_INSIDE.test('lambdas/scheduler-agent-supervisor/adapters/state-store.ts')).toBe(true);
    expect(WING_INSIDE.test('lambdas/scheduler-agent-supervisor/contracts/index.ts')).toBe(false);
    expect(ratchet(new Map([['a', 700]]), {})).toHaveLength(1);
    expect(ratchet(new Map([['a', 700]]), { a: 650 })).toHaveLength(1);
    expect(ratchet(new Map(), { a: 650 })).toHaveLength(1);
    expect(ratchet(new Map([['a', 640]]), { a: 650 })).toEqual([]);
  });
});
