/**
 * A seeded run of the orders app (issue 22, item 4): the whole app on a seeded virtual clock
 * (lib/local-runtime/clock/README.md), plain orders submitted one by one by a client that holds
 * the clock while it sends (so each submission starts when the schedule says, not when the machine
 * gets to it), then minutes of the clock for them to run; what it returns is the clock's trace
 * (every admission and timer fired, with its time) and each order's end state. Two runs of a seed
 * on one commit give the same trace. The campaign's faults do not replay yet: its driver submits,
 * samples and acts on the machine's time.
 */
import { writeFileSync } from 'node:fs';
import { TERMINAL_STATES } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { SystemDriver } from '../../harness/orders-driver';
import { admitted, startLocalRuntime, VirtualClock } from '../../local-runtime';
import { campaignAssembly } from './campaign-setup';
import { DEFAULT_FAULT_RATES, planCampaign } from './plan';

const TERMINAL: readonly string[] = TERMINAL_STATES;

export interface SeededRunOptions {
  /** A synthesized assembly of the app (the local profile). */
  readonly assemblyDir: string;
  readonly seed: number;
  /** Orders submitted. @default 3 */
  readonly orders?: number;
  /** Minutes of the clock the run goes on for after the last submission. @default 20 */
  readonly clockMinutes?: number;
}

export interface SeededRunResult {
  /** One line per admission and per timer fired, from the runtime's start to the run's end. */
  readonly trace: readonly string[];
  /** Each order's process state at the end, in submission order (undefined: no record). */
  readonly outcomes: ReadonlyArray<{ readonly orderId: string; readonly processState: string | undefined }>;
}

export async function runSeededOrders(options: SeededRunOptions): Promise<SeededRunResult> {
  const trace: string[] = [];
  let tracing = true;
  const clock = new VirtualClock({ seed: options.seed, trace: (line) => tracing && trace.push(line) });
  const runtime = await startLocalRuntime({
    assemblyDir: options.assemblyDir,
    port: 0,
    targetFile: null,
    clock,
    log: () => undefined,
  });
  try {
    const driver = new SystemDriver(runtime.target);
    const plan = planCampaign({
      orders: options.orders ?? 3,
      seed: options.seed,
      rates: DEFAULT_FAULT_RATES,
      minOrdersPerKind: 0,
      enabledKinds: [],
    });
    for (const order of plan.orders) {
      const client = driver.clients[order.index % driver.clients.length];
      // The client's request names its activity: it waits its turn like any other.
      const submitting = await admitted(clock, `client submit ${order.orderId}`);
      try {
        const outcome = await driver.submit(order.request, client?.clientId, submitting);
        if (outcome.kind !== 'accepted') {
          throw new Error(`order ${order.orderId} was not accepted: ${JSON.stringify(outcome)}`);
        }
      } finally {
        submitting.release();
      }
    }
    await clock.sleep((options.clockMinutes ?? 20) * 60_000);
    tracing = false;
    const records = await driver.records(plan.orders.map((order) => order.orderId));
    const states = new Map(records.map((record) => [record.orderId, record.processState]));
    return {
      trace,
      outcomes: plan.orders.map(({ orderId }) => ({ orderId, processState: states.get(orderId) })),
    };
  } finally {
    await runtime.stop();
    clock.stop();
  }
}

export interface SeededRunCommandOptions {
  readonly seed: number;
  readonly orders: number;
  readonly clockMinutes: number;
  /** Where the trace is written. */
  readonly traceFile: string;
  /** @default - synthesized with the deployed timings under .local/seeded-run */
  readonly assemblyDir?: string;
}

/**
 * `npm run seeded-run`: one seeded run, its trace written to a file; passed when every order ended
 * in a terminal state. The summary names the command that runs it again (the same trace, byte for
 * byte, on the same commit).
 */
export async function seededRunCommand(
  options: SeededRunCommandOptions,
): Promise<{ readonly summary: string; readonly result: { readonly passed: boolean } }> {
  const assemblyDir =
    options.assemblyDir ??
    campaignAssembly({ workDir: '.local/seeded-run', timings: 'default', enabledKinds: [] }, (line) =>
      console.log(line),
    );
  const { trace, outcomes } = await runSeededOrders({
    assemblyDir,
    seed: options.seed,
    orders: options.orders,
    clockMinutes: options.clockMinutes,
  });
  writeFileSync(options.traceFile, `${trace.join('\n')}\n`);
  const passed = outcomes.every(({ processState }) => TERMINAL.includes(processState ?? ''));
  const again =
    `npm run seeded-run -- --seed ${options.seed} --orders ${options.orders} ` +
    `--minutes ${options.clockMinutes} --trace ${options.traceFile}`;
  const summary = [
    `[seeded-run] seed ${options.seed}: ${outcomes.map((o) => `${o.orderId} ${o.processState ?? 'no record'}`).join(', ')}`,
    `[seeded-run] ${trace.length} trace lines in ${options.traceFile}; ${passed ? 'every order terminal' : 'NOT every order terminal'}`,
    `[seeded-run] the same run again (the same trace on this commit): ${again}`,
  ].join('\n');
  return { summary, result: { passed } };
}
