/**
 * `cdk synth -c profile=local --output DIR`: the assembly the local runtime runs. The same
 * synthesis, bundling and cdk-nag checks as a deployment (the CDK CLI and bin/app.ts), only the
 * profile's numbers differ. Used by npm start, the acceptance setup, the chaos campaign and tests.
 *
 * Without the CDK's built-in CloudFormation schema validation (CDK_VALIDATION=false): it costs ~4 s
 * of CPU per synthesis (a WASM engine), and in this app it only ever warns (the feature flag that
 * makes its findings errors is not set), warnings this quiet synthesis never shows. The local
 * runtime is not CloudFormation; `npm run synth` (default profile) and a LocalStack deploy
 * (`cdklocal`, local profile) still run it where a template meets CloudFormation.
 *
 * A synthesis is reused when nothing it reads has changed (synth-cache.ts: the key hashes the
 * context and every app source, dependency and CDK setting): the second `npm start` and every test
 * asking for an assembly it already has skip ~9 s of CPU. LOCAL_SYNTH_CACHE=off always synthesizes.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { copyEntry, obtainEntry, synthesisKey } from './synth-cache';

export const PROJECT_ROOT = resolve(__dirname, '../../..');

/** Where cached assemblies live (gitignored with the rest of .local/). */
export const SYNTH_CACHE_DIR = resolve(PROJECT_ROOT, '.local', 'synth-cache');

/** Set to `off` (or `0`, `false`) to synthesize every time, bypassing the cache. */
export const SYNTH_CACHE_ENV = 'LOCAL_SYNTH_CACHE';

export interface SynthesizeOptions {
  /**
   * Show the CLI's output as it runs (npm start). Otherwise the bundling chatter is kept back and
   * shown only in the error when synthesis fails.
   * @default false
   */
  readonly echo?: boolean;
  /**
   * Further CDK context (`-c key=value`), e.g. a test's own small limits. The app reads it as it
   * reads any deployment's context; the runtime knows nothing of its meaning.
   * @default - none
   */
  readonly context?: Readonly<Record<string, string>>;
  /**
   * Reuse an assembly synthesized from the same sources and context (.local/synth-cache).
   * @default true, unless LOCAL_SYNTH_CACHE is off, 0 or false
   */
  readonly cache?: boolean;
}

export interface SynthesisOutcome {
  /** Whether the assembly came from the cache (false: synthesized now, or the cache is off). */
  readonly cached: boolean;
  /** The cache key (hash of the synthesis inputs); absent when the cache is off. */
  readonly key?: string;
}

export function synthesizeLocalAssembly(
  outputDir: string,
  options: SynthesizeOptions = {},
): SynthesisOutcome {
  const args = ['-c', 'profile=local'];
  // Sorted, so the same context gives the same cache key whatever order the caller wrote it in.
  for (const [key, value] of Object.entries(options.context ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    args.push('-c', `${key}=${value}`);
  }
  const env = { ...process.env, CDK_VALIDATION: 'false' };
  const echo = options.echo ?? false;
  if (!(options.cache ?? cacheEnabled(process.env))) {
    runCdkSynth(resolve(outputDir), args, env, echo);
    return { cached: false };
  }
  const key = synthesisKey(PROJECT_ROOT, args, env);
  const entry = obtainEntry(SYNTH_CACHE_DIR, key, (tempDir) => runCdkSynth(tempDir, args, env, echo));
  if (entry.hit && options.echo) {
    console.log(
      `Sources and context unchanged: reusing ${entry.directory} (${SYNTH_CACHE_ENV}=off synthesizes anew)`,
    );
  }
  copyEntry(entry.directory, outputDir);
  return { cached: entry.hit, key };
}

export function cacheEnabled(env: NodeJS.ProcessEnv): boolean {
  const value = env[SYNTH_CACHE_ENV]?.trim().toLowerCase();
  return !(value === 'off' || value === '0' || value === 'false');
}

function runCdkSynth(
  outputDir: string,
  contextArgs: readonly string[],
  env: NodeJS.ProcessEnv,
  echo: boolean,
): void {
  const cdk = resolve(PROJECT_ROOT, 'node_modules', '.bin', 'cdk');
  const args = ['synth', '--quiet', ...contextArgs, '--output', outputDir];
  if (echo) {
    execFileSync(cdk, args, { cwd: PROJECT_ROOT, env, stdio: 'inherit' });
    return;
  }
  try {
    execFileSync(cdk, args, { cwd: PROJECT_ROOT, env, stdio: 'pipe', encoding: 'utf8' });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`cdk synth -c profile=local failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}
