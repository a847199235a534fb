/**
 * Figure 3, local-throughput (issue 11): orders and deliveries per second end to end through the
 * local runtime (submitted through the API, seen terminal in the table) at a few concurrency levels,
 * next to the emulator's floor measured in the same run: DynamoDB Local's operations per second on
 * its own endpoint, divided by the DynamoDB operations one order (one delivery) made in the run, as
 * the runtime's meter counted them. The floor is the most the app could do if DynamoDB Local were
 * the only thing working; the target is half of it.
 */
import { cpus, loadavg } from 'node:os';
import type { SubmitDeliveryRequest } from '../../../lambdas/choreography/contracts';
import type { SubmitOrderRequest } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import type { DroneDeliveryContextKey } from '../../choreography/deployment';
import { ratio } from '../../harness/stats';
import { type LocalRuntime, type RuntimeUsage, usageSince } from '../../local-runtime';
import type { STACK_NAME } from '../../scheduler-agent-supervisor/stack';
import { measureDynamoDbFloor } from '../core/dynamodb-floor';
import {
  type BenchContext,
  type ChartSpec,
  checkTarget,
  type Figure,
  type Measurement,
  type TargetCheck,
} from '../core/figure';
import { startMeteredApp, waitUntilQuiet } from '../core/metered-app';
import { CPU_PARTS, type CpuPart, type CpuSample, cpuSince, sampleCpu, totalCpu } from '../core/process-cpu';
import {
  DELIVERY_STACK,
  deliveriesApp,
  deliveryOf,
  orderOf,
  ordersApp,
  TerminalTracker,
  type TrackedApp,
} from '../core/terminal-tracker';

/** The order stack (checked against the stack's own constant; a type-only import keeps aws-cdk-lib out). */
const ORDER_STACK: typeof STACK_NAME = 'SchedulerAgentSupervisor';
/** The issue's target: end-to-end throughput at least half the emulator floor. */
export const MIN_SHARE_OF_FLOOR = 0.5;
const BOOK_SKU = 'BOOK';
/** The context key of the drone fleet's size (checked against the wing's; a type-only import keeps aws-cdk-lib out). */
const DRONE_FLEET_SIZE: (typeof DroneDeliveryContextKey)['DroneFleetSize'] = 'droneFleetSize';
const POLL_MILLIS = 150;
/** Far above a healthy order's or delivery's time locally, even on a loaded machine. */
const TIMEOUT_MILLIS = 120_000;

interface Sizes {
  /**
   * Requests in flight at once, one run each, per app. Orders are CPU-bound by 4 in flight (the
   * 8-in-flight run is no faster: CPU-seconds per order in the notes), deliveries wait out the fake
   * drones' pickup and flight, so they go to 16 to find their best level.
   */
  readonly levels: { readonly orders: readonly number[]; readonly deliveries: readonly number[] };
  /** Requests of one run at `concurrency` in flight. */
  requestsAt(concurrency: number): number;
  /** Requests of each app sent before measuring, so sandboxes are warm (0: none). */
  readonly warmUp: number;
  readonly floorMillis: number;
  readonly floorConcurrency: number;
  /**
   * Give the fake fleet a drone per delivery of the run (false: the local profile's 3). Each flies
   * one delivery per 30 s window locally, so the profile's fleet, not the system, would cap
   * deliveries at 0.1/s and the rest would fail for want of a drone.
   */
  readonly droneEach: boolean;
}
const FULL: Sizes = {
  levels: { orders: [1, 2, 4, 8], deliveries: [1, 2, 4, 8, 16] },
  requestsAt: (concurrency) => Math.max(6, 3 * concurrency),
  warmUp: 4,
  floorMillis: 8_000,
  floorConcurrency: 16,
  droneEach: true,
};
/** Deliveries of a run: the warm-up and every level's. */
export function deliveriesOfRun(sizes: Pick<Sizes, 'levels' | 'requestsAt' | 'warmUp'>): number {
  return sizes.levels.deliveries.reduce((sum, level) => sum + sizes.requestsAt(level), sizes.warmUp);
}
const QUICK: Sizes = {
  levels: { orders: [2], deliveries: [2] },
  requestsAt: () => 2,
  warmUp: 0,
  floorMillis: 1_500,
  floorConcurrency: 8,
  droneEach: false,
};

