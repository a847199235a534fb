/**
 * Figure 5, functions: each Lambda bundle's size and its cold initialisation time, next to its own
 * bare handler: one that only imports the AWS SDK v3 modules that bundle loads at cold start,
 * bundled the same way.
 *
 * The bundles are the assets of the local synthesized assembly (the same `cdk synth` and esbuild
 * bundling as a deployment). Init is the time a fresh `node` process takes to `require` a bundle
 * with the environment the function gets: the median of several processes, run round-robin over
 * the bundles so that a busy moment of the shared machine hits them all alike. The local profile
 * traces nothing (no X-Ray locally), so each bundle is also timed as the default profile runs it,
 * with tracing on and the X-Ray SDK loaded.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { type AssemblyFunction, assemblyFunctions } from '../../harness/assembly';
import { percentile, ratio } from '../../harness/stats';
import { PROJECT_ROOT, synthesizeLocalAssembly } from '../../local-runtime';
import {
  type AssemblyStack,
  createStackResolver,
  readCloudAssembly,
} from '../../local-runtime/assembly/cloud-assembly';
import { lambdaReservedVariables, sandboxBaseVariables } from '../../local-runtime/provisioners/lambda';
import { HANDLER_BUNDLING } from '../../platform/handler-bundling';
import { bundleComposition, type SourceMap } from '../core/bundle-composition';
import {
  type BenchContext,
  type ChartSpec,
  checkTarget,
  type Figure,
  type FigureResult,
  type Measurement,
} from '../core/figure';
import { formatNumber } from '../core/results';
import {
  bareKeyOf,
  type InitMedians,
  type InitSubject,
  sdkModulesLoadedAtColdStart,
  timeInits,
  tracedEnvironment,
} from './cold-init';

/** The issues' targets: bundle size (issue 11), cold init over the bare handler's (issue 24, part 4). */
export const MAX_BUNDLE_KB = 500;
export const MAX_INIT_OVER_BARE = 1.15;
/** 1 KB = 1,000 bytes. */
const BYTES_PER_KB = 1000;
/** Seven: at five, one busy moment of a shared 2-core machine could still move a median. */
const FULL_RUNS = 7;
const QUICK_RUNS = 1;
/** How many packages of the largest bundle the notes name. */
const COMPOSITION_SHOWN = 6;

/** Where the resolver places what the environment names; nothing is contacted at require time. */
const PLACEHOLDER_ENVIRONMENT = {
  region: 'us-east-1',
  accountId: '000000000000',
  sqsEndpoint: 'http://127.0.0.1:9324',
  restApiBaseUrl: (logicalId: string) => `http://127.0.0.1:3000/${logicalId}`,
  functionUrl: (logicalId: string) => `http://127.0.0.1:4000/${logicalId}/`,
};
const PLACEHOLDER_CREDENTIALS = { accessKeyId: 'bench', secretAccessKey: 'bench' };

const BARE_HANDLER = 'bare handler';

/** One asset (several functions may share one: the outbox relays, the agents). */
interface Bundle {
  /** `wing/handlers/name` from the bundle's source map, as LambdaFunction's `handler` prop names it. */
  readonly name: string;
  readonly file: string;
  readonly bytes: number;
  readonly functions: readonly string[];
  /** The complete environment the process requiring the bundle gets. */
  readonly environment: Readonly<Record<string, string>>;
  /** `@aws-sdk/*` modules it may require at run time (external: the runtime ships them). */
  readonly sdkModules: readonly string[];
  /** Those it requires at cold start (sdkModulesLoadedAtColdStart): what its bare handler imports. */
  readonly coldStartSdkModules: readonly string[];
  readonly composition: readonly { name: string; characters: number }[];
}

/** The handler entry a source map names (`lambdas/<wing>/handlers/<name>.ts`), if exactly one. */
export function handlerEntryOf(sources: readonly string[]): string | undefined {
  const entries = new Set(
    sources.flatMap((source) => {
      const match = /(?:^|\/)lambdas\/([a-z0-9-]+\/handlers\/[a-z0-9-]+)\.ts$/.exec(source);
      return match?.[1] ? [match[1]] : [];
    }),
  );
  return entries.size === 1 ? [...entries][0] : undefined;
}

