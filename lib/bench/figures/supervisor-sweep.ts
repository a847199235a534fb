/**
 * Figure 1, supervisor sweep cost (issue 11): the read units one sweep of the real supervisor
 * consumes with the same expired records among 1,000 and among 20,000 records in other states,
 * next to a Scan-based sweeper on the same tables. The supervisor queries its sparse DueIndex
 * (only Pending and Processing records carry DueShard; CompleteBy <= now), so its cost should
 * follow the due records, not the table; a Scan reads every item.
 *
 * The tables are the StateStore construct itself (its key schema, indexes and projections),
 * synthesized in a one-stack app and created by the local runtime on DynamoDB Local, as for any
 * stack it runs. The sweep is the supervisor as its handler composes it (the wing's
 * composition/supervisor.ts) on metered clients, with the default profile's settings.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { App, CfnOutput, Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import {
  type StateRecord,
  stateRecordItem,
  stateRecordReader,
} from '../../../lambdas/scheduler-agent-supervisor/composition/state-records';
import {
  composeSupervisor,
  DEFAULT_GAUGE_CAP,
  type EventLog,
  type SweepSummary,
} from '../../../lambdas/scheduler-agent-supervisor/composition/supervisor';
import { DUE_INDEX, ProcessState, StateAttr } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { SDK_MAX_ATTEMPTS } from '../../../lambdas/shared/aws-clients/options';
import { systemClock, timeBudget } from '../../../lambdas/shared/clock';
import { ratio } from '../../harness/stats';
import { type LocalRuntime, startLocalRuntime } from '../../local-runtime';
import { DEFAULT_PROFILE } from '../../platform/config';
import { DataSettings } from '../../platform/data-settings';
import { type DeploymentConfig, loadConfig } from '../../scheduler-agent-supervisor/config';
import { StateStore } from '../../scheduler-agent-supervisor/state-store';
import { batchWriteAll } from '../core/batch-write';
import { type CapacityUsage, ConsumedCapacityMeter } from '../core/consumed-capacity';
import type { BenchContext, ChartSpec, Figure, FigureResult, Measurement } from '../core/figure';
import { checkTarget } from '../core/figure';
import { sweepTableRecords } from './supervisor-sweep-records';

/** The records of one run: `due` expired ones among `small`, then among `large`, records in other states. */
export interface SweepSizes {
  readonly due: number;
  readonly small: number;
  readonly large: number;
}

export const SWEEP_SIZES: Readonly<Record<'full' | 'quick', SweepSizes>> = {
  full: { due: 50, small: 1_000, large: 20_000 },
  quick: { due: 50, small: 200, large: 2_000 },
};

/** The target: ours grows by at most 10% from the small table to the large one. */
const OURS_RATIO_BOUND = 1.1;
/** BatchWriteItem requests in flight while a table is loaded. */
const LOAD_CONCURRENCY = 8;
const STACK_NAME = 'BenchSupervisorSweep';
const START_QUEUE_OUTPUT = 'StartQueueUrl';
const ALERT_BUS_OUTPUT = 'AlertBusName';

function tableOutputOf(size: number): string {
  return `StateTable${size}`;
}

/** The one-stack app: a StateStore per size (the stack's own construct), a start queue, an alert bus. */
function synthesizeSweepTables(outdir: string, sizes: readonly number[]): void {
  const app = new App({ outdir });
  const stack = new Stack(app, STACK_NAME);
  DataSettings.forStack(stack, { retainData: false, logRetentionDays: 1 });
  for (const size of sizes) {
    const store = new StateStore(stack, `State${size}`);
    new CfnOutput(stack, tableOutputOf(size), { value: store.tableName });
  }
  const startQueue = new sqs.Queue(stack, 'StartQueue');
  new CfnOutput(stack, START_QUEUE_OUTPUT, { value: startQueue.queueUrl });
  const alertBus = new events.EventBus(stack, 'AlertBus');
  new CfnOutput(stack, ALERT_BUS_OUTPUT, { value: alertBus.eventBusName });
  app.synth();
}

/** What the Scan-based sweeper found: due records' ids, and every item it read to find them. */
export interface ScanSweep {
  readonly dueOrderIds: readonly string[];
  readonly examined: number;
}

