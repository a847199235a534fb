/**
 * What one request of an app (an order, a delivery) costs, measured as the cost figures measure it:
 * a batch of requests submitted through the API, each followed to its terminal state, the meter's
 * difference over the batch (its after-effects included) kept to the stack's work (usage-scope.ts),
 * then counted and priced per request and per 1,000. Shared by order-cost and delivery-cost, so both
 * count the same way.
 */
import { gbSeconds, type LocalTarget, type RuntimeUsage, usageSince } from '../../local-runtime';
import type { PriceTable } from '../prices/us-east-1';
import type { BenchContext, Measurement } from './figure';
import { type MeteredApp, startMeteredApp, waitUntilQuiet } from './metered-app';
import { BILLED_SERVICES, type BilledService, costByService, priceUsage, totalUsd } from './pricing';
import { TerminalTracker, type TrackedApp } from './terminal-tracker';
import { type AppScope, appScopeOf, workShare } from './usage-scope';

/** The cost figures price per this many requests. */
export const REQUESTS_PER_PRICE = 1_000;

/**
 * How the cost figures run a batch: requests in flight at once (few enough that an order's agents
 * answer within the local profile's 6 s step deadline on a loaded 2-core machine: 20 at once
 * abandoned a quarter of the attempts), how often those in flight are read (one batch read each
 * time), and how long one may take (far above a recovery's time locally: step deadline, a sweep, a
 * second attempt, about 20 s).
 */
export const COST_BATCH = { concurrency: 4, pollMillis: 150, timeoutMillis: 120_000 } as const;

/**
 * Starts the metered app (`synthContext`: CDK context besides the local profile), reads the stack's
 * scope and refuses one with a function that is not arm64 (priced as arm64), and makes the tracker
 * of the app's requests. The caller stops the runtime and closes the tracker.
 */
export async function startCostRun<R>(
  context: BenchContext,
  stackName: string,
  trackedApp: (target: LocalTarget) => TrackedApp<R>,
  synthContext: Readonly<Record<string, string>> = {},
): Promise<{ app: MeteredApp; scope: AppScope; tracker: TerminalTracker<R> }> {
  const app = await startMeteredApp(context, synthContext);
  const scope = appScopeOf(app.assemblyDir, stackName);
  if (scope.notArm64.length > 0) {
    await app.runtime.stop();
    throw new Error(`priced as arm64, but these functions are not: ${scope.notArm64.join(', ')}`);
  }
  const tracker = new TerminalTracker(trackedApp(app.runtime.target), {
    timeoutMillis: COST_BATCH.timeoutMillis,
    pollMillis: COST_BATCH.pollMillis,
  });
  return { app, scope, tracker };
}

/** One batch of requests: their usage (the scope's work) and how they ended. */
export interface BatchResult {
  /** Requests in the batch. */
  readonly units: number;
  readonly outcomes: Readonly<Record<string, number>>;
  readonly work: RuntimeUsage;
  /** Logical ids of the functions that ran, by physical name (the meter's callers), if known. */
  readonly functionIds?: Readonly<Record<string, string>>;
}

export const round = (value: number, digits = 3) => Number(value.toFixed(digits));
export const usd = (value: number) => `$${value.toFixed(value >= 1 ? 2 : 4)}`;

const sumOf = <T>(record: Readonly<Record<string, T>>, of: (value: T) => number) =>
  Object.values(record).reduce((total, value) => total + of(value), 0);

/** The measured counts of one request of a batch, per billed unit. */
export function perUnitCounts(batch: BatchResult): Record<string, number> {
  const { work, units } = batch;
  const sum = <T>(record: Readonly<Record<string, T>>, of: (value: T) => number) => sumOf(record, of) / units;
  return {
    transitions: sum(work.stateMachines, (machine) => machine.transitions),
    lambdaInvocations: sum(work.functions, (fn) => fn.invocations),
    lambdaGbSeconds: sum(work.functions, gbSeconds),
    sqsRequests: sum(work.queues, (queue) => queue.billedRequests),
    dynamoDbReadUnits: sum(work.tables, (table) => table.readUnits),
    dynamoDbWriteUnits: sum(work.tables, (table) => table.writeUnits),
    apiGatewayRequests: sum(work.apis, (api) => api.requests),
    eventBridgeEvents: sum(work.buses, (bus) => bus.billedEvents),
    snsPublishes: sum(work.topics, (topic) => topic.billedRequests),
  };
}