/** One run of one app at one concurrency. */
export interface LevelRun {
  readonly concurrency: number;
  readonly requests: number;
  /** From the first submission to the poll that saw the last one terminal. */
  readonly millis: number;
  readonly outcomes: Readonly<Record<string, number>>;
  /** Mean time of one request from its submission to the poll that saw it terminal. */
  readonly meanLatencyMillis: number;
  /** DynamoDB requests the runtime's meter counted on the app's stack's tables during the run. */
  readonly dynamoDbRequests: number;
  /**
   * CPU-seconds by process from the first submission to the poll that saw the last request
   * terminal (the throughput's own window), idle pollers and the tracker included. @default - not
   * measured (no /proc)
   */
  readonly cpuSeconds?: CpuSample;
}

export const perSecond = (run: Pick<LevelRun, 'requests' | 'millis'>) =>
  ratio(run.requests * 1_000, run.millis);

/** DynamoDB requests per app request over every run (one number: the op count does not depend on the level). */
export function dynamoDbRequestsPerRequest(runs: readonly LevelRun[]): number {
  const requests = runs.reduce((sum, run) => sum + run.requests, 0);
  return ratio(
    runs.reduce((sum, run) => sum + run.dynamoDbRequests, 0),
    requests,
  );
}

/** Requests of the stack's tables in a usage (stand-ins and scheduled functions included: they load the emulator too). */
export function stackTableRequests(usage: RuntimeUsage, stackName: string): number {
  return Object.values(usage.tables)
    .filter((table) => table.stackName === stackName)
    .reduce((sum, table) => sum + table.requests, 0);
}

interface AppUnderTest<R> {
  /** `orders`/`order`, `deliveries`/`delivery`: keys and labels. */
  readonly noun: { readonly plural: string; readonly singular: string };
  readonly stackName: string;
  readonly tracked: TrackedApp<R>;
  make(id: string): R;
}

async function runLevels<R>(
  context: BenchContext,
  runtime: LocalRuntime,
  app: AppUnderTest<R>,
  sizes: Sizes,
  levels: readonly number[],
): Promise<LevelRun[]> {
  const tracker = new TerminalTracker(app.tracked, {
    timeoutMillis: TIMEOUT_MILLIS,
    pollMillis: POLL_MILLIS,
  });
  // Counting every request the stack's tables get: the work an app request sets off after its
  // terminal state (status messages, outbox relays) belongs to it, so each run waits for quiet.
  const settle = () =>
    waitUntilQuiet(runtime, (usage) => stackTableRequests(usage, app.stackName), {
      quietMillis: 1_500,
      maxMillis: 20_000,
    });
  const batch = (label: string, count: number) =>
    Array.from({ length: count }, (_, index) => app.make(`tp-${label}-${index + 1}-${Date.now()}`));
  try {
    if (sizes.warmUp > 0) {
      context.progress(`${app.noun.plural}: warm-up, ${sizes.warmUp} at 2 in flight`);
      await tracker.completeAll(batch('warm', sizes.warmUp), 2);
      await settle();
    }
    const runs: LevelRun[] = [];
    for (const concurrency of levels) {
      const requests = sizes.requestsAt(concurrency);
      const before = runtime.usage();
      const cpuBefore = sampleCpu();
      const started = Date.now();
      const outcomes = await tracker.completeAll(batch(`c${concurrency}`, requests), concurrency);
      const millis = Date.now() - started;
      const cpuAfter = sampleCpu();
      await settle();
      const counted: Record<string, number> = {};
      for (const { state } of outcomes) counted[state] = (counted[state] ?? 0) + 1;
      const run: LevelRun = {
        concurrency,
        requests,
        millis,
        outcomes: counted,
        meanLatencyMillis: outcomes.reduce((sum, outcome) => sum + outcome.millis, 0) / outcomes.length,
        dynamoDbRequests: stackTableRequests(usageSince(before, runtime.usage()), app.stackName),
        ...(cpuBefore && cpuAfter ? { cpuSeconds: cpuSince(cpuBefore, cpuAfter) } : {}),
      };
      runs.push(run);
      context.progress(
        `${app.noun.plural}: ${requests} at ${concurrency} in flight in ${(millis / 1_000).toFixed(1)} s = ${perSecond(run).toFixed(2)}/s`,
      );
    }
    return runs;
  } finally {
    tracker.close();
  }
}

