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
  DUE_INDEX,
  workflowShape,
  workflowSteps,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { type RuntimeUsage, usageSince } from '../../local-runtime';
import type { STACK_NAME } from '../../scheduler-agent-supervisor/stack';
import type { ChartSpec, Figure, FigureResult, Measurement, TargetCheck } from '../core/figure';
import { checkTarget } from '../core/figure';
import { BILLED_SERVICES, type CostItem, costByService, priceUsage, totalUsd } from '../core/pricing';
import { type TableWrites, tableWrites, withoutHash } from '../core/table-writes';
import { orderOf, ordersApp } from '../core/terminal-tracker';
import {
  type BatchResult,
  batchMeasurements,
  COST_BATCH,
  describeOutcomes,
  describeTables,
  per1000 as per1000At,
  perUnitCounts,
  REQUESTS_PER_PRICE,
  round,
  runBatch,
  startCostRun,
  usd,
} from '../core/unit-cost';
import { type AppScope, fixedShare } from '../core/usage-scope';
import { type PriceTable, RECORDED_ON, US_EAST_1_PRICES } from '../prices/us-east-1';

/** The order stack (checked against the stack's own constant; a type-only import keeps aws-cdk-lib out). */
const ORDER_STACK: typeof STACK_NAME = 'SchedulerAgentSupervisor';
/** AWS prices a month as 730 hours. */
const SECONDS_PER_MONTH = 730 * 3_600;
const ORDERS_PER_PRICE = REQUESTS_PER_PRICE;
/** Issue 24's target: USD per 1,000 Processed orders. */
const COST_TARGET_USD = 0.2;
const BOOK_SKU = 'BOOK';
const CONCURRENCY = COST_BATCH.concurrency;

interface Sizes {
  /** Orders of each kind sent once before measuring, so sandboxes are warm (0: none). */
  readonly warmUp: number;
  readonly processed: number;
  readonly recovered: number;
}
const FULL: Sizes = { warmUp: 8, processed: 20, recovered: 4 };
/** No recovered order: its recovery alone waits out a step deadline and a sweep (about 15 s). */
const QUICK: Sizes = { warmUp: 0, processed: 1, recovered: 0 };

/** The state store's target: write units per Processed order (issue 24). */
const STATE_STORE_WCU_BOUND = 30;

/**
 * The state store's writes in a batch, per order, by writer and by share (the item's own, each
 * index's); the state store is the order stack's table with the supervisor's DueIndex.
 */
export function stateStoreWrites(batch: BatchResult): TableWrites | undefined {
  const table = Object.values(batch.work.tables).find(
    (candidate) => candidate.byIndex[DUE_INDEX.name] !== undefined,
  );
  if (!table) return undefined;
  const writerOf = (caller: string) => {
    const logicalId = batch.functionIds?.[caller];
    return logicalId === undefined ? undefined : withoutHash(logicalId);
  };
  return tableWrites(table, batch.units, writerOf);
}

