/**
 * Figure 5, functions: each Lambda bundle's size and its cold initialisation time, next to a bare
 * handler that only imports the AWS SDK v3 modules the functions use, bundled the same way.
 *
 * The bundles are the assets of the local synthesized assembly (the same `cdk synth` and esbuild
 * bundling as a deployment). Init is the time a fresh `node` process takes to `require` a bundle
 * with the environment the function gets: the median of several processes, run round-robin over
 * the bundles so that a busy moment of the shared machine hits them all alike.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
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

const execFileAsync = promisify(execFile);

/** The issue's targets (issue 11, figure 5). */
export const MAX_BUNDLE_KB = 500;
export const MAX_INIT_MS = 100;
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

/**
 * Run in each fresh process: how long `require` of the bundle takes, in milliseconds, on stdout:
 * wall time, then the process's CPU time (user and system). Other processes on a shared machine
 * inflate the first much more than the second, so comparisons of one bundle built two ways use CPU.
 */
const TIME_REQUIRE =
  "const{performance}=require('node:perf_hooks');const c=process.cpuUsage();const s=performance.now();" +
  'require(process.argv[1]);const w=performance.now()-s;const u=process.cpuUsage(c);' +
  "process.stdout.write(w+' '+(u.user+u.system)/1000)";

const BARE_HANDLER = 'bare handler';
/** The client a function touching a table cannot do without: the floor of the second baseline. */
const DYNAMODB_CLIENT = '@aws-sdk/client-dynamodb';