/** What one app's runs come to next to the floor. */
export function describeApp(
  noun: { readonly plural: string; readonly singular: string },
  runs: readonly LevelRun[],
  floorOperationsPerSecond: number,
): { measurements: Measurement[]; target: TargetCheck; floorPerSecond: number; opsPerRequest: number } {
  const opsPerRequest = dynamoDbRequestsPerRequest(runs);
  const floorPerSecond = ratio(floorOperationsPerSecond, opsPerRequest);
  const best = Math.max(...runs.map(perSecond));
  const round = (value: number) => Math.round(value * 100) / 100;
  const { plural, singular } = noun;
  return {
    opsPerRequest,
    floorPerSecond,
    measurements: [
      ...runs.map((run) => ({
        key: `${plural}.c${run.concurrency}.perSecond`,
        label: `${plural} per second, ${run.concurrency} in flight (${run.requests} measured)`,
        value: round(perSecond(run)),
        unit: `${plural}/s`,
      })),
      ...runs.map((run) => ({
        key: `${plural}.c${run.concurrency}.meanLatency`,
        label: `${singular} time, submission to terminal, ${run.concurrency} in flight (mean)`,
        value: round(run.meanLatencyMillis / 1_000),
        unit: 's',
      })),
      {
        key: `${plural}.dynamoDbOpsPer`,
        label: `DynamoDB operations per ${singular} (metered)`,
        value: round(opsPerRequest),
        unit: 'count',
      },
      {
        key: `${plural}.floor.perSecond`,
        label: `${plural} floor: DynamoDB Local ops/s / ops per ${singular}`,
        value: round(floorPerSecond),
        unit: `${plural}/s`,
      },
      {
        key: `${plural}.bestShareOfFloor`,
        label: `${plural}: best level over the floor`,
        value: round(ratio(best, floorPerSecond)),
        unit: 'ratio',
      },
    ],
    target: checkTarget(
      `${plural} per second (best level) / floor >= ${MIN_SHARE_OF_FLOOR}`,
      round(ratio(best, floorPerSecond)),
      'atLeast',
      MIN_SHARE_OF_FLOOR,
    ),
  };
}

/**
 * CPU-seconds per request by process at the highest level measured (the most loaded), and what
 * they allow: `cores` divided by the CPU-seconds of one request is the most this machine could do
 * if nothing else ran on it (the runtime is CPU-bound when a level gets close to it), and that
 * ceiling over the floor is the most of the floor a CPU-bound runtime can reach here.
 */
export function describeCpu(
  noun: { readonly plural: string; readonly singular: string },
  runs: readonly LevelRun[],
  cores: number,
  floorPerSecond: number,
): { measurements: Measurement[]; perRequest?: CpuSample; concurrency?: number } {
  const measured = runs.filter((run) => run.cpuSeconds !== undefined);
  const top = measured.at(-1);
  if (!top?.cpuSeconds) return { measurements: [] };
  const { plural, singular } = noun;
  const perRequest = Object.fromEntries(
    (Object.keys(CPU_PARTS) as CpuPart[]).map((part) => [
      part,
      ratio(top.cpuSeconds?.[part] ?? 0, top.requests),
    ]),
  ) as Record<CpuPart, number>;
  const total = totalCpu(perRequest);
  const ceiling = ratio(cores, total);
  const round = (value: number) => Math.round(value * 1_000) / 1_000;
  return {
    perRequest,
    concurrency: top.concurrency,
    measurements: [
      ...(Object.keys(CPU_PARTS) as CpuPart[]).map((part) => ({
        key: `${plural}.cpuSecondsPer.${part}`,
        label: `CPU-seconds per ${singular}, ${top.concurrency} in flight: ${CPU_PARTS[part]}`,
        value: round(perRequest[part]),
        unit: 's',
      })),
      {
        key: `${plural}.cpuSecondsPer.total`,
        label: `CPU-seconds per ${singular}, ${top.concurrency} in flight, every process`,
        value: round(total),
        unit: 's',
      },
      {
        key: `${plural}.cpuCeiling.perSecond`,
        label: `${plural} per second this machine's ${cores} cores could give if nothing else ran (cores / CPU-seconds per ${singular})`,
        value: Math.round(ceiling * 100) / 100,
        unit: `${plural}/s`,
      },
      {
        key: `${plural}.cpuCeiling.shareOfFloor`,
        label: `${plural}: CPU ceiling over the floor (the most of the floor a CPU-bound runtime reaches here)`,
        value: Math.round(ratio(ceiling, floorPerSecond) * 100) / 100,
        unit: 'ratio',
      },
    ],
  };
}

