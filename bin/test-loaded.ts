#!/usr/bin/env node
/**
 * npm run test:loaded: load immunity, shown. Occupies every core with a busy loop (one process per
 * core, at normal priority) and runs the orders' and deliveries' acceptance suites on the runtime's
 * virtual clock meanwhile; they must pass as on a quiet machine (a busy machine makes everything
 * slower, but on the virtual clock no deadline passes because of it). Prints how long it took.
 *
 *   npm run test:loaded [-- JEST_ARGS ...]   default: the orders and deliveries acceptance files
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { PROJECT_ROOT } from '../lib/local-runtime';

const SUITES = [
  'test/acceptance/scheduler-agent-supervisor/orders.test.ts',
  'test/acceptance/choreography/deliveries.test.ts',
];

function hog(): ChildProcess {
  return spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
}

async function main(argv: readonly string[]): Promise<number> {
  const hogs = cpus().map(() => hog());
  const started = Date.now();
  console.log(`${hogs.length} busy loops running (one per core); acceptance on the virtual clock ...`);
  try {
    const jest = spawn(
      'npx',
      ['jest', '--selectProjects', 'acceptance', '--runInBand', ...(argv.length > 0 ? argv : SUITES)],
      { cwd: PROJECT_ROOT, stdio: 'inherit', env: { ...process.env, LOCAL_CLOCK: 'virtual' } },
    );
    const code = await new Promise<number>((resolve) => jest.on('exit', (exit) => resolve(exit ?? 1)));
    console.log(
      `under load: ${code === 0 ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - started) / 1000)} s`,
    );
    return code;
  } finally {
    for (const busy of hogs) busy.kill('SIGKILL');
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(error.message);
    process.exit(1);
  },
);
