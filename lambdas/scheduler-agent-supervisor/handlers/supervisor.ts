/**
 * Supervisor: invoked by an EventBridge schedule every supervisorRateSeconds (reserved concurrency
 * 1). Each invocation makes supervisorSweepsPerRun sweeps of the DueIndex spread across the rate,
 * within a time budget: the tighter of supervisorBudgetSeconds and the invocation's remaining time.
 */
import type { Context } from 'aws-lambda';
import { createDocumentClient, createEventBridgeClient, createSqsClient } from '../../shared/aws-clients';
import { sleep, systemClock, timeBudget } from '../../shared/clock';
import { requireEnv } from '../../shared/env';
import { countMetric, createLogger, createMetrics, publishMetrics } from '../../shared/observability';
import { EventBridgeAlertPublisher } from '../adapters/alert-publisher';
import { readDueShardCount, readWorkflowTimings } from '../adapters/runtime-config';
import { SqsStartQueue } from '../adapters/start-queue';
import { DynamoStateStore } from '../adapters/state-store';
import { EnvKey, OrderMetric } from '../contracts';
import { allDueShards } from '../domain/shard';
import { runSupervisor, type SupervisorDependencies, type SupervisorRunSummary } from '../domain/supervisor';

/** Time kept back from the invocation's remaining time so logs and metrics still get flushed. */
export const INVOCATION_SAFETY_MARGIN_MILLIS = 1_000;

const logger = createLogger('supervisor');
const metrics = createMetrics('supervisor');
const timings = readWorkflowTimings();

const dependencies: Omit<SupervisorDependencies, 'log' | 'correlationId'> = {
  store: new DynamoStateStore(createDocumentClient(), requireEnv(EnvKey.StateTableName)),
  startQueue: new SqsStartQueue(createSqsClient(), requireEnv(EnvKey.StartQueueUrl)),
  alerts: new EventBridgeAlertPublisher(createEventBridgeClient(), requireEnv(EnvKey.AlertBusName)),
  clock: systemClock,
  timings,
  shards: allDueShards(readDueShardCount()),
};

export const handler = async (_event: unknown, context: Context): Promise<SupervisorRunSummary> => {
  const correlationId = context.awsRequestId;
  const log = logger.createChild({ persistentKeys: { correlationId } });
  log.addContext(context);
  const budget = timeBudget({
    clock: systemClock,
    deadlineEpochMillis: systemClock.now() + timings.supervisorBudgetSeconds * 1000,
    ...(typeof context.getRemainingTimeInMillis === 'function' && {
      liveRemainingMillis: () => context.getRemainingTimeInMillis(),
    }),
    safetyMarginMillis: INVOCATION_SAFETY_MARGIN_MILLIS,
  });
  try {
    const summary = await runSupervisor({ ...dependencies, log, correlationId }, budget, {
      sweeps: timings.supervisorSweepsPerRun,
      intervalMillis: timings.supervisorRateSeconds * 1000,
      sleep,
    });
    countMetric(metrics, OrderMetric.SupervisorSweeps, summary.sweeps);
    countMetric(metrics, OrderMetric.SupervisorRecordsExamined, summary.examined);
    countMetric(metrics, OrderMetric.SupervisorResets, summary.resets);
    countMetric(metrics, OrderMetric.SupervisorFailures, summary.failures);
    countMetric(metrics, OrderMetric.SupervisorRestarts, summary.restarts);
    countMetric(metrics, OrderMetric.SupervisorLostRaces, summary.lostRaces);
    countMetric(metrics, OrderMetric.StartMessageSendFailures, summary.startMessageFailures);
    countMetric(metrics, OrderMetric.AlertPublishFailures, summary.alertFailures);
    countMetric(metrics, OrderMetric.SupervisorErrors, summary.errors);
    countMetric(metrics, OrderMetric.SupervisorBudgetExhausted, summary.stoppedByBudget ? 1 : 0);
    log.info('Supervisor run finished', { summary });
    return summary;
  } finally {
    publishMetrics(metrics);
  }
};
