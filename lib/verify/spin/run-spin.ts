/**
 * Runs spin on one model: generates the verifier (`spin -a`), compiles it with gcc, searches the whole
 * state space (`pan`), and on an error replays the trail into the actors' steps. Each run gets a
 * directory of its own, removed afterwards, so runs may go side by side.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SpinModel } from './spin-model';
import type { SpinResult, SpinTrail } from './spin-result';
import { SpinUnavailableError } from './spin-unavailable-error';

/** Which property to check: the assertions and end states, or one liveness formula. */
export type SpinCheck = { readonly kind: 'safety' } | { readonly kind: 'liveness'; readonly ltl: string };

export interface RunSpinOptions {
  /**
   * Largest search depth pan may reach; reaching it makes the result incomplete (never ok).
   * @default 1_000_000
   */
  readonly maxDepth?: number;
  /** log2 of the hash table's slots. @default 24 */
  readonly hashBits?: number;
  /** Memory pan may use, in MB. @default 8192 */
  readonly memoryMb?: number;
  /**
   * Search breadth first (safety only): the shortest counterexample, found first; what a broken
   * variant's search wants. @default false (depth first)
   */
  readonly breadthFirst?: boolean;
  /**
   * Compile the verifier with gcc's -O2: about 7 s more of compiling for a search about twice as
   * fast, worth it for a whole state space, not for a breadth-first search that stops at its first
   * counterexample. @default true, unless breadthFirst
   */
  readonly optimise?: boolean;
}

const FILE = 'model.pml';

function run(command: string, args: readonly string[], cwd: string): string {
  const out = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (out.error) throw new SpinUnavailableError(command, out.error.message);
  return `${out.stdout}${out.stderr}`;
}

function numberAfter(text: string, pattern: RegExp): number {
  const match = pattern.exec(text);
  return match?.[1] === undefined ? Number.NaN : Number(match[1]);
}

/** Why pan's search was not exhaustive, from what it printed (undefined when it was). */
function incompleteness(output: string): string | undefined {
  if (/max search depth too small/.test(output)) return 'the search reached its depth limit';
  if (/out of memory|pan: reached -DMEMLIM bound/.test(output)) return 'pan ran out of memory';
  if (/hash table is full|Warning: Search not completed/.test(output)) return 'the search was not completed';
  return undefined;
}

/** The actors' steps of a trail: the model's `printf("@@ ...")` lines, in the order spin replayed them. */
export function trailSteps(replay: string): string[] {
  return replay
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('@@ '))
    .map((line) => line.slice(3));
}

function violationOf(replay: string, pan: string): string {
  const assertion = /text of failed assertion: (.*)/.exec(replay)?.[1];
  if (assertion) return `assertion violated: ${assertion}`;
  if (/acceptance cycle/.test(pan)) return 'acceptance cycle: a run that never satisfies the formula';
  if (/invalid end state/.test(pan)) return 'invalid end state: an actor blocked where it may not stop';
  return pan.split('\n').find((line) => line.startsWith('pan:')) ?? 'error';
}

/** Checks `check` on `model` exhaustively; the result carries the trail of the first error found. */
export function runSpin(model: SpinModel, check: SpinCheck, given: RunSpinOptions = {}): SpinResult {
  const options = { ...model.search, ...given };
  const dir = mkdtempSync(join(tmpdir(), `spin-${model.name}-`));
  try {
    writeFileSync(join(dir, FILE), model.source);
    const generated = run('spin', ['-a', FILE], dir);
    if (!existsSync(join(dir, 'pan.c'))) {
      throw new Error(`spin could not generate a verifier for ${model.name}:\n${generated}`);
    }
    const flags = check.kind === 'safety' ? ['-DSAFETY', '-DNOCLAIM'] : ['-DNFAIR=3'];
    const compiled = run(
      'gcc',
      [
        (options.optimise ?? !options.breadthFirst) ? '-O2' : '-O0',
        '-w',
        ...(options.breadthFirst ? ['-DBFS'] : [`-DMEMLIM=${options.memoryMb ?? 8192}`]),
        '-DCOLLAPSE',
        '-DVECTORSZ=4096',
        ...flags,
        '-o',
        'pan',
        'pan.c',
      ],
      dir,
    );
    if (!existsSync(join(dir, 'pan'))) {
      throw new Error(`gcc could not compile the verifier of ${model.name}:\n${compiled}`);
    }
    const panArgs = [
      ...(options.breadthFirst ? [] : [`-m${options.maxDepth ?? 1_000_000}`]),
      `-w${options.hashBits ?? 24}`,
    ];
    if (check.kind === 'liveness') panArgs.push('-a', '-f', '-N', check.ltl);
    const pan = run('./pan', panArgs, dir);
    const errors = numberAfter(pan, /errors: (\d+)/);
    if (Number.isNaN(errors)) throw new Error(`pan printed no result for ${model.name}:\n${pan}`);
    const incomplete = incompleteness(pan);
    let trail: SpinTrail | undefined;
    if (errors > 0) {
      const replay = run('spin', ['-T', '-t', FILE], dir);
      trail = { steps: trailSteps(replay), violation: violationOf(replay, pan), raw: replay };
    }
    return {
      model: model.name,
      check: check.kind === 'safety' ? 'safety' : check.ltl,
      ok: errors === 0 && incomplete === undefined,
      errors,
      states: numberAfter(pan, /([\d.e+]+) states, stored/),
      transitions: numberAfter(pan, /([\d.e+]+) transitions/),
      depth: numberAfter(pan, /depth reached (\d+)/),
      stateVectorBytes: numberAfter(pan, /State-vector (\d+) byte/),
      seconds: numberAfter(pan, /elapsed time ([\d.e+-]+) seconds/),
      ...(incomplete !== undefined && { incomplete }),
      ...(trail !== undefined && { trail }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