/** One asset (several functions may share one: the outbox relays, the agents). */
interface Bundle {
  /** `wing/handlers/name` from the bundle's source map, as LambdaFunction's `handler` prop names it. */
  readonly name: string;
  readonly file: string;
  readonly bytes: number;
  readonly functions: readonly string[];
  /** The complete environment the process requiring the bundle gets. */
  readonly environment: Readonly<Record<string, string>>;
  /** `@aws-sdk/*` modules it requires at run time (external: the runtime ships them). */
  readonly sdkModules: readonly string[];
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

function readBundles(assemblyDir: string): Bundle[] {
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

/** One fresh process's require of `file`: wall and CPU milliseconds. */
interface InitSample {
  readonly wall: number;
  readonly cpu: number;
}

async function timeRequire(file: string, environment: Readonly<Record<string, string>>): Promise<InitSample> {
  try {
    const { stdout } = await execFileAsync(process.execPath, ['-e', TIME_REQUIRE, file], {
      env: environment,
      encoding: 'utf8',
    });
    const [wall, cpu] = stdout.split(' ').map(Number);
    if (!Number.isFinite(wall) || !Number.isFinite(cpu)) {
      throw new Error(`printed '${stdout}' instead of two numbers of milliseconds`);
    }
    return { wall: wall as number, cpu: cpu as number };
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`requiring ${file} failed: ${(error as Error).message}\n${stderr ?? ''}`.trim());
  }
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

/** Something whose cold init is timed: a function's bundle, or a baseline. */
interface InitSubject {
  readonly key: string;
  readonly label: string;
  readonly file: string;
  readonly environment: Readonly<Record<string, string>>;
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

/** What the figure times and compares: the assembly's bundles and the baselines beside them. */
interface Subjects {
  readonly bundles: readonly Bundle[];
  readonly largest: Bundle;
  readonly functionCount: number;
  readonly sdkModules: readonly string[];
  readonly bare: { readonly bytes: number };
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
  const bundles = readBundles(assemblyDir).sort((left, right) => right.bytes - left.bytes);
  const largest = bundles[0];
  if (!largest) throw new Error(`No bundled function in ${assemblyDir}`);
  const functionCount = bundles.reduce((count, bundle) => count + bundle.functions.length, 0);
  context.progress(
    `${functionCount} functions in ${bundles.length} bundles (assembly ${synthesis.cached ? 'from the synth cache' : 'synthesized'})`,
  );

  // The baselines, bundled by the same esbuild call that must rebuild a real handler byte for byte.
  const sdkModules = [...new Set(bundles.flatMap((bundle) => bundle.sdkModules))].sort();
  const bare = await bareHandler(join(context.workDir, 'bare'), sdkModules, largest.environment);
  const bareDynamoDb = await bareHandler(
    join(context.workDir, 'bare-dynamodb'),
    [DYNAMODB_CLIENT],
    largest.environment,
  );
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
    {
      key: 'init.bare',
      label: `Cold init, ${BARE_HANDLER} (all ${sdkModules.length} SDK modules)`,
      ...bare,
    },
    {
      key: 'init.bareDynamoDb',
      label: `Cold init, ${BARE_HANDLER} (${DYNAMODB_CLIENT} only)`,
      ...bareDynamoDb,
    },
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
    sdkModules,
    bare,
    rebuiltBytes: statSync(rebuilt).size,
    sdkBundledBytes: statSync(sdkBundled).size,
    inits,
  };
}

/** Medians of the timed rounds, by subject key, in milliseconds. */
interface InitMedians {
  wall(key: string): number;
  cpu(key: string): number;
}

/** `runs` rounds, each a fresh process per subject, round-robin so the machine's load hits all alike. */
async function timeInits(
  context: BenchContext,
  subjects: readonly InitSubject[],
  runs: number,
): Promise<InitMedians> {
  const samples = new Map<string, InitSample[]>(subjects.map((subject) => [subject.key, []]));
  for (let round = 1; round <= runs; round += 1) {
    context.progress(`cold init, round ${round} of ${runs}: ${subjects.length} fresh processes`);
    for (const subject of subjects) {
      samples.get(subject.key)?.push(await timeRequire(subject.file, subject.environment));
    }
  }
  const medianOf = (key: string, of: keyof InitSample) =>
    ms(
      percentile(
        (samples.get(key) ?? []).map((sample) => sample[of]),
        50,
      ) ?? Number.NaN,
    );
  return { wall: (key) => medianOf(key, 'wall'), cpu: (key) => medianOf(key, 'cpu') };
}

async function run(context: BenchContext): Promise<FigureResult> {
  const runs = context.quick ? QUICK_RUNS : FULL_RUNS;
  const subjects = await prepareSubjects(context);
  const { bundles, largest, functionCount, bare, sdkBundledBytes } = subjects;
  const medians = await timeInits(context, subjects.inits, runs);
  const initOf = (key: string) => medians.wall(key);
  const cpuOf = (key: string) => medians.cpu(key);

  const sizes = bundles.map((bundle) => ({ bundle, kb: kb(bundle.bytes) }));
  const inits = bundles.map((bundle) => ({ bundle, ms: initOf(`init.${bundle.name}`) }));
  const bareInit = initOf('init.bare');
  const bareDynamoDbInit = initOf('init.bareDynamoDb');
  const largestKb = kb(largest.bytes);
  const slowest = inits.reduce((worst, entry) => (entry.ms > worst.ms ? entry : worst));

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
    { key: 'size.bare', label: `Bundle size, ${BARE_HANDLER}`, value: kb(bare.bytes), unit: 'KB' },
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
    ...subjects.inits
      .filter((subject) => subject.key.startsWith(`init.${largest.name}`))
      .map((subject) => ({
        key: `${subject.key}.cpu`,
        label: `${subject.label}: CPU time`,
        value: cpuOf(subject.key),
        unit: 'ms',
      })),
    {
      key: 'init.slowestMinusBare',
      label: `Cold init of the slowest (${slowest.bundle.name}) minus the bare handler's`,
      value: ms(slowest.ms - bareInit),
      unit: 'ms',
    },
    {
      // A ratio of two medians of the same rounds: what a loaded machine inflates, it inflates in both.
      key: 'init.slowestOverBare',
      label: `Cold init of the slowest (${slowest.bundle.name}) over the bare handler's`,
      value: Math.round(ratio(slowest.ms, bareInit) * 100) / 100,
      unit: 'ratio',
    },
  ];

  const seriesBundle = 'function bundle';
  const seriesBare = 'bare handler (SDK imports only)';
  const charts: ChartSpec[] = [
    {
      kind: 'bar',
      title: `Lambda bundle size (minified; target <= ${MAX_BUNDLE_KB} KB)`,
      xLabel: 'handler',
      yLabel: 'KB',
      points: [
        ...sizes.map(({ bundle, kb: y }) => ({ series: seriesBundle, x: shortName(bundle.name), y })),
        { series: seriesBare, x: BARE_HANDLER, y: kb(bare.bytes) },
      ],
    },
    {
      kind: 'bar',
      title: `Cold init, median of ${runs} fresh processes (target <= ${MAX_INIT_MS} ms)`,
      xLabel: 'handler',
      yLabel: 'ms',
      points: [
        ...inits.map(({ bundle, ms: y }) => ({ series: seriesBundle, x: shortName(bundle.name), y })),
        { series: seriesBare, x: `${BARE_HANDLER}, all SDK`, y: bareInit },
        { series: seriesBare, x: `${BARE_HANDLER}, DynamoDB`, y: bareDynamoDbInit },
      ],
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
        `slowest cold init <= ${MAX_INIT_MS} ms (${slowest.bundle.name})`,
        slowest.ms,
        'atMost',
        MAX_INIT_MS,
      ),
    ],
    notes: functionNotes(subjects, medians, runs, slowest),
    charts,
  };
}