/**
 * Segments of the Scan sweeper's parallel Scan. They change how long it takes, not what it reads:
 * DynamoDB Local reads all of a segment's remaining items for every 1 MB page it returns, so one
 * sequential Scan of 20,000 records takes over half a minute there.
 */
export const SCAN_SEGMENTS = 4;

/**
 * The naive sweeper: a Scan of the whole table, filtered to the due records (a filter is applied
 * after the read, so every item is paid for), each segment page after page to the end.
 */
export async function scanForDueRecords(
  client: DynamoDBDocumentClient,
  tableName: string,
  now: number,
  segments: number = SCAN_SEGMENTS,
): Promise<ScanSweep> {
  const dueOrderIds: string[] = [];
  let examined = 0;
  const scanSegment = async (segment: number): Promise<void> => {
    let cursor: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new ScanCommand({
          TableName: tableName,
          Segment: segment,
          TotalSegments: segments,
          FilterExpression: 'attribute_exists(#shard) AND #completeBy <= :now',
          ExpressionAttributeNames: { '#shard': DUE_INDEX.partitionKey, '#completeBy': DUE_INDEX.sortKey },
          ExpressionAttributeValues: { ':now': now },
          ...(cursor !== undefined && { ExclusiveStartKey: cursor }),
        }),
      );
      examined += page.ScannedCount ?? 0;
      dueOrderIds.push(...(page.Items ?? []).map((item) => String(item[StateAttr.OrderId])));
      cursor = page.LastEvaluatedKey;
    } while (cursor !== undefined);
  };
  await Promise.all(Array.from({ length: segments }, (_, segment) => scanSegment(segment)));
  return { dueOrderIds, examined };
}

/** The supervisor's log, quiet: a sweep's outcome is read from its summary; errors are kept to report. */
function quietLog(errors: string[]): EventLog {
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: (message, ...attributes) => errors.push(`${message} ${JSON.stringify(attributes)}`),
  };
}

interface SweepWorld {
  readonly runtime: LocalRuntime;
  /** Metered: every request of the code under measurement. */
  readonly meter: ConsumedCapacityMeter;
  readonly measured: DynamoDBDocumentClient;
  /** Not metered: loading and checking. */
  readonly plain: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  readonly eventBridge: EventBridgeClient;
  close(): void;
}

function clientsFor(runtime: LocalRuntime): SweepWorld {
  const { target } = runtime;
  const config = {
    region: target.region,
    credentials: { ...target.credentials },
    maxAttempts: SDK_MAX_ATTEMPTS,
  };
  // As the handlers' document client (lambdas/shared/aws-clients/dynamodb.ts): absent attributes are left out.
  const documentClient = (client: DynamoDBClient) =>
    DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  const measuredBase = new DynamoDBClient({ ...config, endpoint: target.endpoints.dynamodb });
  const plainBase = new DynamoDBClient({ ...config, endpoint: target.endpoints.dynamodb });
  const meter = new ConsumedCapacityMeter();
  meter.attachTo(measuredBase);
  const sqsClient = new SQSClient({ ...config, endpoint: target.endpoints.sqs });
  const eventBridge = new EventBridgeClient({ ...config, endpoint: target.endpoints.events });
  return {
    runtime,
    meter,
    measured: documentClient(measuredBase),
    plain: documentClient(plainBase),
    sqs: sqsClient,
    eventBridge,
    close: () => {
      for (const client of [measuredBase, plainBase, sqsClient, eventBridge]) client.destroy();
    },
  };
}

/** What one supervisor run reads around the sweep, and the sweep itself, on one table. */
interface SupervisorRunCost {
  readonly sweep: CapacityUsage;
  readonly summary: SweepSummary;
  /** The run's alert re-delivery pass (AlertOutboxIndex), once before its sweeps. */
  readonly alertBackstop: CapacityUsage;
  /** The handler's gauges (StateIndex), measured after each sweep. */
  readonly gauges: CapacityUsage;
}

