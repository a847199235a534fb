/**
 * The access denials a campaign's runtimes recorded (one IAM record directory per start of the
 * runtime: a restart must not overwrite what the run before it recorded), read back for the
 * `app-not-denied` invariant: a request the app's own roles made that IAM refused is a grant missing
 * from the templates, which AWS would refuse too. The campaign's own probes (a client reading
 * another client's queue) are users, not roles, and are not counted.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DenialRecord } from '../../local-runtime/iam/authorizer';
import { IAM_RECORD_FILES } from '../../local-runtime/iam/usage-record';

/** Where the runtime started for the `start`-th time in a run records IAM. */
export function iamRecordDirOf(workDir: string, runId: string, start: number): string {
  return join(workDir, `iam-${runId}`, `start-${start}`);
}

/** The denials of requests by the app's roles in the given record directories, as messages. */
export function appDenials(recordDirs: readonly string[]): string[] {
  return recordDirs.flatMap((dir) => {
    const file = join(dir, IAM_RECORD_FILES.denials);
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as DenialRecord)
      .filter((record) => record.principalKind === 'role-session' || record.principalKind === 'service')
      .map((record) => record.message);
  });
}
