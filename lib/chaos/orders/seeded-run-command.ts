/**
 * `npm run seeded-run` (bin/seeded-run.ts): one seeded run of the app (seeded-run.ts), its trace
 * written to a file; passed when every order and delivery ended in a terminal state. The summary
 * names the command that runs it again: the same trace, byte for byte, on the same commit.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { TERMINAL_DELIVERY_STATUSES } from '../../../lambdas/choreography/contracts';
import { TERMINAL_STATES } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { campaignAssembly } from './campaign-setup';
import { runSeededApp } from './seeded-run';

const TERMINAL: readonly string[] = [...TERMINAL_STATES, ...TERMINAL_DELIVERY_STATUSES];

export interface SeededRunCommandOptions {
  readonly seed: number;
  readonly orders: number;
  readonly deliveries: number;
  readonly clockMinutes: number;
  /** Where the trace is written. */
  readonly traceFile: string;
  /** @default - synthesized with the deployed timings under .local/seeded-run */
  readonly assemblyDir?: string;
}

export async function seededRunCommand(
  options: SeededRunCommandOptions,
): Promise<{ readonly summary: string; readonly result: { readonly passed: boolean } }> {
  const assemblyDir =
    options.assemblyDir ??
    campaignAssembly({ workDir: '.local/seeded-run', timings: 'default', enabledKinds: [] }, (line) =>
      console.log(line),
    );
  const { seed, orders, deliveries, clockMinutes, traceFile } = options;
  const run = await runSeededApp({ assemblyDir, seed, orders, deliveries, clockMinutes });
  mkdirSync(dirname(traceFile), { recursive: true });
  writeFileSync(traceFile, `${run.trace.join('\n')}\n`);
  const ends = [
    ...run.outcomes.map((order) => [order.orderId, order.processState] as const),
    ...run.deliveries.map((delivery) => [delivery.deliveryId, delivery.status] as const),
  ];
  const passed = ends.every(([, state]) => TERMINAL.includes(state ?? ''));
  const again =
    `npm run seeded-run -- --seed ${seed} --orders ${orders} --deliveries ${deliveries} ` +
    `--minutes ${clockMinutes} --trace ${traceFile}`;
  const summary = [
    `[seeded-run] seed ${seed}: ${ends.map(([id, state]) => `${id} ${state ?? 'no record'}`).join(', ')}`,
    `[seeded-run] ${run.trace.length} trace lines in ${traceFile}; ${passed ? 'every one terminal' : 'NOT every one terminal'}`,
    `[seeded-run] the same run again (the same trace on this commit): ${again}`,
  ].join('\n');
  return { summary, result: { passed } };
}