/** One supervisor run with one sweep, as the handler makes it, each part metered on its own. */
async function superviseOnce(
  world: SweepWorld,
  tableName: string,
  config: DeploymentConfig,
  errors: string[],
): Promise<SupervisorRunCost> {
  const outputs = world.runtime.target.stackOutputs[STACK_NAME] ?? {};
  // The supervisor as its handler composes it, on the metered clients.
  const supervisor = composeSupervisor(
    { documents: world.measured, sqs: world.sqs, eventBridge: world.eventBridge },
    {
      stateTableName: tableName,
      startQueueUrl: String(outputs[START_QUEUE_OUTPUT]),
      alertBusName: String(outputs[ALERT_BUS_OUTPUT]),
      timings: config.timings,
      dueShardCount: config.dueShardCount,
      liveWorkflowVersions: [...config.workflow.live],
      clock: systemClock,
    },
  );
  const run = { log: quietLog(errors), correlationId: 'bench-supervisor-sweep' };
  const budget = timeBudget({
    clock: systemClock,
    deadlineEpochMillis: systemClock.now() + config.timings.supervisorBudgetSeconds * 1000,
  });
  const alertBackstop = await world.meter.measure(() => supervisor.redeliverAlerts(run, budget));
  const sweep = await world.meter.measure(() => supervisor.sweep(run, budget));
  // The handler's gauges after a sweep (handlers/supervisor.ts, reportSweep), with its settings.
  const gauges = await world.meter.measure(() => supervisor.measureGauges(systemClock.now()));
  return {
    sweep: sweep.usage,
    summary: sweep.result,
    alertBackstop: alertBackstop.usage,
    gauges: gauges.usage,
  };
}

/**
 * The sweep found and acted on exactly the due records, and nothing else went wrong: a sweep that
 * found nothing would be cheap for the wrong reason.
 */
async function assertSweptTheDueRecords(
  world: SweepWorld,
  tableName: string,
  due: readonly StateRecord[],
  cost: SupervisorRunCost,
  scan: ScanSweep,
  errors: readonly string[],
): Promise<void> {
  const problems: string[] = [];
  const { summary } = cost;
  if (summary.examined !== due.length || summary.resets !== due.length) {
    problems.push(
      `the sweep examined ${summary.examined} and reset ${summary.resets} of ${due.length} due records`,
    );
  }
  if (summary.errors + summary.lostRaces + summary.startMessageFailures > 0 || summary.stoppedByBudget) {
    problems.push(`the sweep was not clean: ${JSON.stringify(summary)}`);
  }
  if (errors.length > 0) problems.push(`the supervisor logged errors: ${errors.slice(0, 3).join('; ')}`);
  const dueIds = new Set(due.map((record) => record.orderId));
  if (scan.dueOrderIds.length !== due.length || !scan.dueOrderIds.every((id) => dueIds.has(id))) {
    problems.push(`the Scan found ${scan.dueOrderIds.length} due records, expected the ${due.length} loaded`);
  }
  const store = stateRecordReader(world.plain, tableName);
  for (const record of due) {
    const now = await store.get(record.orderId);
    if (now?.processState !== ProcessState.Pending || now.failureCount !== 1) {
      problems.push(
        `${record.orderId} is ${now?.processState} with FailureCount ${now?.failureCount}, not reset`,
      );
      break;
    }
  }
  if (problems.length > 0) throw new Error(`supervisor-sweep on ${tableName}: ${problems.join('; ')}`);
}

interface SizeResult {
  readonly size: number;
  readonly ours: SupervisorRunCost;
  readonly scan: ScanSweep & { readonly usage: CapacityUsage };
}

async function measureSize(
  world: SweepWorld,
  size: number,
  due: readonly StateRecord[],
  config: DeploymentConfig,
  context: BenchContext,
): Promise<SizeResult> {
  const tableName = String(world.runtime.target.stackOutputs[STACK_NAME]?.[tableOutputOf(size)]);
  const now = systemClock.now();
  const { others } = sweepTableRecords({ due: 0, others: size }, now, config);
  const started = Date.now();
  await batchWriteAll(
    world.plain,
    tableName,
    [...due, ...others].map((record) => stateRecordItem(record)),
    LOAD_CONCURRENCY,
  );
  context.progress(
    `${tableName}: loaded ${due.length} due among ${size.toLocaleString('en-US')} finished records in ${Date.now() - started} ms`,
  );
  // The Scan first: it only reads, while the supervisor's sweep moves the due records out of due.
  const scan = await world.meter.measure(() =>
    scanForDueRecords(world.measured, tableName, systemClock.now()),
  );
  const errors: string[] = [];
  const ours = await superviseOnce(world, tableName, config, errors);
  await assertSweptTheDueRecords(world, tableName, due, ours, scan.result, errors);
  context.progress(
    `${size.toLocaleString('en-US')} records: sweep ${ours.sweep.readUnits} RCU (${ours.summary.examined} examined, ` +
      `${ours.summary.resets} reset), Scan ${scan.usage.readUnits} RCU (${scan.result.examined} examined)`,
  );
  return { size, ours, scan: { ...scan.result, usage: scan.usage } };
}

