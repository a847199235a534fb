/**
 * How figure `functions` times a cold init, and what it compares it with: a fresh `node` process
 * per sample requiring a bundle with a function's environment, round-robin over the subjects; the
 * SDK modules a bundle loads at cold start (what its bare handler imports); the environment of the
 * same function with tracing on.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { PowertoolsEnvKey } from '../../../lambdas/shared/env';
import { percentile } from '../../harness/stats';
import type { BenchContext } from '../core/figure';

const execFileAsync = promisify(execFile);

/**
 * Run in each fresh process: how long `require` of the bundle takes, in milliseconds, on stdout:
 * wall time, then the process's CPU time (user and system). Other processes on a shared machine
 * inflate the first much more than the second, so comparisons of one bundle built two ways use CPU.
 */
const TIME_REQUIRE =
  "const{performance}=require('node:perf_hooks');const c=process.cpuUsage();const s=performance.now();" +
  'require(process.argv[1]);const w=performance.now()-s;const u=process.cpuUsage(c);' +
  "process.stdout.write(w+' '+(u.user+u.system)/1000)";

/**
 * Run once per bundle, untimed: the `@aws-sdk/*` modules the bundle itself requires while it loads,
 * as JSON on the last line of stdout. A require inside a function the cold start does not call (a
 * client made on first use) is not counted, so the bare handler loads what the cold start loads.
 */
const SDK_LOADED_AT_COLD_START =
  "const M=require('node:module');const f=require('node:fs').realpathSync(process.argv[1]);const s=new Set();" +
  "const r=M.prototype.require;M.prototype.require=function(id){if(this.filename===f&&id.startsWith('@aws-sdk/'))s.add(id);return r.apply(this,arguments)};" +
  "require(f);process.stdout.write('\\n'+JSON.stringify([...s].sort()))";

/** The `@aws-sdk/*` modules `file` requires while a fresh process loads it with `environment`. */
export async function sdkModulesLoadedAtColdStart(
  file: string,
  environment: Readonly<Record<string, string>>,
): Promise<string[]> {
  try {
    const { stdout } = await execFileAsync(process.execPath, ['-e', SDK_LOADED_AT_COLD_START, file], {
      env: environment,
      encoding: 'utf8',
    });
    const modules: unknown = JSON.parse(stdout.slice(stdout.lastIndexOf('\n') + 1));
    if (!Array.isArray(modules) || !modules.every((name) => typeof name === 'string')) {
      throw new Error(`printed '${stdout}' instead of a list of module names`);
    }
    return modules;
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`requiring ${file} failed: ${(error as Error).message}\n${stderr ?? ''}`.trim());
  }
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

/** Something whose cold init is timed: a function's bundle, or a baseline. */
export interface InitSubject {
  readonly key: string;
  readonly label: string;
  readonly file: string;
  readonly environment: Readonly<Record<string, string>>;
}

/** Medians of the timed rounds, by subject key, in milliseconds. */
export interface InitMedians {
  wall(key: string): number;
  cpu(key: string): number;
}

/** `runs` rounds, each a fresh process per subject, round-robin so the machine's load hits all alike. */
export async function timeInits(
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
    roundTenth(
      percentile(
        (samples.get(key) ?? []).map((sample) => sample[of]),
        50,
      ) ?? Number.NaN,
    );
  return { wall: (key) => medianOf(key, 'wall'), cpu: (key) => medianOf(key, 'cpu') };
}

/** The key of the bare handler importing `modules` (bundles loading the same modules share one). */
export function bareKeyOf(modules: readonly string[]): string {
  const names = modules.map((name) => name.replace(/^@aws-sdk\//, ''));
  return `init.bare.${names.length > 0 ? names.join('+') : 'nothing'}`;
}

/**
 * The environment with tracing on (the default profile's: POWERTOOLS_TRACE_ENABLED unset), or
 * undefined when tracing is on in it already (then the bundle's own init is the traced one).
 */
export function tracedEnvironment(
  environment: Readonly<Record<string, string>>,
): Record<string, string> | undefined {
  if (environment[PowertoolsEnvKey.TraceEnabled] === undefined) return undefined;
  const traced = { ...environment };
  delete traced[PowertoolsEnvKey.TraceEnabled];
  return traced;
}

function roundTenth(millis: number): number {
  return Math.round(millis * 10) / 10;
}
