/**
 * A content-addressed cache of synthesized cloud assemblies (`.local/synth-cache/<key>`).
 *
 * Why: `npm test` synthesizes the app with the local profile several times (acceptance and fault
 * global setups, the restart, admission and redeploy tests, npm start), each ~9 s of CPU (40 s
 * while each function was bundled by an esbuild process of its own). The assembly is a pure
 * function of the sources and the synth arguments, so a second synthesis of the same inputs is
 * reused instead of repeated.
 *
 * Correctness rests on the key: a SHA-256 over the synth arguments (profile and context), the Node
 * version, every `CDK_*` environment variable, and the path and content of every file that can
 * change the assembly (see {@link SYNTH_INPUTS}). Contents are hashed, not git state, so an edit,
 * an added or a deleted file changes the key whether or not it is committed.
 *
 * Concurrency: one producer per key (an exclusive lock file naming its pid; a lock whose process is
 * gone is broken), others wait for the entry; the producer synthesizes into a temporary directory
 * and publishes it with one rename, so an entry is either absent or complete.
 *
 * The cache hands out copies (callers may write into their assembly, e.g. the chaos campaign's
 * broken variants), so nothing a caller does reaches the cache.
 */
import { createHash } from 'node:crypto';
import {
  constants,
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { processAlive } from '../process-alive';

/**
 * What an assembly is made of, relative to the project root: the app's code (bin/, lib/, the
 * handlers esbuild bundles), the dependencies as installed (npm's hidden lockfile describes the
 * tree actually in node_modules, the lockfile the one intended), and the CDK and TypeScript
 * settings. tsx and esbuild read only these; test/ and scripts/ are not part of the app.
 */
export const SYNTH_INPUTS = {
  directories: ['bin', 'lib', 'lambdas'],
  files: [
    'package.json',
    'package-lock.json',
    'node_modules/.package-lock.json',
    'cdk.json',
    'cdk.context.json',
    'tsconfig.json',
  ],
} as const;

/** Bump when the layout of an entry changes, so old entries are never read as new ones. */
const CACHE_FORMAT = 1;

/** Entries kept: a few source states × the contexts the tests synthesize (~70 MB each). */
export const MAX_ENTRIES = 8;

/** An entry used this recently is never pruned (a caller may be copying it right now). */
const PRUNE_GRACE_MS = 10 * 60_000;

/** How long a caller waits for another process producing the same entry. */
const WAIT_FOR_PRODUCER_MS = 15 * 60_000;

const POLL_MS = 250;

/**
 * The key of one synthesis: arguments, Node version, `CDK_*` environment and the content of every
 * input file under `projectRoot`. Order of `args` pairs matters only as given: pass them sorted.
 */
export function synthesisKey(
  projectRoot: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): string {
  const hash = createHash('sha256');
  const field = (name: string, value: string | Buffer) => {
    hash.update(`${name}\0${typeof value === 'string' ? value.length : value.byteLength}\0`);
    hash.update(value);
  };
  field('format', String(CACHE_FORMAT));
  field('node', process.version);
  field('args', JSON.stringify(args));
  const cdkEnv = Object.keys(env)
    .filter((name) => name.startsWith('CDK_'))
    .sort()
    .map((name) => [name, env[name]]);
  field('env', JSON.stringify(cdkEnv));
  const files = [
    ...SYNTH_INPUTS.files.map((file) => resolve(projectRoot, file)),
    ...SYNTH_INPUTS.directories.flatMap((dir) => filesUnder(resolve(projectRoot, dir))),
  ];
  for (const file of files) {
    const name = relative(projectRoot, file);
    // A missing optional input (cdk.context.json) is part of the key too: creating it changes it.
    field(`file ${name}`, existsSync(file) ? readFileSync(file) : '\0absent');
  }
  return hash.digest('hex').slice(0, 32);
}

/** Every regular file under `dir`, sorted, symlinks followed as the bundler would. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  const walk = (current: string) => {
    const entries = readdirSync(current, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const entry of entries) {
      const path = join(current, entry.name);
      const stats = entry.isSymbolicLink() ? statSync(path) : entry;
      if (stats.isDirectory()) walk(path);
      else if (stats.isFile()) found.push(path);
    }
  };
  walk(dir);
  return found;
}

export interface CachedEntry {
  /** The entry's directory (read it, never write into it: use {@link copyEntry}). */
  readonly directory: string;
  /** Whether the entry existed (or was produced by another process) rather than produced here. */
  readonly hit: boolean;
}

