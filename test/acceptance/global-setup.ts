/**
 * Starts the system under test for `npm test`: synthesizes the app with the local profile (the same
 * `cdk synth` path as a deployment; on the virtual clock with the deployed workflow timings) and
 * runs its cloud assembly on the embedded local runtime. When
 * ACCEPTANCE_TARGET is already set (LocalStack, AWS), it starts nothing.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { APP_API_PORT_ORDER } from '../../bin/app-api-port-order';
import { appLocalUsers } from '../../bin/app-local-users';
import {
  DEFAULT_LOCAL_REGION,
  type LocalRuntime,
  PROJECT_ROOT,
  startLocalRuntime,
  synthesizeLocalAssembly,
  VirtualClock,
} from '../../lib/local-runtime';
import { IAM_RECORD_FILES } from '../../lib/local-runtime/iam/usage-record';
import { testClock, testTimingsContext } from '../support/test-clock';
import { IAM_DENIALS_ENV } from './iam-watch';
import { TARGET_ENV } from './setup';

const WORK_DIR = resolve(PROJECT_ROOT, '.local/acceptance');

declare global {
  // The runtime handle crosses from global setup to global teardown (same process).
  var acceptanceRuntime: LocalRuntime | undefined;
}

export default async function globalSetup(): Promise<void> {
  if (process.env[TARGET_ENV]) return;
  const assemblyDir = resolve(WORK_DIR, 'cdk.out');
  mkdirSync(WORK_DIR, { recursive: true });
  // On the virtual clock, with the deployed workflow timings (test/support/test-clock.ts).
  synthesizeLocalAssembly(assemblyDir, { context: testTimingsContext() });
  const targetFile = resolve(WORK_DIR, 'target.json');
  const iamRecordDir = resolve(WORK_DIR, 'iam');
  // LOCAL_CLOCK=virtual runs the suite on the runtime's virtual clock (lib/local-runtime/clock).
  const clock = testClock();
  globalThis.acceptanceRuntime = await startLocalRuntime({
    assemblyDir,
    port: 0,
    // As npm start: the orders API first, so the target's apiUrl and apiKey are its.
    apiPortOrder: APP_API_PORT_ORDER,
    // The operator user holds each wing's OperatorAccess policy, as operators do on AWS.
    users: appLocalUsers(DEFAULT_LOCAL_REGION),
    targetFile,
    functionLogDir: resolve(WORK_DIR, 'logs'),
    log: () => undefined,
    iamRecordDir,
    clock,
  });
  if (clock instanceof VirtualClock && process.env.LOCAL_CLOCK_TRACE) {
    // What holds the clock, every 2 s of wall time: a run that stalls names what it waits for.
    setInterval(() => {
      const held = JSON.stringify(clock.holding());
      const line = `${new Date().toISOString()} clock ${clock.date().toISOString()} held ${held} next in ${clock.nextDueIn()} ms`;
      appendFileSync(process.env.LOCAL_CLOCK_TRACE as string, `${line}\n`);
    }, 2000).unref();
  }
  process.env[IAM_DENIALS_ENV] = resolve(iamRecordDir, IAM_RECORD_FILES.denials);
  process.env[TARGET_ENV] = targetFile;
  process.env.ACCEPTANCE_KIND = 'local';
  process.env.ACCEPTANCE_PROFILE = 'local';
}
