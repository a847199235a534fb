/** The tests' CDK output directories: one tree per test process, the trees of gone processes removed. */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { testOutdir } from '../../support/cdk-outdir';

describe('testOutdir', () => {
  it('gives a new empty directory under this process, and removes the trees of processes that are gone', () => {
    const root = join(tmpdir(), 'cdk-test-apps');
    // No process has this id (above Linux's largest pid_max), and a name that is no process id.
    const gone = join(root, '999999999');
    const stray = join(root, 'not-a-pid');
    mkdirSync(join(gone, 'cdk.outABCDEF'), { recursive: true });
    mkdirSync(stray, { recursive: true });
    const first = testOutdir();
    const second = testOutdir();
    expect(first).not.toBe(second);
    expect(dirname(first)).toBe(join(root, String(process.pid)));
    expect(readdirSync(first)).toEqual([]);
    expect(existsSync(gone)).toBe(false);
    expect(existsSync(stray)).toBe(false);
  });
});
