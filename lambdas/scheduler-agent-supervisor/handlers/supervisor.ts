/**
 * Supervisor: invoked by an EventBridge schedule every supervisorRateSeconds (reserved concurrency
 * 1). Each invocation makes supervisorSweepsPerRun sweeps of the DueIndex spread across the rate,
 * within a time budget: the tighter of supervisorBudgetSeconds and the invocation's remaining time.
 */
import { createDocumentClient, createEventBridgeClient, createSqsClient } from '../../shared/aws-clients';
import { sleep, systemClock, timeBudget } from '../../shared/clock';
import { requireEnv } from '../../shared/env';
import { annotateTrace, createObservability, instrumentedHandler } from '../../shared/observability';
import { DynamoAlertOutbox } from '../adapters/alert-outbox';
import { EventBridgeAlertPublisher } from '../adapters/alert-publisher';
import {
  readDueShardCount,
  readWorkflowStateMachines,
  readWorkflowTimings,
} from '../adapters/runtime-config';
import { SqsStartQueue } from '../adapters/start-queue';
import { DynamoStateStore } from '../adapters/state-store';
import { EnvKey, OrderMetric } from '../contracts';
import { allDueShards } from '../domain/shard';
import { runSupervisor, type SupervisorDependencies, type SupervisorRunSummary } from '../domain/supervisor';

/** Time kept back from the invocation's remaining time so logs and metrics still get flushed. */
export const INVOCATION_SAFETY_MARGIN_MILLIS = 1_000;

const observability = createObservability<OrderMetric>();
const { logger, tracer, count } = observability;
const timings = readWorkflowTimings();

const documentClient = createDocumentClient(tracer);
const stateTableName = requireEnv(EnvKey.StateTableName);

const dependencies: Omit<SupervisorDependencies, 'log' | 'correlationId'> = {
  store: new DynamoStateStore(documentClient, stateTableName),
  startQueue: new SqsStartQueue(createSqsClient(tracer), requireEnv(EnvKey.StartQueueUrl)),
  alerts: new EventBridgeAlertPublisher(createEventBridgeClient(tracer), requireEnv(EnvKey.AlertBusName)),
  outbox: new DynamoAlertOutbox(documentClient, stateTableName),
  ...(timings.alertRedeliveryGraceSeconds !== undefined && {
    alertRedeliveryGraceSeconds: timings.alertRedeliveryGraceSeconds,
  }),
  clock: systemClock,
  timings,
  shards: allDueShards(readDueShardCount()),
  liveWorkflowVersions: [...readWorkflowStateMachines().keys()],
};

/** The metric each counter of a run is reported as. */
const RUN_METRICS: readonly (readonly [keyof SupervisorRunSummary, OrderMetric])[] = [
  ['sweeps', OrderMetric.SupervisorSweeps],
  ['examined', OrderMetric.SupervisorRecordsExamined],
  ['resets', OrderMetric.SupervisorResets],
  ['failures', OrderMetric.SupervisorFailures],
  ['restarts', OrderMetric.SupervisorRestarts],
  ['lostRaces', OrderMetric.SupervisorLostRaces],
  ['startMessageFailures', OrderMetric.StartMessageSendFailures],
  ['alertFailures', OrderMetric.AlertPublishFailures],
  ['errors', OrderMetric.SupervisorErrors],
  ['unsupportedVersions', OrderMetric.UnsupportedRecordVersions],
  ['stoppedByBudget', OrderMetric.SupervisorBudgetExhausted],
];

export const handler = instrumentedHandler(
  observability,
  async (_event: unknown, context): Promise<SupervisorRunSummary> => {
    const correlationId = context.awsRequestId;
    const log = logger.createChild({ persistentKeys: { correlationId } });
    log.addContext(context);
    annotateTrace(tracer, { correlationId });
    const budget = timeBudget({
      clock: systemClock,
      deadlineEpochMillis: systemClock.now() + timings.supervisorBudgetSeconds * 1000,
      ...(typeof context.getRemainingTimeInMillis === 'function' && {
        liveRemainingMillis: () => context.getRemainingTimeInMillis(),
      }),
      safetyMarginMillis: INVOCATION_SAFETY_MARGIN_MILLIS,
    });
    const summary = await runSupervisor({ ...dependencies, log, correlationId }, budget, {
      sweeps: timings.supervisorSweepsPerRun,
      intervalMillis: timings.supervisorRateSeconds * 1000,
      sleep,
    });
    for (const [field, metric] of RUN_METRICS) {
      count(metric, Number(summary[field]));
    }
    log.info('Supervisor run finished', { summary });
    return summary;
  },
);
