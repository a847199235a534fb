/**
 * Jest global setup of the `faults` project: synthesizes the app once with the local profile (on
 * the virtual clock with the deployed workflow timings, test/support/test-clock.ts) for every
 * campaign in the project (CHAOS_ASSEMBLY_DIR skips it, e.g. to reuse an assembly), with the
 * order campaign's admission limit (16, below its 24 submissions in flight: admission-pressure).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { PROJECT_ROOT, synthesizeLocal } from '../../lib/harness/assembly';
import { testTimingsContext } from '../support/test-clock';

/** Below the order campaign's default maxInFlight (24), so its submissions meet 429s. */
export const CAMPAIGN_ADMISSION_LIMIT = 16;

export const ASSEMBLY_ENV = 'CHAOS_ASSEMBLY_DIR';

export default function globalSetup(): void {
  if (process.env[ASSEMBLY_ENV]) return;
  const workDir = resolve(PROJECT_ROOT, '.local/chaos-test');
  mkdirSync(workDir, { recursive: true });
  const assemblyDir = resolve(workDir, 'cdk.out');
  rmSync(assemblyDir, { recursive: true, force: true });
  synthesizeLocal(assemblyDir, { admissionLimit: CAMPAIGN_ADMISSION_LIMIT, context: testTimingsContext() });
  process.env[ASSEMBLY_ENV] = assemblyDir;
}