function readUnitsOf(usage: CapacityUsage, operation: string): number {
  return usage.byOperation[operation]?.readUnits ?? 0;
}

function measurementsOf(result: SizeResult): Measurement[] {
  const { ours, scan } = result;
  const requests = (operation: string) => ours.sweep.byOperation[operation]?.requests ?? 0;
  const rows: readonly (readonly [key: string, label: string, value: number, unit: string])[] = [
    ['ours.rcu', 'Read units of one sweep (ours)', ours.sweep.readUnits, 'RCU'],
    [
      'ours.index-rcu',
      `  of which DueIndex queries (${requests('Query')})`,
      readUnitsOf(ours.sweep, 'Query'),
      'RCU',
    ],
    [
      'ours.version-reads-rcu',
      `  of which version reads of the records acted on (${requests('GetItem')})`,
      readUnitsOf(ours.sweep, 'GetItem'),
      'RCU',
    ],
    ['ours.examined', 'Records examined by the sweep (ours)', ours.summary.examined, 'count'],
    ['ours.acted', 'Expired attempts reset by the sweep (ours)', ours.summary.resets, 'count'],
    ['ours.wcu', "Write units of the sweep's resets (ours)", ours.sweep.writeUnits, 'WCU'],
    ['scan.rcu', 'Read units of one Scan sweep (Scan)', scan.usage.readUnits, 'RCU'],
    ['scan.examined', 'Records examined by the Scan (Scan)', scan.examined, 'count'],
    [
      'run.alert-backstop-rcu',
      "Read units of the run's alert re-delivery pass",
      ours.alertBackstop.readUnits,
      'RCU',
    ],
    ['run.gauges-rcu', 'Read units of the gauges after a sweep', ours.gauges.readUnits, 'RCU'],
  ];
  return rows.map(([key, label, value, unit]) => ({
    key: `${key}.${result.size}`,
    label: `${label}, ${result.size.toLocaleString('en-US')} records`,
    value,
    unit,
  }));
}

