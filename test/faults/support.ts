/** Shared by the campaign tests: where the synthesized assembly is and where scratch files go. */
import { resolve } from 'node:path';
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