/** The figure's notes: how it measures, and what the numbers of this run say. */
function functionNotes(
  subjects: Subjects,
  medians: InitMedians,
  runs: number,
  slowest: { readonly bundle: Bundle; readonly ms: number },
): string[] {
  const { bundles, largest, functionCount, sdkModules, rebuiltBytes, sdkBundledBytes } = subjects;
  const initOf = (key: string) => medians.wall(key);
  const cpuOf = (key: string) => medians.cpu(key);
  const bareInit = initOf('init.bare');
  const bareDynamoDbInit = initOf('init.bareDynamoDb');
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
  const clientModules = sdkModules.filter((name) => name.startsWith('@aws-sdk/client-'));
  const withEveryClient = bundles.filter((bundle) =>
    clientModules.every((name) => bundle.sdkModules.includes(name)),
  ).length;
  const shared = bundles
    .filter((bundle) => bundle.functions.length > 1)
    .map((bundle) => `${bundle.name} by ${bundle.functions.length}`);
  const composition = largest.composition
    .slice(0, COMPOSITION_SHOWN)
    .map((part) => `${part.name} ${formatNumber(kb(part.characters))} KB`)
    .join(', ');
  return [
    `Bundles: the assets of the local synthesized assembly (cdk synth -c profile=local: the same esbuild bundling as a deployment, options in lib/platform/handler-bundling.ts HANDLER_BUNDLING). Size: index.js, minified, source map excluded; 1 KB = 1,000 bytes. ${functionCount} functions share ${bundles.length} bundles${shared.length > 0 ? ` (shared: ${shared.join(', ')})` : ''}.`,
    `Cold init: median of ${runs} fresh \`node\` processes (${process.version}) per bundle, run round-robin, each timing require(index.js) with the function's environment: the template's variables (intrinsics resolved to local names, nothing contacted), Lambda's reserved variables and NODE_OPTIONS as deployed, the AWS SDK v3 resolved from node_modules as the runtime resolves its own copy.`,
    `Baselines: a bare handler that only imports the SDK modules the functions require (${sdkModules.join(', ')}), and one that imports ${DYNAMODB_CLIENT} alone, bundled by the same esbuild call, which rebuilds ${largest.name} to ${formatNumber(rebuiltBytes)} bytes (its asset: ${formatNumber(largest.bytes)}${rebuiltBytes === largest.bytes ? ', identical' : ', NOT the same: the options differ'}).`,
    `Largest bundle, ${largest.name}, ${formatNumber(largestKb)} KB (from its source map): ${composition}.`,
    "Bundles were 618-858 KB before two changes: `import * as z from 'zod'` (esbuild cannot tree-shake the `z` namespace re-export of `import { z }`, so every bundle carried all of zod with its locales, ~450 KB; a lint rule keeps the form) and ES module builds first (mainFields module,main: the agent's @smithy/signature-v4 from dist-cjs required all of @smithy/core, ~130 KB).",
    overBudget.length === 0
      ? `Every bundle is at most ${MAX_BUNDLE_KB} KB.`
      : `Over ${MAX_BUNDLE_KB} KB: ${overBudget.map((entry) => `${entry.bundle.name} ${formatNumber(entry.kb)} KB`).join(', ')}.`,
    `Where init goes on this machine: the bare handler alone takes ${formatNumber(bareInit)} ms and ${DYNAMODB_CLIENT} alone ${formatNumber(bareDynamoDbInit)} ms (node loading the SDK's CommonJS files), so no function that touches a table meets ${MAX_INIT_MS} ms here; the slowest (${slowest.bundle.name}) adds ${formatNumber(ms(slowest.ms - bareInit))} ms of its own. ${withEveryClient} of ${bundles.length} bundles require all ${clientModules.length} SDK clients: each client has its own module (lambdas/shared/aws-clients/), because esbuild keeps an external module's require whether used or not (it cannot know it has no side effects); when one module held every client, every bundle loaded all of them. NODE_OPTIONS=${largest.environment.NODE_OPTIONS ?? '(none)'} costs ${formatNumber(ms(largestCpu - largestWithoutSourceMapsCpu))} ms of ${largest.name}'s init in CPU time (${formatNumber(largestCpu)} ms with, ${formatNumber(largestWithoutSourceMapsCpu)} ms without; wall ${formatNumber(largestInit)} and ${formatNumber(largestWithoutSourceMaps)} ms): the maps carry no sources' text (HANDLER_BUNDLING sourcesContent: false), which it would parse at every cold start (2026-12-02, median of 15: the agent's cost 21 ms of CPU with the text, 8 ms without).`,
    `The SDK bundled instead of external (the alternative to the runtime's copy): ${largest.name} grows to ${formatNumber(kb(sdkBundledBytes))} KB (${sdkBundledBytes > MAX_BUNDLE_KB * BYTES_PER_KB ? `over the ${MAX_BUNDLE_KB} KB target` : `within ${MAX_BUNDLE_KB} KB`}) and inits in ${formatNumber(largestSdkBundledCpu)} ms of CPU instead of ${formatNumber(largestCpu)} ms (wall ${formatNumber(largestSdkBundled)} and ${formatNumber(largestInit)} ms): one file to compile instead of hundreds to resolve, read and compile, still not ${MAX_INIT_MS} ms.`,
    "Where the rest goes (measured 2026-12-02 at load 22-28 on this machine's 2 cores, CPU time of require, median of 7-9 processes): @aws-sdk/client-dynamodb alone ~85 ms external, ~58 ms bundled; the Powertools Tracer alone (aws-xray-sdk-core) ~35 ms; Logger and Metrics ~12 ms; zod and a schema ~10 ms; Tracer and a captured DynamoDB client ~97 ms external, ~73 ms bundled, the floor of any traced function that touches a table. V8 compiling the code is most of it: a V8 code cache (what Node 22's module.enableCompileCache() writes; Node 20 here has no such API, so measured with vm.Script cachedData) brought the agent with the SDK bundled from ~130 ms to ~62 ms of CPU, and the agent as deployed only from ~143 to ~125 (it caches the bundle, not the SDK's files it requires). On Lambda that cache would have to ship in the asset, built by the runtime's exact Node version, as every cold sandbox starts with an empty /tmp: not done.",
    "Not covered: Lambda's own init (the sandbox, the runtime's bootstrap), arm64 (Graviton) instead of this machine's CPU, the CPU share Lambda gives the configured memory (a whole vCPU only from 1,769 MB, so init there takes longer than here), the SDK version the runtime ships, and the work of the first invocation (credentials, connections).",
  ];
}

export const functionsFigure: Figure = {
  id: 'functions',
  title: 'Functions: bundle size and cold init, next to a bare handler',
  run,
};
