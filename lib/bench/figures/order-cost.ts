/**
 * Figure 2, "order-cost": the billable operations of one Processed order and of one recovered order
 * (STALL-ONCE: the payment service records the charge and never answers the first call, the attempt
 * is abandoned, the supervisor resets the order, the second attempt finishes it), counted by the
 * local runtime's meter, priced with the us-east-1 list prices in lib/bench/prices, per 1,000 orders
 * and by service; the scheduled functions (supervisor, admission reconciler) apart, per month.
 */

import { ScenarioSku } from '../../../lambdas/fakes/contracts';
import {
  DEFAULT_WORKFLOW_VERSION,
  type SubmitOrderRequest,
  workflowShape,
  workflowSteps,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { gbSeconds, type RuntimeUsage, usageSince } from '../../local-runtime';
import type { STACK_NAME } from '../../scheduler-agent-supervisor/stack';
import type { ChartSpec, Figure, FigureResult, Measurement } from '../core/figure';
import { checkTarget } from '../core/figure';
import { type MeteredApp, startMeteredApp, waitUntilQuiet } from '../core/metered-app';
import {
  BILLED_SERVICES,
  type BilledService,
  type CostItem,
  costByService,
  priceUsage,
  totalUsd,
} from '../core/pricing';
import { orderOf, ordersApp, TerminalTracker } from '../core/terminal-tracker';
import { type AppScope, appScopeOf, fixedShare, workShare } from '../core/usage-scope';
import { type PriceTable, RECORDED_ON, US_EAST_1_PRICES } from '../prices/us-east-1';

/** The order stack (checked against the stack's own constant; a type-only import keeps aws-cdk-lib out). */
const ORDER_STACK: typeof STACK_NAME = 'SchedulerAgentSupervisor';
/** AWS prices a month as 730 hours. */
const SECONDS_PER_MONTH = 730 * 3_600;
const ORDERS_PER_PRICE = 1_000;
/** Issue 24's target: USD per 1,000 Processed orders. */
const COST_TARGET_USD = 0.2;
const BOOK_SKU = 'BOOK';
/**
 * Orders in flight at once: few enough that the agents answer within the local profile's 6 s step
 * deadline on a loaded 2-core machine (20 at once abandoned a quarter of the attempts), so a
 * Processed order is one that needed one attempt.
 */
const CONCURRENCY = 4;
/** How often the orders in flight are read (one batch read each time). */
const POLL_MILLIS = 150;
/** Far above a recovery's time locally (step deadline, a sweep, a second attempt: about 20 s). */
const ORDER_TIMEOUT_MILLIS = 120_000;

interface Sizes {
  /** Orders of each kind sent once before measuring, so sandboxes are warm (0: none). */
  readonly warmUp: number;
  readonly processed: number;
  readonly recovered: number;
}
const FULL: Sizes = { warmUp: 8, processed: 20, recovered: 4 };
/** No recovered order: its recovery alone waits out a step deadline and a sweep (about 15 s). */
const QUICK: Sizes = { warmUp: 0, processed: 1, recovered: 0 };

/** One batch of orders: their usage (the scope's work) and how they ended. */
export interface BatchResult {
  readonly orders: number;
  readonly outcomes: Readonly<Record<string, number>>;
  readonly work: RuntimeUsage;
}

/** The measured counts of one order of a batch, per billed unit. */
export function perOrderCounts(batch: BatchResult): Record<string, number> {
  const { work, orders } = batch;
  const sum = <T>(record: Readonly<Record<string, T>>, of: (value: T) => number) =>
    Object.values(record).reduce((total, value) => total + of(value), 0) / orders;
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

/** Transitions of one order, per state name (summed over the stack's state machines). */
export function transitionsByState(batch: BatchResult): Record<string, number> {
  const byState: Record<string, number> = {};
  for (const machine of Object.values(batch.work.stateMachines)) {
    for (const [state, count] of Object.entries(machine.transitionsByState)) {
      byState[state] = (byState[state] ?? 0) + count / batch.orders;
    }
  }
  return byState;
}

/** A change to the state machine and the transitions per order it would save, from measured counts. */
export interface TransitionSaving {
  readonly change: string;
  readonly states: readonly string[];
  readonly transitionsSaved: number;
}

/**
 * What the lean shape (contracts/workflows.ts WorkflowShape, built: versions 3 and 4) saves against
 * a classic version, read from a Processed order's transitions by state: the per-step Check choices
 * (lean: CheckLock routes to the first step not completed), the per-step MarkRunning tasks (lean:
 * the agent marks its step Running in the conditional write that reserves its call), and LoadOrder
 * (lean: the starter puts the order in the execution input). A lean order has none of these states,
 * so it finds nothing to save.
 */
export function transitionSavings(byState: Readonly<Record<string, number>>): TransitionSaving[] {
  const states = (test: (name: string) => boolean) => Object.keys(byState).filter(test).sort();
  const saving = (change: string, names: readonly string[]): TransitionSaving => ({
    change,
    states: names,
    transitionsSaved: names.reduce((sum, name) => sum + (byState[name] ?? 0), 0),
  });
  return [
    saving(
      'lean shape: route from CheckLock straight to the first step not completed (one Choice with a branch per step) instead of a Check per step',
      states((name) => name.endsWith('.Check') && !name.endsWith('.Undo.Check')),
    ),
    saving(
      'lean shape: the agent marks its step Running in the conditional write that already reserves its call (CallsMade, same item, same LockedBy fence) instead of a MarkRunning task per step; the record then says Running only once the agent has the request',
      states((name) => name.endsWith('.MarkRunning')),
    ),
    saving(
      'lean shape: the execution gets the order in its input (the starter reads it when it claims the order) instead of a LoadOrder task',
      states((name) => name === 'LoadOrder'),
    ),
    saving(
      'compact shape: the agent records its step Completed (and, after the last step, the order Processed) in a fenced write before it answers, instead of a MarkCompleted task per step and MarkProcessed',
      states((name) => name.endsWith('.MarkCompleted') || name === 'MarkProcessed'),
    ),
  ].filter((candidate) => candidate.transitionsSaved > 0);
}

/**
 * The scheduled functions' cost per month (730 hours) at their schedule: invocations from the rate,
 * each at the mean billed duration of the runs that ended in the window (none ended: no duration),
 * and their reads at the rate they read in the window.
 */
export function monthlyFixedCost(
  fixed: RuntimeUsage,
  scope: AppScope,
  windowSeconds: number,
  prices: PriceTable,
): { readonly items: CostItem[]; readonly unmeasuredDurations: readonly string[] } {
  const unmeasuredDurations: string[] = [];
  const functions: RuntimeUsage['functions'] = Object.fromEntries(
    Object.entries(fixed.functions).map(([name, fn]) => {
      const rateSeconds = scope.scheduledRateSeconds.get(fn.logicalId ?? '') ?? Number.NaN;
      const invocations = SECONDS_PER_MONTH / rateSeconds;
      if (fn.invocations === 0) unmeasuredDurations.push(fn.logicalId ?? name);
      const meanMillis = fn.invocations === 0 ? 0 : fn.billedMillis / fn.invocations;
      return [name, { ...fn, invocations, billedMillis: meanMillis * invocations }];
    }),
  );
  const perMonth = SECONDS_PER_MONTH / windowSeconds;
  const tables: RuntimeUsage['tables'] = Object.fromEntries(
    Object.entries(fixed.tables).map(([name, table]) => [
      name,
      { ...table, readUnits: table.readUnits * perMonth },
    ]),
  );
  return { items: priceUsage({ ...fixed, functions, tables }, prices), unmeasuredDurations };
}

/** Everything the work of the order stack counts, as one number that grows while work goes on. */
function workActivity(scope: AppScope): (usage: RuntimeUsage) => number {
  return (usage) => {
    const work = workShare(usage, scope);
    const sum = <T>(record: Readonly<Record<string, T>>, of: (value: T) => number) =>
      Object.values(record).reduce((total, value) => total + of(value), 0);
    return (
      sum(work.stateMachines, (machine) => machine.transitions) +
      sum(work.functions, (fn) => fn.invocations) +
      sum(work.queues, (queue) => queue.requests) +
      sum(work.tables, (table) => table.requests) +
      sum(work.apis, (api) => api.requests) +
      sum(work.buses, (bus) => bus.events) +
      sum(work.topics, (topic) => topic.publishes)
    );
  };
}

async function runBatch(
  app: MeteredApp,
  tracker: TerminalTracker<SubmitOrderRequest>,
  scope: AppScope,
  label: string,
  skus: readonly string[],
): Promise<BatchResult> {
  const { runtime } = app;
  const before = runtime.usage();
  const orders = skus.map((sku, index) => orderOf(`${label}-${index + 1}-${Date.now()}`, sku));
  const outcomes = await tracker.completeAll(orders, CONCURRENCY);
  // What an order sets off after its terminal state (status messages, admission release) is its cost too.
  await waitUntilQuiet(runtime, workActivity(scope), { quietMillis: 2_000, maxMillis: 20_000 });
  const counted: Record<string, number> = {};
  for (const { state, attempt } of outcomes) {
    const outcome = attempt === 1 ? `${state} at the first attempt` : `${state} after ${attempt} attempts`;
    counted[outcome] = (counted[outcome] ?? 0) + 1;
  }
  return {
    orders: skus.length,
    outcomes: counted,
    work: workShare(usageSince(before, runtime.usage()), scope),
  };
}

const PRICES: PriceTable = US_EAST_1_PRICES;
const usd = (value: number) => `$${value.toFixed(value >= 1 ? 2 : 4)}`;
const round = (value: number, digits = 3) => Number(value.toFixed(digits));

function batchMeasurements(key: string, label: string, batch: BatchResult): Measurement[] {
  const units: Record<string, string> = {
    lambdaGbSeconds: 'GB-s',
    dynamoDbReadUnits: 'RRU',
    dynamoDbWriteUnits: 'WRU',
  };
  const cost = per1000(batch);
  return [
    { key: `${key}.orders`, label: `${label}: orders measured`, value: batch.orders, unit: 'count' },
    ...Object.entries(perOrderCounts(batch)).map(([name, value]) => ({
      key: `${key}.perOrder.${name}`,
      label: `${label}: ${name} per order`,
      value: round(value, 4),
      unit: units[name] ?? 'count',
    })),
    {
      key: `${key}.usdPer1000`,
      label: `${label}: cost per 1,000 orders`,
      value: round(cost.total, 4),
      unit: 'USD',
    },
    ...BILLED_SERVICES.map((service) => ({
      key: `${key}.usdPer1000.${service}`,
      label: `${label}: ${service} per 1,000 orders`,
      value: round(cost.byService[service], 5),
      unit: 'USD',
    })),
  ];
}

function describeStates(byState: Readonly<Record<string, number>>): string {
  const price = PRICES.stepFunctionsStandardTransition.usd * ORDERS_PER_PRICE;
  return Object.entries(byState)
    .filter(([, count]) => count > 0)
    .map(([state, count]) => `${state} ${round(count, 2)} (${usd(count * price)})`)
    .join(', ');
}

function describeTables(batch: BatchResult): string {
  return Object.values(batch.work.tables)
    .filter((table) => table.requests > 0)
    .map(
      (table) =>
        `${table.logicalId} ${round(table.readUnits / batch.orders, 2)} / ${round(table.writeUnits / batch.orders, 2)}`,
    )
    .join(', ');
}

const run: Figure['run'] = async (context) => {
  const sizes = context.quick ? QUICK : FULL;
  const app = await startMeteredApp(context);
  const { runtime } = app;
  const scope = appScopeOf(app.assemblyDir, ORDER_STACK);
  if (scope.notArm64.length > 0) {
    throw new Error(`priced as arm64, but these functions are not: ${scope.notArm64.join(', ')}`);
  }
  const tracker = new TerminalTracker(ordersApp(runtime.target), {
    timeoutMillis: ORDER_TIMEOUT_MILLIS,
    pollMillis: POLL_MILLIS,
  });
  const runStarted = runtime.usage();
  try {
    if (sizes.warmUp > 0) {
      context.progress(
        `warm-up: ${sizes.warmUp} orders and ${sizes.recovered} recovered ones, ${CONCURRENCY} at a time`,
      );
      await runBatch(app, tracker, scope, 'warm', [
        ...Array<string>(sizes.warmUp).fill(BOOK_SKU),
        ...Array<string>(sizes.recovered).fill(ScenarioSku.StallOnce),
      ]);
    }
    context.progress(`${sizes.processed} orders (${BOOK_SKU}), ${CONCURRENCY} at a time`);
    const processed = await runBatch(app, tracker, scope, 'processed', Array(sizes.processed).fill(BOOK_SKU));
    let recovered: BatchResult | undefined;
    if (sizes.recovered > 0) {
      context.progress(
        `${sizes.recovered} recovered orders (${ScenarioSku.StallOnce}), ${CONCURRENCY} at a time`,
      );
      const skus = Array<string>(sizes.recovered).fill(ScenarioSku.StallOnce);
      recovered = await runBatch(app, tracker, scope, 'recovered', skus);
    }
    const window = usageSince(runStarted, runtime.usage());
    const fixed = monthlyFixedCost(
      fixedShare(window, scope),
      scope,
      (Date.now() - app.readyAt) / 1_000,
      PRICES,
    );
    return describe({ quick: context.quick, sizes, scope, processed, recovered, fixed });
  } finally {
    tracker.close();
    await runtime.stop();
  }
};

interface Measured {
  readonly quick: boolean;
  readonly sizes: Sizes;
  readonly scope: AppScope;
  readonly processed: BatchResult;
  readonly recovered: BatchResult | undefined;
  readonly fixed: ReturnType<typeof monthlyFixedCost>;
}

/** USD per 1,000 orders of a batch, in all and by service. */
function per1000(batch: BatchResult): {
  readonly total: number;
  readonly byService: Record<BilledService, number>;
} {
  const items = priceUsage(batch.work, PRICES);
  const scale = ORDERS_PER_PRICE / batch.orders;
  const byService = costByService(items);
  for (const service of BILLED_SERVICES) byService[service] *= scale;
  return { total: totalUsd(items) * scale, byService };
}

function describe(measured: Measured): FigureResult {
  const { processed, recovered, scope, fixed, sizes } = measured;
  const steps = workflowSteps(DEFAULT_WORKFLOW_VERSION).length;
  // Issue 24: one transition per step plus 3 (LoadStateRecord, CheckLock, the end).
  const transitionBound = steps + 3;
  const transitions = perOrderCounts(processed).transitions ?? 0;
  const processedCost = per1000(processed);
  const byState = transitionsByState(processed);
  const savings = transitionSavings(byState);
  const saved = savings.reduce((sum, saving) => sum + saving.transitionsSaved, 0);
  const transitionPrice = PRICES.stepFunctionsStandardTransition.usd;
  const fixedPerMonth = totalUsd(fixed.items);
  const memorySizes = [...new Set(Object.values(processed.work.functions).map((fn) => fn.memorySizeMb))];
  const outcomes = (batch: BatchResult) =>
    Object.entries(batch.outcomes)
      .map(([state, count]) => `${count} ${state}`)
      .join(', ');
  const scheduled = [...scope.scheduledRateSeconds].map(([id, rate]) => `${id} every ${rate} s`).join(', ');
  const batches = [
    ['Processed', processed],
    ['Recovered (STALL-ONCE)', recovered],
  ] as const;
  const measurements: Measurement[] = [
    ...batchMeasurements('processed', 'Processed order', processed),
    ...Object.entries(byState).map(([state, count]) => ({
      key: `processed.transitionsByState.${state}`,
      label: `Processed order: transitions of ${state}`,
      value: round(count),
      unit: 'count',
    })),
    ...(recovered ? batchMeasurements('recovered', 'Recovered order', recovered) : []),
    {
      key: 'fixed.usdPerMonth',
      label: 'Scheduled functions per month (fixed)',
      value: round(fixedPerMonth, 2),
      unit: 'USD',
    },
    ...Object.entries(costByService(fixed.items))
      .filter(([, value]) => value > 0)
      .map(([service, value]) => ({
        key: `fixed.usdPerMonth.${service}`,
        label: `Scheduled functions per month: ${service}`,
        value: round(value),
        unit: 'USD',
      })),
  ];
  const chart: ChartSpec = {
    kind: 'bar',
    title: 'Cost per 1,000 orders by service (us-east-1 list prices)',
    xLabel: 'service',
    yLabel: 'USD per 1,000 orders',
    points: batches.flatMap(([series, batch]) => {
      if (!batch) return [];
      const { byService } = per1000(batch);
      return BILLED_SERVICES.map((service) => ({ series, x: service, y: round(byService[service], 5) }));
    }),
  };
  const notes = [
    `Measured: the local-profile assembly on the local runtime with metering (lib/local-runtime/metering.ts), ${
      sizes.warmUp > 0
        ? `after a warm-up of ${sizes.warmUp + sizes.recovered} orders, `
        : 'without a warm-up (cold sandboxes included), '
    }${processed.orders} ${BOOK_SKU} orders, ${CONCURRENCY} in flight at a time (${outcomes(processed)})${
      recovered ? `, then ${recovered.orders} ${ScenarioSku.StallOnce} orders (${outcomes(recovered)})` : ''
    }; each batch is the meter's difference from before its first submission until its work had been quiet for 2 s after its last terminal state (status messages and admission release included), divided by its orders.`,
    `Counted for the order stack ${ORDER_STACK} only: the drone delivery stack runs in the same runtime and is left out, and so are the fake downstream services (${[...scope.standIns].join(', ')}), whose bill would be the downstream's. Left out as well: receives that found no message (event source long polls of idle queues: a cost of time, and the local pollers' cadence is not AWS's) and alarm notifications with the topic's deliveries of them (an alarm publishes when its state changes, by the clock and the metrics, not per order).`,
    `Fixed cost, kept apart: the scheduled functions (${scheduled}) sweep and reconcile by the clock, whether or not orders come. Their invocations, duration and reads are left out of every order and priced per month (730 hours) at their schedule: ${usd(fixedPerMonth)} per month, each invocation at the mean billed duration of the runs that ended in this run, reads at this run's rate. Their writes stay in the orders (a sweep writes only to reset or fail an order). The local profile's supervisor sweeps 30 times per invocation over 4 shards and is billed for its waits between sweeps; the default profile sweeps once per invocation over 8 shards, so there its duration, the bulk of this line, is far smaller.${
      fixed.unmeasuredDurations.length > 0
        ? ` No run of ${fixed.unmeasuredDurations.join(', ')} ended in this run: its duration is not in the line.`
        : ''
    }`,
    `Prices: us-east-1 list prices recorded on ${RECORDED_ON} in lib/bench/prices/us-east-1.ts, each with its AWS pricing page; no free tier; Standard workflow transitions; Lambda arm64 (every function of the template is arm64) at the MemorySize of the template that ran (${memorySizes.join(', ')} MB: no function sets its own, so the platform's default holds in every profile, the default one included). Durations are local wall time of worker threads on a shared 2-core machine, new sandboxes' init included: not what AWS would measure.`,
    `DynamoDB: request units as DynamoDB Local reports them (index writes included), plus AWS's minimums where it reports less (a Query that finds nothing: 0.5; a write refused by its condition: 1), counted apart by the meter. Cancelled transactions are counted, not priced.`,
    `Not covered: CloudWatch Logs ingestion (function logs, the state machine's execution logs at level ALL), X-Ray traces, KMS requests (the state store's customer-managed key), CloudWatch metrics, alarms and dashboard, DynamoDB storage and streams (stream reads by Lambda are free), data transfer, the web ACL, and the client's own receives and deletes of its status messages (billed to the queue's owner: at least 2 requests per 10 messages).`,
    `A Processed order's ${round(transitions, 2)} transitions by state (USD per 1,000 orders): ${describeStates(byState)}.`,
    `A Processed order's DynamoDB request units by table (read / write): ${describeTables(processed)}. A write costs 1 unit per KB of the item, once for the table and again for every index the item is in (DynamoDB Local counts both).`,
    `Measured on workflow version ${DEFAULT_WORKFLOW_VERSION} (new orders' default), ${workflowShape(DEFAULT_WORKFLOW_VERSION)} shape (contracts/workflows.ts).`,
    ...savings.map(
      (saving) =>
        `The ${saving.change.replace(/^(lean|compact) shape: /, '')} would save ${round(saving.transitionsSaved, 2)} transitions (${usd(saving.transitionsSaved * transitionPrice * ORDERS_PER_PRICE)} per 1,000 orders) [${saving.states.join(', ')}]: the ${saving.change.startsWith('compact') ? 'compact shape (workflow versions 5 and 6)' : 'lean shape (workflow versions 3 and 4)'} does that.`,
    ),
    savings.length > 0
      ? `In the compact shape a Processed order would take ${round(transitions - saved, 2)} transitions (target ${transitionBound}).`
      : `No per-step Check, MarkRunning, MarkCompleted, LoadOrder or MarkProcessed state is left to save: a Processed order takes ${round(transitions, 2)} transitions (target ${transitionBound}), ${transitions <= transitionBound ? 'within' : 'above'} it.`,
    `At ${transitionBound} transitions Step Functions costs ${usd(transitionBound * transitionPrice * ORDERS_PER_PRICE)} per 1,000 orders, which leaves ${usd(COST_TARGET_USD - transitionBound * transitionPrice * ORDERS_PER_PRICE)} of the ${usd(COST_TARGET_USD)} target for the rest, which costs ${usd(processedCost.total - processedCost.byService['Step Functions'])} per 1,000 here. An Express workflow, billed by duration instead, is no way out: it cannot wait for a task token (the agents' callbacks).`,
    ...(recovered
      ? [
          `A recovered order costs ${usd(per1000(recovered).total)} per 1,000 (${round(perOrderCounts(recovered).transitions ?? 0, 2)} transitions): its abandoned first attempt and the second one, the stalled call's billed wait, and the supervisor's reset (its writes); the sweeps that found it are in the fixed line. Transitions by state: ${describeStates(transitionsByState(recovered))}.`,
        ]
      : []),
    ...(measured.quick
      ? [
          'Quick run: one Processed order on cold sandboxes and no recovered order (its recovery alone waits out a step deadline and a sweep): it proves the figure runs, not the targets.',
        ]
      : []),
  ];
  return {
    id: 'order-cost',
    title: orderCostFigure.title,
    measurements,
    targets: [
      checkTarget(
        `Step Functions transitions per Processed order <= ${steps} steps + 3`,
        round(transitions),
        'atMost',
        transitionBound,
      ),
      checkTarget(
        `cost per 1,000 Processed orders <= ${usd(COST_TARGET_USD)} (us-east-1 list prices)`,
        round(processedCost.total, 4),
        'atMost',
        COST_TARGET_USD,
      ),
    ],
    notes,
    charts: [chart],
  };
}

export const orderCostFigure: Figure = {
  id: 'order-cost',
  title: 'State transitions and cost per 1,000 orders',
  run,
};
