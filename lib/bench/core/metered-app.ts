/**
 * The apps as the benchmarks run them: the local-profile cloud assembly (`cdk synth -c
 * profile=local`, through the synth cache) on the local runtime with metering on, its log kept in
 * the figure's work directory; and the waits the figures share.
 */

import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { sleep } from '../../../lambdas/shared/clock';
import {
  type LocalRuntime,
  type RuntimeUsage,
  startLocalRuntime,
  synthesizeLocalAssembly,
} from '../../local-runtime';
import type { BenchContext } from './figure';

export interface MeteredApp {
  readonly runtime: LocalRuntime;
  readonly assemblyDir: string;
  /** When the runtime was ready (epoch millis). */
  readonly readyAt: number;
}

/** `synthContext`: CDK context besides `profile=local` (`-c key=value`), e.g. a larger drone fleet. */
export async function startMeteredApp(
  context: BenchContext,
  synthContext: Readonly<Record<string, string>> = {},
): Promise<MeteredApp> {
  const assemblyDir = join(context.workDir, 'cdk.out');
  const synthesis = synthesizeLocalAssembly(assemblyDir, { context: synthContext });
  context.progress(
    `local assembly ${synthesis.cached ? 'from the synth cache' : 'synthesized'}; starting the runtime`,
  );
  const runtimeLog = join(context.workDir, 'runtime.log');
  const runtime = await startLocalRuntime({
    assemblyDir,
    port: 0,
    targetFile: null,
    metering: true,
    log: (line) => appendFileSync(runtimeLog, `${new Date().toISOString()} ${line}\n`),
  });
  context.progress(`runtime ready in ${runtime.startupMillis} ms (log: ${runtimeLog})`);
  return { runtime, assemblyDir, readyAt: Date.now() };
}

/**
 * Waits until `activity` (a count that grows while work goes on, read from the meter) has not
 * changed for `quietMillis`, at most `maxMillis`: the work an order sets off after its terminal state
 * (status messages, admission release) is then done.
 */
export async function waitUntilQuiet(
  runtime: LocalRuntime,
  activity: (usage: RuntimeUsage) => number,
  options: { readonly quietMillis: number; readonly maxMillis: number },
): Promise<void> {
  const giveUpAt = Date.now() + options.maxMillis;
  let last = activity(runtime.usage());
  let changedAt = Date.now();
  while (Date.now() - changedAt < options.quietMillis && Date.now() < giveUpAt) {
    await sleep(200);
    const now = activity(runtime.usage());
    if (now !== last) {
      last = now;
      changedAt = Date.now();
    }
  }
}