export async function runSupervisorSweep(context: BenchContext): Promise<FigureResult> {
  const sizes = context.quick ? SWEEP_SIZES.quick : SWEEP_SIZES.full;
  const config = loadConfig(DEFAULT_PROFILE);
  const assemblyDir = join(context.workDir, 'cdk.out');
  synthesizeSweepTables(assemblyDir, [sizes.small, sizes.large]);
  const runtimeLog = join(context.workDir, 'runtime.log');
  const runtime = await startLocalRuntime({
    assemblyDir,
    port: 0,
    targetFile: null,
    log: (line) => appendFileSync(runtimeLog, `${line}\n`),
  });
  context.progress(
    `local runtime ready in ${runtime.startupMillis} ms (DynamoDB Local, tables from StateStore)`,
  );
  const world = clientsFor(runtime);
  let small: SizeResult;
  let large: SizeResult;
  try {
    const { due } = sweepTableRecords({ due: sizes.due, others: 0 }, systemClock.now(), config);
    small = await measureSize(world, sizes.small, due, config, context);
    large = await measureSize(world, sizes.large, due, config, context);
  } finally {
    world.close();
    await runtime.stop();
  }
  const oursRatio = ratio(large.ours.sweep.readUnits, small.ours.sweep.readUnits);
  const scanRatio = ratio(large.scan.usage.readUnits, small.scan.usage.readUnits);
  const sizeRatio = `${large.size.toLocaleString('en-US')}/${small.size.toLocaleString('en-US')}`;
  const queries = (result: SizeResult) => result.ours.sweep.byOperation.Query;
  const sweepQueries = [small, large].reduce((sum, result) => sum + (queries(result)?.requests ?? 0), 0);
  const emptyQueries = [small, large].reduce(
    (sum, result) => sum + (queries(result)?.reportedNothing ?? 0),
    0,
  );
  const chart: ChartSpec = {
    kind: 'bar',
    title: `Read units of one sweep: ${sizes.due} due records among more and more finished ones`,
    xLabel: 'records in the table besides the due ones',
    yLabel: 'read capacity units (log scale)',
    logScale: true,
    points: [small, large].flatMap((result) => [
      {
        series: 'supervisor (DueIndex query)',
        x: result.size.toLocaleString('en-US'),
        y: result.ours.sweep.readUnits,
      },
      { series: 'Scan sweeper', x: result.size.toLocaleString('en-US'), y: result.scan.usage.readUnits },
    ]),
  };
  return {
    id: 'supervisor-sweep',
    title: 'Supervisor sweep cost',
    measurements: [
      ...measurementsOf(small),
      ...measurementsOf(large),
      { key: 'ours.ratio', label: `Read units ${sizeRatio} (ours)`, value: oursRatio, unit: 'ratio' },
      { key: 'scan.ratio', label: `Read units ${sizeRatio} (Scan)`, value: scanRatio, unit: 'ratio' },
    ],
    targets: [
      checkTarget(
        `${sizeRatio} read-unit ratio of one sweep <= ${OURS_RATIO_BOUND} (ours)`,
        oursRatio,
        'atMost',
        OURS_RATIO_BOUND,
      ),
    ],
    notes: [
      `Both tables are the StateStore construct (key schema, DueIndex and the other indexes as the stack defines them), created by the local runtime on DynamoDB Local; ` +
        `each holds the same ${sizes.due} expired attempts (Processing, CompleteBy an hour past) and ${sizes.small.toLocaleString('en-US')} or ${sizes.large.toLocaleString('en-US')} finished orders ` +
        `(17 in 20 Processed, one each Compensated, Error, CompensationFailed; no DueShard), loaded with BatchWriteItem, ${LOAD_CONCURRENCY} requests in flight.`,
      `Ours: one sweepDueRecords of the supervisor's domain over its adapters (DynamoStateStore, SqsStartQueue) with the default profile ` +
        `(${config.dueShardCount} DueShards, page size ${config.timings.supervisorPageSize}); it must find and reset every due record, and the figure fails otherwise. ` +
        `Scan: a Scan of the table filtered to due records (attribute_exists(DueShard) AND CompleteBy <= now), eventually consistent, in ${SCAN_SEGMENTS} parallel segments, every page to the end; it must find the same records. ` +
        '(Segments only make it faster on DynamoDB Local, which rereads what is left of a segment for each 1 MB page; they read the same items.)',
      'Read units: an SDK middleware adds ReturnConsumedCapacity TOTAL to every request of the measured clients and adds up the CapacityUnits of the GetItem, Query and Scan responses. ' +
        "The sweep's read units are its DueIndex queries (one or more pages per shard) plus one strongly consistent GetItem per record it acts on (the versions it checks first): " +
        'the latter follow the due records, not the table.',
      'DynamoDB Local reports consumed capacity for a GSI Query (ReturnConsumedCapacity INDEXES puts it on the index): 0.5 units per 4 KB of index entries read, as AWS does for an eventually consistent read. ' +
        `It reports 0 for a Query that matches nothing, where AWS charges at least 0.5 per request: ${emptyQueries} of the ${sweepQueries} DueIndex queries of the two sweeps reported 0 here ` +
        `(a shard with no due record). On AWS a sweep therefore costs at least ${config.dueShardCount * 0.5} units (${config.dueShardCount} shards x 0.5) even with nothing due, at every table size.`,
      `Also measured, not in the target: what a supervisor run reads besides its sweep. The alert re-delivery pass (AlertOutboxIndex, empty here) and the gauges the handler ` +
        'reads after each sweep: the count of Error orders and of stuck compensations and the oldest order in flight, on the StateIndex. The Error count reads every Error entry ' +
        `(up to its cap, ${DEFAULT_GAUGE_CAP.toLocaleString('en-US')}), so it grows with the orders left in Error, which here are one in twenty of the table.`,
      "Not covered: the sweep's writes (its resets' write units are listed, the same at both sizes), AWS's request-level rounding beyond what DynamoDB Local applies, " +
        'partitions and throttling, and the Scan sweeper acting on what it finds (it only reads; acting would cost it what it costs ours).',
    ],
    charts: [chart],
  };
}

export const supervisorSweepFigure: Figure = {
  id: 'supervisor-sweep',
  title: 'Supervisor sweep cost',
  run: runSupervisorSweep,
};