/** The `@aws-sdk/*` modules a bundle requires (esbuild leaves `require("<external>")` in place). */
export function sdkModulesOf(code: string): string[] {
  return [...new Set([...code.matchAll(/require\("(@aws-sdk\/[^"]+)"\)/g)].map((match) => match[1] ?? ''))]
    .filter((name) => name !== '')
    .sort();
}

/** The bare handler: the SDK modules and nothing else. */
export function bareHandlerSource(sdkModules: readonly string[]): string {
  return [
    '// Bench baseline: only the AWS SDK v3 modules the functions use.',
    ...sdkModules.map((name) => `import '${name}';`),
    'export const handler = async () => ({});',
    '',
  ].join('\n');
}

/**
 * esbuild with the handlers' options (HANDLER_BUNDLING, as the synthesis builds them).
 * `bundleSdk`: the one alternative the figure compares, the AWS SDK inside the bundle instead of
 * the runtime's copy (every other option as deployed).
 */
export async function bundleLikeLambdaFunction(
  entry: string,
  outfile: string,
  { bundleSdk = false }: { readonly bundleSdk?: boolean } = {},
): Promise<void> {
  await build({
    ...HANDLER_BUNDLING,
    entryPoints: [entry],
    outfile,
    external: bundleSdk ? [] : [...HANDLER_BUNDLING.external],
    logLevel: 'silent',
  });
}

function stringValues(value: unknown): Record<string, string> {
  const result: Record<string, string> = {};
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) result[key] = String(item);
  }
  return result;
}

/** The environment the local runtime gives the function, endpoints aside (the template's own resolved). */
function environmentOf(fn: AssemblyFunction, stack: AssemblyStack): Record<string, string> {
  const resolver = createStackResolver(stack, PLACEHOLDER_ENVIRONMENT);
  const properties = resolver.properties(fn.logicalId);
  const variables = (properties.Environment as { Variables?: unknown } | undefined)?.Variables;
  return {
    ...stringValues(variables),
    ...sandboxBaseVariables(PLACEHOLDER_ENVIRONMENT.region, PLACEHOLDER_CREDENTIALS),
    ...lambdaReservedVariables({
      functionName: resolver.physicalName(fn.logicalId),
      memorySizeMb: Number(properties.MemorySize ?? 128),
      runtime: String(properties.Runtime ?? ''),
      codeDirectory: fn.assetDir,
      handler: String(properties.Handler ?? 'index.handler'),
    }),
  };
}

function readBundles(assemblyDir: string): Omit<Bundle, 'coldStartSdkModules'>[] {
  const stacks = new Map(readCloudAssembly(assemblyDir).stacks.map((stack) => [stack.stackName, stack]));
  const byAsset = new Map<string, AssemblyFunction[]>();
  for (const fn of assemblyFunctions(assemblyDir)) {
    byAsset.set(fn.assetDir, [...(byAsset.get(fn.assetDir) ?? []), fn]);
  }
  return [...byAsset].map(([assetDir, functions]) => {
    const first = functions[0] as AssemblyFunction;
    const stack = stacks.get(first.stackName);
    if (!stack) throw new Error(`${first.logicalId}: no stack ${first.stackName} in ${assemblyDir}`);
    const file = join(assetDir, 'index.js');
    const code = readFileSync(file, 'utf8');
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as SourceMap;
    return {
      name: handlerEntryOf(map.sources) ?? first.logicalId,
      file,
      bytes: statSync(file).size,
      functions: functions.map((fn) => fn.logicalId),
      environment: environmentOf(first, stack),
      sdkModules: sdkModulesOf(code),
      composition: bundleComposition(code, map),
    };
  });
}

function shortName(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}

function kb(bytes: number): number {
  return Math.round((bytes / BYTES_PER_KB) * 10) / 10;
}

function ms(millis: number): number {
  return Math.round(millis * 10) / 10;
}

/** A bare handler importing `sdkModules`, bundled like the functions, with a function's runtime variables. */
async function bareHandler(
  directory: string,
  sdkModules: readonly string[],
  like: Readonly<Record<string, string>>,
): Promise<{ file: string; bytes: number; environment: Record<string, string> }> {
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'handler.ts'), bareHandlerSource(sdkModules));
  const file = join(directory, 'index.js');
  await bundleLikeLambdaFunction(join(directory, 'handler.ts'), file);
  // Deployed like any function: the same runtime variables and NODE_OPTIONS, no template variables.
  const environment = {
    ...(like.NODE_OPTIONS ? { NODE_OPTIONS: like.NODE_OPTIONS } : {}),
    ...sandboxBaseVariables(PLACEHOLDER_ENVIRONMENT.region, PLACEHOLDER_CREDENTIALS),
    ...lambdaReservedVariables({
      functionName: 'bench-bare-handler',
      memorySizeMb: Number(like.AWS_LAMBDA_FUNCTION_MEMORY_SIZE),
      runtime: (like.AWS_EXECUTION_ENV ?? '').replace(/^AWS_Lambda_/, ''),
      codeDirectory: directory,
      handler: 'index.handler',
    }),
  };
  return { file, bytes: statSync(file).size, environment };
}