const outcomesOf = (runs: readonly LevelRun[]) => {
  const all: Record<string, number> = {};
  for (const run of runs) {
    for (const [state, count] of Object.entries(run.outcomes)) all[state] = (all[state] ?? 0) + count;
  }
  return Object.entries(all)
    .map(([state, count]) => `${count} ${state}`)
    .join(', ');
};

const run: Figure['run'] = async (context) => {
  const sizes = context.quick ? QUICK : FULL;
  const { runtime } = await startMeteredApp(
    context,
    sizes.droneEach ? { [DRONE_FLEET_SIZE]: String(deliveriesOfRun(sizes)) } : {},
  );
  try {
    const orders: AppUnderTest<SubmitOrderRequest> = {
      noun: { plural: 'orders', singular: 'order' },
      stackName: ORDER_STACK,
      tracked: ordersApp(runtime.target),
      make: (id) => orderOf(id, BOOK_SKU),
    };
    const deliveries: AppUnderTest<SubmitDeliveryRequest> = {
      noun: { plural: 'deliveries', singular: 'delivery' },
      stackName: DELIVERY_STACK,
      tracked: deliveriesApp(runtime.target),
      make: deliveryOf,
    };
    const orderRuns = await runLevels(context, runtime, orders, sizes, sizes.levels.orders);
    const deliveryRuns = await runLevels(context, runtime, deliveries, sizes, sizes.levels.deliveries);
    const levelsNote = (levels: readonly number[]) =>
      levels.map((level) => `${sizes.requestsAt(level)} at ${level}`).join(', ');
    // The floor last, on the runtime still running (its sweeps and pollers included, as during the runs).
    context.progress(`DynamoDB Local floor: ${sizes.floorMillis} ms at ${sizes.floorConcurrency} in flight`);
    const floor = await measureDynamoDbFloor(runtime.target, {
      millis: sizes.floorMillis,
      concurrency: sizes.floorConcurrency,
      tableName: `bench-floor-${Date.now()}`,
    });
    const loadAverage = loadavg()[0] ?? 0;
    const ordersFigure = describeApp(orders.noun, orderRuns, floor.operationsPerSecond);
    const deliveriesFigure = describeApp(deliveries.noun, deliveryRuns, floor.operationsPerSecond);
    const cores = cpus().length;
    const ordersCpu = describeCpu(orders.noun, orderRuns, cores, ordersFigure.floorPerSecond);
    const deliveriesCpu = describeCpu(deliveries.noun, deliveryRuns, cores, deliveriesFigure.floorPerSecond);
    const cpuNote = (noun: { readonly singular: string }, cpu: ReturnType<typeof describeCpu>): string =>
      cpu.perRequest
        ? `per ${noun.singular} at ${cpu.concurrency} in flight ${(Object.keys(CPU_PARTS) as CpuPart[])
            .map((part) => `${(cpu.perRequest?.[part] ?? 0).toFixed(3)} s ${part}`)
            .join(', ')} (${totalCpu(cpu.perRequest).toFixed(2)} s in all)`
        : `per ${noun.singular}: not measured (no /proc on this machine)`;
    const chart: ChartSpec = {
      kind: 'line',
      title: 'End-to-end throughput through the local runtime, next to the DynamoDB Local floor',
      xLabel: 'requests in flight',
      yLabel: 'per second',
      logScale: true,
      points: [
        ...orderRuns.map((entry) => ({ series: 'orders', x: entry.concurrency, y: perSecond(entry) })),
        ...deliveryRuns.map((entry) => ({ series: 'deliveries', x: entry.concurrency, y: perSecond(entry) })),
        ...[sizes.levels.orders[0] ?? 1, sizes.levels.orders.at(-1) ?? 1].map((x) => ({
          series: 'orders floor',
          x,
          y: ordersFigure.floorPerSecond,
        })),
        ...[sizes.levels.deliveries[0] ?? 1, sizes.levels.deliveries.at(-1) ?? 1].map((x) => ({
          series: 'deliveries floor',
          x,
          y: deliveriesFigure.floorPerSecond,
        })),
      ],
    };
    return {
      id: 'local-throughput',
      title: 'Local throughput',
      measurements: [
        {
          key: 'dynamodb.opsPerSecond',
          label: `DynamoDB Local operations per second (${sizes.floorConcurrency} in flight)`,
          value: Math.round(floor.operationsPerSecond),
          unit: 'ops/s',
        },
        ...ordersFigure.measurements,
        ...ordersCpu.measurements,
        ...deliveriesFigure.measurements,
        ...deliveriesCpu.measurements,
        {
          key: 'machine.loadAverage1m',
          label: 'Load average (1 min) at the end of the runs',
          value: Math.round(loadAverage * 100) / 100,
          unit: 'load',
        },
      ],
      targets: [ordersFigure.target, deliveriesFigure.target],
      notes: [
        `Throughput: a closed loop of ${levelsNote(sizes.levels.orders)} orders in flight and ${levelsNote(sizes.levels.deliveries)} deliveries (orders of one ${BOOK_SKU}; deliveries that go well: one small package, 2 km, with a fleet of ${sizes.droneEach ? deliveriesOfRun(sizes) : "the local profile's 3"} drones), submitted through the API (429s resubmitted), seen terminal by one consistent batch read every ${POLL_MILLIS} ms on DynamoDB Local's own endpoint; from the first submission to the poll that saw the last terminal. ${sizes.warmUp > 0 ? `${sizes.warmUp} of each first, unmeasured, to warm the sandboxes.` : 'No warm-up (quick run): cold sandboxes.'} Outcomes: orders ${outcomesOf(orderRuns)}; deliveries ${outcomesOf(deliveryRuns)}.`,
        `Floor: DynamoDB Local (the runtime's own, in the same run, after the app runs) loaded for ${sizes.floorMillis / 1_000} s by ${sizes.floorConcurrency} loops of put, strongly consistent get and conditional update of ~400-byte items: ${Math.round(floor.operationsPerSecond)} ops/s. Divided by the DynamoDB requests the meter counted on each stack's tables per request (${ordersFigure.opsPerRequest.toFixed(1)} per order, ${deliveriesFigure.opsPerRequest.toFixed(1)} per delivery, with the stand-in services' ledgers and the scheduled functions' reads in the window, and the wait for each run's after-effects). Not counted: the tracker's polls, the runtime's own Streams reads (GetRecords) and queue polling, which also load the machine.`,
        `Where the time goes: everything runs on this machine's ${cpus().length} cores at once: DynamoDB Local's JVM, the runtime (API Gateway, SQS, Step Functions interpreter, EventBridge, SNS), and one worker thread per function sandbox; the floor loads DynamoDB Local alone. Load average at the end: ${loadAverage.toFixed(2)}. An order is 4 agent calls through SQS and task tokens with the status notifier behind it; a delivery 5 services over topics, FIFO queues and the bus, and the fake drone fleet waits out the local profile's pickup and flight time (lib/choreography/config.ts) in each delivery. In a closed loop a level can do at most its in-flight count divided by one request's time, whatever the floor.`,
        `CPU (Linux /proc, utime + stime, from the first submission to the last terminal, idle pollers and the tracker included): ${cpuNote(orders.noun, ordersCpu)}; ${cpuNote(deliveries.noun, deliveriesCpu)}. The floor gives DynamoDB Local every core; in the runs it shares them with the rest, so when the CPU ceiling (cores / CPU-seconds per request) sits near the measured throughput the runtime is CPU-bound and more in flight only adds latency (and, past the local profile's step timeout in lib/scheduler-agent-supervisor/config.ts, retries). runtimeOtherThreads counts the function sandboxes (worker threads) with V8's and libuv's threads, which /proc does not tell apart.`,
        "Not covered: AWS itself (Lambda concurrency, SQS pollers and DynamoDB have nothing of this machine's limits); faults (figure 4); Choreography deliveries that fail or need remediation.",
      ],
      charts: [chart],
    };
  } finally {
    await runtime.stop();
  }
};

export const localThroughputFigure: Figure = {
  id: 'local-throughput',
  title: 'Local throughput',
  run,
};