/**
 * The entry for `key` under `cacheDir`, produced by `produce(tempDir)` if no process has produced
 * it yet. `produce` writes the complete result into `tempDir`; a throw leaves no entry behind.
 */
export function obtainEntry(cacheDir: string, key: string, produce: (tempDir: string) => void): CachedEntry {
  if (!/^[0-9a-f]{8,64}$/.test(key)) throw new Error(`Synth cache key must be hex, got '${key}'`);
  mkdirSync(cacheDir, { recursive: true });
  const entry = join(cacheDir, key);
  const lock = join(cacheDir, `${key}.lock`);
  // wall clock: files and processes of the synthesis cache
  const deadline = Date.now() + WAIT_FOR_PRODUCER_MS;
  for (;;) {
    if (existsSync(entry)) {
      touch(entry);
      return { directory: entry, hit: true };
    }
    if (tryLock(lock)) break;
    // wall clock: files and processes of the synthesis cache
    if (Date.now() > deadline) {
      throw new Error(`Gave up waiting for another process to synthesize ${entry} (lock ${lock})`);
    }
    sleep(POLL_MS);
  }
  try {
    // Another process may have published between our existence check and taking the lock.
    if (existsSync(entry)) {
      touch(entry);
      return { directory: entry, hit: true };
    }
    // wall clock: files and processes of the synthesis cache
    const temp = join(cacheDir, `.tmp-${key}-${process.pid}-${Date.now()}`);
    rmSync(temp, { recursive: true, force: true });
    try {
      produce(temp);
      renameSync(temp, entry);
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  } finally {
    rmSync(lock, { force: true });
  }
  prune(cacheDir, key);
  return { directory: entry, hit: false };
}

/**
 * Replaces `target` with a copy of `entry` (copy-on-write where the file system can), through a
 * temporary sibling and a rename, so `target` is never left half-written.
 */
export function copyEntry(entry: string, target: string): void {
  const absolute = resolve(target);
  // wall clock: files and processes of the synthesis cache
  const temp = `${absolute}.tmp-${process.pid}-${Date.now()}`;
  rmSync(temp, { recursive: true, force: true });
  cpSync(entry, temp, { recursive: true, mode: constants.COPYFILE_FICLONE });
  rmSync(absolute, { recursive: true, force: true });
  renameSync(temp, absolute);
}

/**
 * Takes the lock atomically with its content (link(2) of a file naming our pid fails if the lock
 * exists); breaks a lock whose process is gone (a synthesis killed mid-way).
 */
function tryLock(lock: string): boolean {
  const mine = `${lock}.${process.pid}`;
  writeFileSync(mine, String(process.pid));
  try {
    linkSync(mine, lock);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const holder = Number(readOrEmpty(lock));
    if (Number.isInteger(holder) && holder > 0 && !processAlive(holder)) rmSync(lock, { force: true });
    return false;
  } finally {
    unlinkSync(mine);
  }
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function touch(path: string): void {
  // wall clock: files and processes of the synthesis cache
  const now = new Date();
  try {
    utimesSync(path, now, now);
  } catch {
    // pruned meanwhile: the caller's copy fails loudly if so
  }
}

/**
 * Keeps the newest {@link MAX_ENTRIES} entries (by last use) and drops older ones not used within
 * the grace period; drops temporary directories of producers long gone.
 */
function prune(cacheDir: string, keep: string): void {
  // wall clock: files and processes of the synthesis cache
  const now = Date.now();
  const entries: { name: string; used: number }[] = [];
  for (const name of readdirSync(cacheDir)) {
    const path = join(cacheDir, name);
    let used: number;
    try {
      used = statSync(path).mtimeMs;
    } catch {
      continue;
    }
    if (name.startsWith('.tmp-')) {
      if (now - used > WAIT_FOR_PRODUCER_MS) rmSync(path, { recursive: true, force: true });
    } else if (/^[0-9a-f]+$/.test(name) && name !== keep) {
      entries.push({ name, used });
    }
  }
  entries.sort((a, b) => b.used - a.used);
  for (const { name, used } of entries.slice(MAX_ENTRIES - 1)) {
    if (now - used > PRUNE_GRACE_MS) rmSync(join(cacheDir, name), { recursive: true, force: true });
  }
}

function sleep(ms: number): void {
  // A synchronous wait: the synthesis API is synchronous (execFileSync), and so is waiting for it.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