/** Transitions of one order, per state name (summed over the stack's state machines). */
export function transitionsByState(batch: BatchResult): Record<string, number> {
  const byState: Record<string, number> = {};
  for (const machine of Object.values(batch.work.stateMachines)) {
    for (const [state, count] of Object.entries(machine.transitionsByState)) {
      byState[state] = (byState[state] ?? 0) + count / batch.units;
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

const PRICES: PriceTable = US_EAST_1_PRICES;
const ORDER_NOUN = { singular: 'order', plural: 'orders' } as const;
const per1000 = (batch: BatchResult) => per1000At(batch, PRICES);
const batchOf = (label: string, skus: readonly string[]) =>
  skus.map((sku, index) => orderOf(`${label}-${index + 1}-${Date.now()}`, sku));

function describeStates(byState: Readonly<Record<string, number>>): string {
  const price = PRICES.stepFunctionsStandardTransition.usd * ORDERS_PER_PRICE;
  return Object.entries(byState)
    .filter(([, count]) => count > 0)
    .map(([state, count]) => `${state} ${round(count, 2)} (${usd(count * price)})`)
    .join(', ');
}

const run: Figure['run'] = async (context) => {
  const sizes = context.quick ? QUICK : FULL;
  const { app, scope, tracker } = await startCostRun(context, ORDER_STACK, ordersApp);
  const { runtime } = app;
  const runStarted = runtime.usage();
  try {
    if (sizes.warmUp > 0) {
      context.progress(
        `warm-up: ${sizes.warmUp} orders and ${sizes.recovered} recovered ones, ${CONCURRENCY} at a time`,
      );
      const warm = batchOf('warm', [
        ...Array<string>(sizes.warmUp).fill(BOOK_SKU),
        ...Array<string>(sizes.recovered).fill(ScenarioSku.StallOnce),
      ]);
      await runBatch(app, tracker, scope, warm, CONCURRENCY);
    }
    context.progress(`${sizes.processed} orders (${BOOK_SKU}), ${CONCURRENCY} at a time`);
    const processed = await runBatch(
      app,
      tracker,
      scope,
      batchOf('processed', Array(sizes.processed).fill(BOOK_SKU)),
      CONCURRENCY,
    );
    let recovered: BatchResult | undefined;
    if (sizes.recovered > 0) {
      context.progress(
        `${sizes.recovered} recovered orders (${ScenarioSku.StallOnce}), ${CONCURRENCY} at a time`,
      );
      const skus = Array<string>(sizes.recovered).fill(ScenarioSku.StallOnce);
      recovered = await runBatch(app, tracker, scope, batchOf('recovered', skus), CONCURRENCY);
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

/** The state store's write units per order, in all, by share and by writer (and its shares). */
function stateStoreMeasurements(key: string, label: string, writes: TableWrites): Measurement[] {
  const wcu = (suffix: string, what: string, value: number): Measurement => ({
    key: `${key}.stateStore.wcu${suffix}`,
    label: `${label}: state store write units${what}`,
    value: round(value, 3),
    unit: 'WRU',
  });
  return [
    wcu('', '', writes.writeUnits),
    ...Object.entries(writes.byShare).map(([share, units]) => wcu(`.${share}`, ` on ${share}`, units)),
    ...writes.byWriter.flatMap((writer) => [
      {
        key: `${key}.stateStore.writes.${writer.writer}`,
        label: `${label}: state store write requests by ${writer.writer}`,
        value: round(writer.requests, 3),
        unit: 'count',
      },
      wcu(`.by.${writer.writer}`, ` by ${writer.writer}`, writer.writeUnits),
      ...Object.entries(writer.byShare).map(([share, units]) =>
        wcu(`.by.${writer.writer}.${share}`, ` by ${writer.writer} on ${share}`, units),
      ),
    ]),
  ];
}

/** One line per writer: requests, units per request, and where they go. */
function describeStateStoreWrites(writes: TableWrites): string {
  const shares = (byShare: Readonly<Record<string, number>>) =>
    Object.entries(byShare)
      .filter(([, units]) => units > 0)
      .map(([share, units]) => `${share} ${round(units, 2)}`)
      .join(' + ');
  return writes.byWriter
    .map(
      (writer) =>
        `${writer.writer} ${round(writer.requests, 2)} writes, ${round(writer.writeUnits, 2)} WRU (${round(writer.writeUnits / writer.requests, 2)} per write: ${shares(writer.byShare)})`,
    )
    .join('; ');
}

/** The DynamoDB note; the state store's measurements, note and target (none if the run found no state store). */
function stateStorePart(
  processed: BatchResult,
  recovered: BatchResult | undefined,
): { readonly measurements: Measurement[]; readonly notes: string[]; readonly targets: TargetCheck[] } {
  const tablesNote = `A Processed order's DynamoDB request units by table (read / write): ${describeTables(processed)}. A write costs 1 unit per KB of the item (the larger of before and after), plus, for each secondary index, 1 unit per KB of the index entry when the write adds, removes or changes a key or a projected attribute there (2 writes when the entry's key changes: delete and put), nothing for an index it leaves untouched. The meter asks for ReturnConsumedCapacity INDEXES, and DynamoDB Local follows those rules (test/integration/local-runtime/dynamodb/index-capacity.test.ts), so the units are DynamoDB Local's own, per index.`;
  const writes = stateStoreWrites(processed);
  if (!writes) return { measurements: [], notes: [tablesNote], targets: [] };
  const recoveredWrites = recovered ? stateStoreWrites(recovered) : undefined;
  const shares = Object.entries(writes.byShare)
    .map(([share, units]) => `${share} ${round(units, 2)}`)
    .join(', ');
  return {
    measurements: [
      ...stateStoreMeasurements('processed', 'Processed order', writes),
      ...(recoveredWrites ? stateStoreMeasurements('recovered', 'Recovered order', recoveredWrites) : []),
    ],
    notes: [
      tablesNote,
      `A Processed order's state store writes by writer (units per order; the table's own share and each index's): ${describeStateStoreWrites(writes)}. In all: ${shares}.`,
    ],
    targets: [
      checkTarget(
        `state store write units per Processed order <= ${STATE_STORE_WCU_BOUND}`,
        round(writes.writeUnits, 3),
        'atMost',
        STATE_STORE_WCU_BOUND,
      ),
    ],
  };
}

interface Measured {
  readonly quick: boolean;
  readonly sizes: Sizes;
  readonly scope: AppScope;
  readonly processed: BatchResult;
  readonly recovered: BatchResult | undefined;
  readonly fixed: ReturnType<typeof monthlyFixedCost>;
}

function describe(measured: Measured): FigureResult {
  const { processed, recovered, scope, fixed, sizes } = measured;
  const steps = workflowSteps(DEFAULT_WORKFLOW_VERSION).length;
  // Issue 24's bound: one transition per step plus 3 (the compact shape takes 2: CheckLock and the end).
  const transitionBound = steps + 3;
  const transitions = perUnitCounts(processed).transitions ?? 0;
  const processedCost = per1000(processed);
  const byState = transitionsByState(processed);
  const savings = transitionSavings(byState);
  const saved = savings.reduce((sum, saving) => sum + saving.transitionsSaved, 0);
  const transitionPrice = PRICES.stepFunctionsStandardTransition.usd;
  const fixedPerMonth = totalUsd(fixed.items);
  const memorySizes = [...new Set(Object.values(processed.work.functions).map((fn) => fn.memorySizeMb))];
  const outcomes = describeOutcomes;
  const scheduled = [...scope.scheduledRateSeconds].map(([id, rate]) => `${id} every ${rate} s`).join(', ');
  const batches = [
    ['Processed', processed],
    ['Recovered (STALL-ONCE)', recovered],
  ] as const;
  const stateStore = stateStorePart(processed, recovered);
  const measurements: Measurement[] = [
    ...batchMeasurements('processed', 'Processed order', ORDER_NOUN, processed, PRICES),
    ...stateStore.measurements,
    ...Object.entries(byState).map(([state, count]) => ({
      key: `processed.transitionsByState.${state}`,
      label: `Processed order: transitions of ${state}`,
      value: round(count),
      unit: 'count',
    })),
    ...(recovered ? batchMeasurements('recovered', 'Recovered order', ORDER_NOUN, recovered, PRICES) : []),
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
    }${processed.units} ${BOOK_SKU} orders, ${CONCURRENCY} in flight at a time (${outcomes(processed)})${
      recovered ? `, then ${recovered.units} ${ScenarioSku.StallOnce} orders (${outcomes(recovered)})` : ''
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
    ...stateStore.notes,
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
          `A recovered order costs ${usd(per1000(recovered).total)} per 1,000 (${round(perUnitCounts(recovered).transitions ?? 0, 2)} transitions): its abandoned first attempt and the second one, the stalled call's billed wait, and the supervisor's reset (its writes); the sweeps that found it are in the fixed line. Transitions by state: ${describeStates(transitionsByState(recovered))}.`,
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
      ...stateStore.targets,
    ],
    notes,
    charts: [chart],
    batches: { processed: { unit: ORDER_NOUN.singular, units: processed.units, work: processed.work } },
  };
}

export const orderCostFigure: Figure = {
  id: 'order-cost',
  title: 'State transitions and cost per 1,000 orders',
  run,
};