/** USD per 1,000 requests of a batch, in all and by service. */
export function per1000(
  batch: BatchResult,
  prices: PriceTable,
): { readonly total: number; readonly byService: Record<BilledService, number> } {
  const items = priceUsage(batch.work, prices);
  const scale = REQUESTS_PER_PRICE / batch.units;
  const byService = costByService(items);
  for (const service of BILLED_SERVICES) byService[service] *= scale;
  return { total: totalUsd(items) * scale, byService };
}

/** A batch's measurements: its size, its counts per request, its cost per 1,000 in all and by service. */
export function batchMeasurements(
  key: string,
  label: string,
  noun: { readonly singular: string; readonly plural: string },
  batch: BatchResult,
  prices: PriceTable,
): Measurement[] {
  const units: Record<string, string> = {
    lambdaGbSeconds: 'GB-s',
    dynamoDbReadUnits: 'RRU',
    dynamoDbWriteUnits: 'WRU',
  };
  const { singular, plural } = noun;
  const cost = per1000(batch, prices);
  const per = singular.charAt(0).toUpperCase() + singular.slice(1);
  return [
    { key: `${key}.${plural}`, label: `${label}: ${plural} measured`, value: batch.units, unit: 'count' },
    ...Object.entries(perUnitCounts(batch)).map(([name, value]) => ({
      key: `${key}.per${per}.${name}`,
      label: `${label}: ${name} per ${singular}`,
      value: round(value, 4),
      unit: units[name] ?? 'count',
    })),
    {
      key: `${key}.usdPer1000`,
      label: `${label}: cost per 1,000 ${plural}`,
      value: round(cost.total, 4),
      unit: 'USD',
    },
    ...BILLED_SERVICES.map((service) => ({
      key: `${key}.usdPer1000.${service}`,
      label: `${label}: ${service} per 1,000 ${plural}`,
      value: round(cost.byService[service], 5),
      unit: 'USD',
    })),
  ];
}

/** A batch's DynamoDB request units per request, by table: `table read / write, ...`. */
export function describeTables(batch: BatchResult): string {
  return Object.values(batch.work.tables)
    .filter((table) => table.requests > 0)
    .map(
      (table) =>
        `${table.logicalId} ${round(table.readUnits / batch.units, 2)} / ${round(table.writeUnits / batch.units, 2)}`,
    )
    .join(', ');
}

/** Everything the work of a stack counts, as one number that grows while work goes on. */
function workActivity(scope: AppScope): (usage: RuntimeUsage) => number {
  return (usage) => {
    const work = workShare(usage, scope);
    return (
      sumOf(work.stateMachines, (machine) => machine.transitions) +
      sumOf(work.functions, (fn) => fn.invocations) +
      sumOf(work.queues, (queue) => queue.requests) +
      sumOf(work.tables, (table) => table.requests) +
      sumOf(work.apis, (api) => api.requests) +
      sumOf(work.buses, (bus) => bus.events) +
      sumOf(work.topics, (topic) => topic.publishes)
    );
  };
}

/**
 * Completes `requests` with `concurrency` in flight, waits until the stack's work has been quiet
 * for 2 s (what a request sets off after its terminal state is its cost too), and returns the
 * meter's difference kept to the scope's work, with how the requests ended.
 */
export async function runBatch<R>(
  app: MeteredApp,
  tracker: TerminalTracker<R>,
  scope: AppScope,
  requests: readonly R[],
  concurrency: number,
): Promise<BatchResult> {
  const { runtime } = app;
  const before = runtime.usage();
  const outcomes = await tracker.completeAll(requests, concurrency);
  await waitUntilQuiet(runtime, workActivity(scope), { quietMillis: 2_000, maxMillis: 20_000 });
  const counted: Record<string, number> = {};
  for (const { state, attempt } of outcomes) {
    const outcome =
      attempt === undefined || attempt === 1
        ? `${state}${attempt === 1 ? ' at the first attempt' : ''}`
        : `${state} after ${attempt} attempts`;
    counted[outcome] = (counted[outcome] ?? 0) + 1;
  }
  const usage = usageSince(before, runtime.usage());
  const functionIds = Object.fromEntries(
    Object.entries(usage.functions).flatMap(([name, fn]) =>
      fn.logicalId === undefined ? [] : [[name, fn.logicalId]],
    ),
  );
  return { units: requests.length, outcomes: counted, work: workShare(usage, scope), functionIds };
}

/** How a batch's requests ended, in words: `20 Processed at the first attempt, ...`. */
export function describeOutcomes(batch: BatchResult): string {
  return Object.entries(batch.outcomes)
    .map(([state, count]) => `${count} ${state}`)
    .join(', ');
}
