/**
 * The Lambda host's sandboxes run plain node, as Lambda's Node.js runtime does, whatever flags the
 * host process was started with: a host run by tsx (npm start, the bench) must not hand its loader
 * hooks and source maps to every sandbox (they cost ~6x the CPU of a cold start).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../lib/local-runtime';

jest.setTimeout(60_000);

interface Flags {
  readonly execArgv: readonly string[];
  readonly sourceMapsEnabled: boolean;
}

it('runs sandboxes without the host process flags (a host started with --import tsx)', () => {
  const output = execFileSync(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'fixtures', 'sandbox-flags-host.ts')],
    { cwd: PROJECT_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const { host, sandbox } = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as {
    host: Flags;
    sandbox: Flags;
  };
  // The host really has the flags a sandbox could inherit (else the test proves nothing).
  expect(host.execArgv).toEqual(expect.arrayContaining(['--import', 'tsx']));
  expect(host.sourceMapsEnabled).toBe(true);
  expect(sandbox).toEqual({ execArgv: [], sourceMapsEnabled: false });
});
