/** Shared by the campaign tests: where the synthesized assembly is, where scratch files go, how two traced runs compare. */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Verdict } from '../../lib/chaos/common/verdicts';
import { PROJECT_ROOT } from '../../lib/harness/assembly';

export const TEST_WORK_DIR = resolve(PROJECT_ROOT, '.local/chaos-test');

export function assemblyUnderTest(): string {
  const dir = process.env.CHAOS_ASSEMBLY_DIR;
  if (!dir) {
    throw new Error(
      'CHAOS_ASSEMBLY_DIR is not set: run through the jest `faults` project (its global setup synthesizes)',
    );
  }
  return dir;
}

/** Progress lines go to the console only when asked (CHAOS_VERBOSE=1); the summary always does. */
export function testLog(line: string): void {
  if (process.env.CHAOS_VERBOSE === '1') console.log(line);
}

/** A campaign's checks: each invariant's and guard's violation count is what two runs must agree on. */
interface CampaignVerdicts {
  readonly invariants: readonly Verdict<string>[];
  readonly guards: readonly Verdict<string>[];
}

/** One traced run of a campaign: its trace's lines and each check's violation count. */
export interface TracedRun {
  readonly trace: readonly string[];
  readonly verdicts: readonly string[];
}

/**
 * Runs a campaign twice with a trace in `workDir` (`first.trace`, `second.trace`), one run after
 * the other: a replay is the same trace and the same verdicts.
 */
export async function tracedTwice(
  workDir: string,
  run: (trace: string) => Promise<{ readonly result: CampaignVerdicts }>,
): Promise<readonly [TracedRun, TracedRun]> {
  const once = async (name: string): Promise<TracedRun> => {
    const trace = join(workDir, `${name}.trace`);
    const { result } = await run(trace);
    const verdicts = [...result.invariants, ...result.guards].map(
      (entry) => `${entry.id}: ${entry.violations.length}`,
    );
    return { trace: readFileSync(trace, 'utf8').split('\n'), verdicts };
  };
  const first = await once('first');
  const second = await once('second');
  return [first, second];
}

/** The first line where two traces differ, with both versions of it (undefined: the same trace). */
export function firstDifference(
  first: readonly string[],
  second: readonly string[],
): { readonly line: number; readonly first?: string; readonly second?: string } | undefined {
  const differs = first.findIndex((line, index) => second[index] !== line);
  if (differs === -1 && first.length === second.length) return undefined;
  const at = differs === -1 ? first.length : differs;
  return { line: at + 1, first: first[at], second: second[at] };
}
