/**
 * Where the tests' CDK apps write their cloud assemblies: a new directory under one per test
 * process (`<tmp>/cdk-test-apps/<pid>/`). CDK's default, a `cdk.outXXXX` in the temp directory per
 * App that nothing removes, left about 270 directories and 140 MB in /tmp per `npm test`. A process
 * cannot count on running its own clean-up (Jest stops a worker that does not exit), so each test
 * process removes the directories of processes that are gone: what is left on disk is at most the
 * last run's.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../../lib/local-runtime/process-alive';

const ROOT = join(tmpdir(), 'cdk-test-apps');

let swept = false;

/** A new, empty output directory for one App (`new App({ outdir: testOutdir() })`). */
export function testOutdir(): string {
  const own = join(ROOT, String(process.pid));
  if (!swept) {
    swept = true;
    mkdirSync(ROOT, { recursive: true });
    for (const name of readdirSync(ROOT)) {
      const pid = Number(name);
      if (pid !== process.pid && (!Number.isInteger(pid) || !processAlive(pid))) {
        rmSync(join(ROOT, name), { recursive: true, force: true });
      }
    }
  }
  mkdirSync(own, { recursive: true });
  return mkdtempSync(join(own, 'cdk.out'));
}