/** The key of a bundle's init with tracing on, as the default profile runs it. */
function tracedKeyOf(bundle: Bundle): string {
  return `init.${bundle.name}.traced`;
}

/** What the figure times and compares: the assembly's bundles and the baselines beside them. */
interface Subjects {
  readonly bundles: readonly Bundle[];
  readonly largest: Bundle;
  readonly functionCount: number;
  /** The bare handlers, one per set of SDK modules loaded at cold start, by key (bareKeyOf). */
  readonly bares: ReadonlyMap<string, { readonly modules: readonly string[]; readonly bytes: number }>;
  /** The largest function rebuilt by the bench's esbuild call, and bundled with the SDK. */
  readonly rebuiltBytes: number;
  readonly sdkBundledBytes: number;
  readonly inits: readonly InitSubject[];
}

/** Synthesizes (synth cache), reads the bundles, and builds the baselines the same esbuild call makes. */
async function prepareSubjects(context: BenchContext): Promise<Subjects> {
  context.progress('synthesizing the local assembly (cdk synth -c profile=local, synth cache)');
  const assemblyDir = join(context.workDir, 'assembly');
  const synthesis = synthesizeLocalAssembly(assemblyDir);
  const bundles: Bundle[] = [];
  for (const bundle of readBundles(assemblyDir).sort((left, right) => right.bytes - left.bytes)) {
    // One after the other: a 2-core machine shared with other work.
    const coldStartSdkModules = await sdkModulesLoadedAtColdStart(bundle.file, bundle.environment);
    bundles.push({ ...bundle, coldStartSdkModules });
  }
  const largest = bundles[0];
  if (!largest) throw new Error(`No bundled function in ${assemblyDir}`);
  const functionCount = bundles.reduce((count, bundle) => count + bundle.functions.length, 0);
  context.progress(
    `${functionCount} functions in ${bundles.length} bundles (assembly ${synthesis.cached ? 'from the synth cache' : 'synthesized'})`,
  );

  // The baselines, bundled by the same esbuild call that must rebuild a real handler byte for byte:
  // a bare handler per set of SDK modules some bundle loads at cold start.
  const bares = new Map<string, { modules: readonly string[]; bytes: number }>();
  const bareInits: InitSubject[] = [];
  for (const bundle of bundles) {
    const key = bareKeyOf(bundle.coldStartSdkModules);
    if (bares.has(key)) continue;
    const modules = bundle.coldStartSdkModules;
    const bare = await bareHandler(join(context.workDir, key), modules, bundle.environment);
    bares.set(key, { modules, bytes: bare.bytes });
    const what =
      modules.length > 0
        ? modules.map((name) => name.replace(/^@aws-sdk\//, '')).join(', ')
        : 'no SDK module';
    bareInits.push({ key, label: `Cold init, ${BARE_HANDLER} importing ${what}`, ...bare });
  }
  const rebuilt = join(context.workDir, 'rebuilt', 'index.js');
  await bundleLikeLambdaFunction(resolve(PROJECT_ROOT, 'lambdas', `${largest.name}.ts`), rebuilt);
  const sdkBundled = join(context.workDir, 'sdk-bundled', 'index.js');
  await bundleLikeLambdaFunction(resolve(PROJECT_ROOT, 'lambdas', `${largest.name}.ts`), sdkBundled, {
    bundleSdk: true,
  });

  const withoutSourceMaps = { ...largest.environment };
  delete withoutSourceMaps.NODE_OPTIONS;
  const inits: InitSubject[] = [
    ...bundles.map((bundle) => ({
      key: `init.${bundle.name}`,
      label: `Cold init, ${bundle.name}`,
      file: bundle.file,
      environment: bundle.environment,
    })),
    ...bareInits,
    ...bundles.flatMap((bundle) => {
      const traced = tracedEnvironment(bundle.environment);
      return traced
        ? [
            {
              key: tracedKeyOf(bundle),
              label: `Cold init, ${bundle.name} with tracing on (the default profile: X-Ray SDK loaded)`,
              file: bundle.file,
              environment: traced,
            },
          ]
        : [];
    }),
    {
      key: `init.${largest.name}.withoutSourceMaps`,
      label: `Cold init, ${largest.name} without NODE_OPTIONS=${largest.environment.NODE_OPTIONS ?? ''}`,
      file: largest.file,
      environment: withoutSourceMaps,
    },
    {
      key: `init.${largest.name}.sdkBundled`,
      label: `Cold init, ${largest.name} with the AWS SDK bundled`,
      file: sdkBundled,
      environment: largest.environment,
    },
  ];
  return {
    bundles,
    largest,
    functionCount,
    bares,
    rebuiltBytes: statSync(rebuilt).size,
    sdkBundledBytes: statSync(sdkBundled).size,
    inits,
  };
}

/**
 * A bundle's cold init next to its bare handler's, and with tracing on: medians of the same rounds,
 * in CPU time of the require (init is CPU-bound; the wall time adds the waits for a core that other
 * work on a shared machine causes, which moved ratios by a third in runs at load 7).
 */
interface InitComparison {
  readonly bundle: Bundle;
  readonly ms: number;
  readonly bareKey: string;
  readonly bareMs: number;
  /** ms over bareMs. */
  readonly overBare: number;
  /** With tracing on (the default profile); undefined when the bundle's own init is traced. */
  readonly tracedMs: number | undefined;
  readonly tracedOverBare: number | undefined;
}

function ratio2(numerator: number, denominator: number): number {
  return Math.round(ratio(numerator, denominator) * 100) / 100;
}

function compareInits(bundles: readonly Bundle[], medians: InitMedians): InitComparison[] {
  return bundles.map((bundle) => {
    const ms = medians.cpu(`init.${bundle.name}`);
    const bareKey = bareKeyOf(bundle.coldStartSdkModules);
    const bareMs = medians.cpu(bareKey);
    const traced = tracedEnvironment(bundle.environment) ? medians.cpu(tracedKeyOf(bundle)) : undefined;
    return {
      bundle,
      ms,
      bareKey,
      bareMs,
      overBare: ratio2(ms, bareMs),
      tracedMs: traced,
      tracedOverBare: traced === undefined ? undefined : ratio2(traced, bareMs),
    };
  });
}

async function run(context: BenchContext): Promise<FigureResult> {
  const runs = context.quick ? QUICK_RUNS : FULL_RUNS;
  const subjects = await prepareSubjects(context);
  const { bundles, largest, functionCount, sdkBundledBytes } = subjects;
  const medians = await timeInits(context, subjects.inits, runs);
  const initOf = (key: string) => medians.wall(key);
  const cpuOf = (key: string) => medians.cpu(key);

  const sizes = bundles.map((bundle) => ({ bundle, kb: kb(bundle.bytes) }));
  const comparisons = compareInits(bundles, medians);
  const largestKb = kb(largest.bytes);
  const worst = comparisons.reduce((found, entry) => (entry.overBare > found.overBare ? entry : found));

  const functionsOf = (bundle: Bundle) =>
    bundle.functions.length === 1 ? '1 function' : `${bundle.functions.length} functions`;
  const measurements: Measurement[] = [
    { key: 'functions', label: 'Functions', value: functionCount, unit: 'count' },
    { key: 'bundles', label: 'Distinct bundles', value: bundles.length, unit: 'count' },
    ...sizes.map(({ bundle, kb: value }) => ({
      key: `size.${bundle.name}`,
      label: `Bundle size, ${bundle.name} (${functionsOf(bundle)})`,
      value,
      unit: 'KB',
    })),
    {
      key: `size.${largest.name}.sdkBundled`,
      label: `Bundle size, ${largest.name} with the AWS SDK bundled`,
      value: kb(sdkBundledBytes),
      unit: 'KB',
    },
    ...subjects.inits.map((subject) => ({
      key: subject.key,
      label: subject.label,
      value: initOf(subject.key),
      unit: 'ms',
    })),
    ...subjects.inits.map((subject) => ({
      key: `${subject.key}.cpu`,
      label: `${subject.label}: CPU time`,
      value: cpuOf(subject.key),
      unit: 'ms',
    })),
    ...comparisons.flatMap((entry) => [
      {
        key: `init.${entry.bundle.name}.overBare`,
        label: `Cold init, ${entry.bundle.name}, over its bare handler's (${entry.bareKey}), CPU time`,
        value: entry.overBare,
        unit: 'ratio',
      },
      ...(entry.tracedOverBare === undefined
        ? []
        : [
            {
              key: `${tracedKeyOf(entry.bundle)}.overBare`,
              label: `Cold init, ${entry.bundle.name} with tracing on, over its bare handler's, CPU time`,
              value: entry.tracedOverBare,
              unit: 'ratio',
            },
          ]),
    ]),
  ];

  const seriesBundle = 'function bundle';
  const seriesBare = 'its bare handler (SDK imports only)';
  const seriesTraced = 'function bundle, tracing on (default profile)';
  const charts: ChartSpec[] = [
    {
      kind: 'bar',
      title: `Lambda bundle size (minified; target <= ${MAX_BUNDLE_KB} KB)`,
      xLabel: 'handler',
      yLabel: 'KB',
      points: sizes.map(({ bundle, kb: y }) => ({ series: seriesBundle, x: shortName(bundle.name), y })),
    },
    {
      kind: 'bar',
      title: `Cold init, CPU time, median of ${runs} fresh processes (target <= ${MAX_INIT_OVER_BARE} x its bare handler)`,
      xLabel: 'handler',
      yLabel: 'ms',
      points: comparisons.flatMap((entry) => [
        { series: seriesBundle, x: shortName(entry.bundle.name), y: entry.ms },
        { series: seriesBare, x: shortName(entry.bundle.name), y: entry.bareMs },
        ...(entry.tracedMs === undefined
          ? []
          : [{ series: seriesTraced, x: shortName(entry.bundle.name), y: entry.tracedMs }]),
      ]),
    },
  ];

  return {
    id: 'functions',
    title: functionsFigure.title,
    measurements,
    targets: [
      checkTarget(
        `largest bundle <= ${MAX_BUNDLE_KB} KB (${largest.name})`,
        largestKb,
        'atMost',
        MAX_BUNDLE_KB,
      ),
      checkTarget(
        `every cold init <= ${MAX_INIT_OVER_BARE} x its bare handler's, CPU time (worst: ${worst.bundle.name})`,
        worst.overBare,
        'atMost',
        MAX_INIT_OVER_BARE,
      ),
    ],
    notes: functionNotes(subjects, medians, runs, comparisons),
    charts,
  };
}

/** The figure's notes: how it measures, and what the numbers of this run say. */
function functionNotes(
  subjects: Subjects,
  medians: InitMedians,
  runs: number,
  comparisons: readonly InitComparison[],
): string[] {
  const { bundles, largest, functionCount, bares, rebuiltBytes, sdkBundledBytes } = subjects;
  const initOf = (key: string) => medians.wall(key);
  const cpuOf = (key: string) => medians.cpu(key);
  const largestWithoutSourceMaps = initOf(`init.${largest.name}.withoutSourceMaps`);
  const largestInit = initOf(`init.${largest.name}`);
  const largestSdkBundled = initOf(`init.${largest.name}.sdkBundled`);
  // The same bundle three ways: compared by CPU time, which the machine's other work inflates less.
  const largestCpu = cpuOf(`init.${largest.name}`);
  const largestWithoutSourceMapsCpu = cpuOf(`init.${largest.name}.withoutSourceMaps`);
  const largestSdkBundledCpu = cpuOf(`init.${largest.name}.sdkBundled`);
  const largestKb = kb(largest.bytes);
  const overBudget = bundles
    .map((bundle) => ({ bundle, kb: kb(bundle.bytes) }))
    .filter((entry) => entry.kb > MAX_BUNDLE_KB);
  const shared = bundles
    .filter((bundle) => bundle.functions.length > 1)
    .map((bundle) => `${bundle.name} by ${bundle.functions.length}`);
  const composition = largest.composition
    .slice(0, COMPOSITION_SHOWN)
    .map((part) => `${part.name} ${formatNumber(kb(part.characters))} KB`)
    .join(', ');
  const baselines = [...bares]
    .map(([key, bare]) => {
      const users = comparisons.filter((entry) => entry.bareKey === key).length;
      return `${bare.modules.length > 0 ? bare.modules.join(' + ') : 'no SDK module'} (${formatNumber(cpuOf(key))} ms of CPU; ${users} ${users === 1 ? 'bundle' : 'bundles'})`;
    })
    .join('; ');
  const deferred = bundles.filter((bundle) => bundle.sdkModules.length > bundle.coldStartSdkModules.length);
  const missed = comparisons
    .filter((entry) => entry.overBare > MAX_INIT_OVER_BARE)
    .sort((left, right) => right.overBare - left.overBare);
  const ratios = comparisons.map((entry) => entry.overBare);
  const traced = comparisons.flatMap((entry) =>
    entry.tracedMs === undefined ? [] : [{ ...entry, tracedMs: entry.tracedMs }],
  );
  const tracedRatios = traced.flatMap((entry) =>
    entry.tracedOverBare === undefined ? [] : [entry.tracedOverBare],
  );
  const xrayCost = percentile(
    traced.map((entry) => entry.tracedMs - entry.ms),
    50,
  );
  return [
    `Bundles: the assets of the local synthesized assembly (cdk synth -c profile=local: the same esbuild bundling as a deployment, options in lib/platform/handler-bundling.ts HANDLER_BUNDLING). Size: index.js, minified, source map excluded; 1 KB = 1,000 bytes. ${functionCount} functions share ${bundles.length} bundles${shared.length > 0 ? ` (shared: ${shared.join(', ')})` : ''}.`,
    `Cold init: median of ${runs} fresh \`node\` processes (${process.version}) per bundle, run round-robin, each timing require(index.js) with the function's environment: the template's variables (intrinsics resolved to local names, nothing contacted), Lambda's reserved variables and NODE_OPTIONS as deployed, the AWS SDK v3 resolved from node_modules as the runtime resolves its own copy. The local profile traces nothing (POWERTOOLS_TRACE_ENABLED=false: the local runtime has no X-Ray, so the X-Ray SDK is not loaded, lambdas/shared/tracing.ts); each such bundle is timed again with tracing on, as the default profile (AWS) runs it.`,
    `Baselines: each bundle next to a bare handler importing exactly the SDK modules that bundle requires at cold start (found by requiring it once, untimed, watching its requires; a client module required only on first use is not among them), bundled by the same esbuild call, which rebuilds ${largest.name} to ${formatNumber(rebuiltBytes)} bytes (its asset: ${formatNumber(largest.bytes)}${rebuiltBytes === largest.bytes ? ', identical' : ', NOT the same: the options differ'}), with the same runtime variables and NODE_OPTIONS. ${bares.size} distinct: ${baselines}.${deferred.length > 0 ? ` SDK modules a bundle names but its function's cold start does not load (a client of a destination it does not have, or one made on first use): ${deferred.map((bundle) => `${bundle.name} (${bundle.sdkModules.filter((name) => !bundle.coldStartSdkModules.includes(name)).join(', ')})`).join(', ')}.` : ''}`,
    `Largest bundle, ${largest.name}, ${formatNumber(largestKb)} KB (from its source map): ${composition}.`,
    "Bundles were 618-858 KB before two changes: `import * as z from 'zod'` (esbuild cannot tree-shake the `z` namespace re-export of `import { z }`, so every bundle carried all of zod with its locales, ~450 KB; a lint rule keeps the form) and ES module builds first (mainFields module,main: the agent's @smithy/signature-v4 from dist-cjs required all of @smithy/core, ~130 KB).",
    overBudget.length === 0
      ? `Every bundle is at most ${MAX_BUNDLE_KB} KB.`
      : `Over ${MAX_BUNDLE_KB} KB: ${overBudget.map((entry) => `${entry.bundle.name} ${formatNumber(entry.kb)} KB`).join(', ')}.`,
    `Cold init over its bare handler's, in CPU time (the wall time adds waits for a core on a shared machine): ${formatNumber(Math.min(...ratios))} to ${formatNumber(Math.max(...ratios))} (median ${formatNumber(percentile(ratios, 50) ?? Number.NaN)}); ${missed.length === 0 ? `every bundle within ${MAX_INIT_OVER_BARE}` : `over ${MAX_INIT_OVER_BARE}: ${missed.map((entry) => `${shortName(entry.bundle.name)} ${formatNumber(entry.overBare)} (${formatNumber(entry.ms)} ms of CPU, bare ${formatNumber(entry.bareMs)} ms)`).join(', ')}`}.${tracedRatios.length > 0 ? ` With tracing on (the default profile): ${formatNumber(Math.min(...tracedRatios))} to ${formatNumber(Math.max(...tracedRatios))}, the X-Ray SDK adding ${formatNumber(ms(xrayCost ?? Number.NaN))} ms of CPU (median over the bundles).` : ''}`,
    `NODE_OPTIONS=${largest.environment.NODE_OPTIONS ?? '(none)'} costs ${formatNumber(ms(largestCpu - largestWithoutSourceMapsCpu))} ms of ${largest.name}'s init in CPU time (${formatNumber(largestCpu)} ms with, ${formatNumber(largestWithoutSourceMapsCpu)} ms without; wall ${formatNumber(largestInit)} and ${formatNumber(largestWithoutSourceMaps)} ms): node reads and parses the bundle's source map at load (a bare handler's is a few hundred bytes); the maps carry no sources' text (HANDLER_BUNDLING sourcesContent: false), which it would parse too (2026-12-02, median of 15: the agent's cost 21 ms of CPU with the text, 8 ms without). Each SDK client has its own module (lambdas/shared/aws-clients/): esbuild keeps an external module's require whether used or not, so when one module held every client, every bundle loaded all of them.`,
    `The SDK bundled instead of external (the alternative to the runtime's copy): ${largest.name} grows to ${formatNumber(kb(sdkBundledBytes))} KB (${sdkBundledBytes > MAX_BUNDLE_KB * BYTES_PER_KB ? `over the ${MAX_BUNDLE_KB} KB target` : `within ${MAX_BUNDLE_KB} KB`}) and inits in ${formatNumber(largestSdkBundledCpu)} ms of CPU instead of ${formatNumber(largestCpu)} ms (wall ${formatNumber(largestSdkBundled)} and ${formatNumber(largestInit)} ms): one file to compile instead of hundreds to resolve, read and compile.`,
    WHERE_THE_REST_GOES,
    "Not covered: Lambda's own init (the sandbox, the runtime's bootstrap), arm64 (Graviton) instead of this machine's CPU, the CPU share Lambda gives the configured memory (a whole vCPU only from 1,769 MB, so init there takes longer than here), the SDK version the runtime ships, and the work of the first invocation (credentials, connections, a client made on first use).",
  ];
}

/** What profiles of the cold start showed, beyond what this run measures (dated: not re-measured). */
const WHERE_THE_REST_GOES =
  "Where a function's own init goes (measured 2026-12-05 on this machine's 2 cores at load 7-13, CPU time of require, medians of 9-15 processes, get-order with tracing off: 318 KB): the bundle alone, its code never run, ~13 ms to compile and ~10 ms more with --enable-source-maps (Node 20, when it finds the bundle's map comment, reads and parses the map and measures the bundle's lines: the same bundle without the comment costs nothing more, and a map without node_modules' mappings, 134 KB instead of 450, saved only 2-4 ms; the runtime's Node 22 was not measured), against a bare handler's bundle of under 1 KB: about half of what a function adds to its bare handler, and by itself ~1.35x, so the 1.15x target cannot be met with bundles of this size on Node 20. The rest: zod building the contracts' schemas at load ~4-7 ms, the SDK clients made at load ~3-5 ms (making them on first use would only move that into the first invocation, which a cold start waits for too), Powertools Logger and Metrics ~2-3 ms. The X-Ray SDK with Powertools' Tracer, where tracing is on, ~12-15 ms: now loaded only there (lambdas/shared/tracing.ts), and each outbox relay loads the SDK clients of its own destinations only (lambdas/choreography/adapters/outbox-clients.ts). Earlier (2026-12-02): a V8 code cache (what Node 22's module.enableCompileCache() writes; measured with vm.Script cachedData) brought the agent with the SDK bundled from ~130 ms to ~62 ms of CPU, and the agent as deployed only from ~143 to ~125 (it caches the bundle, not the SDK's files it requires); on Lambda that cache would have to ship in the asset, built by the runtime's exact Node version, as every cold sandbox starts with an empty /tmp: not done.";

export const functionsFigure: Figure = {
  id: 'functions',
  title: 'Functions: bundle size and cold init, next to a bare handler',
  run,
};
