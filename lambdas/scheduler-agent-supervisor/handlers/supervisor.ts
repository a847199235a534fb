/**
 * Supervisor: invoked by an EventBridge schedule every supervisorRateSeconds (reserved concurrency
 * 1). Each invocation makes supervisorSweepsPerRun sweeps of the DueIndex spread across the rate,
 * within a time budget: the tighter of supervisorBudgetSeconds and the invocation's remaining time.
 * After each sweep it measures the order gauges and flushes that sweep's metrics, so the
 * "supervisor not running" alarm and the gauges' alarms get data every sweep, not once a run.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { createEventBridgeClient } from '../../shared/aws-clients/eventbridge';
import { createSqsClient } from '../../shared/aws-clients/sqs';
import { sleep, systemClock, timeBudget } from '../../shared/clock';
import { requireEnv } from '../../shared/env';
import { describeError } from '../../shared/errors';
import {
  annotateTrace,
  createObservability,
  instrumentedHandler,
  publishMetrics,
} from '../../shared/observability';
import {
  readDueShardCount,
  readWorkflowStateMachines,
  readWorkflowTimings,
} from '../adapters/runtime-config';
import { composeSupervisor, type SupervisorRunSummary, type SweepSummary } from '../composition/supervisor';
import { EnvKey, OrderMetric } from '../contracts';
import type { EventLog } from '../domain/ports';

/** Time kept back from the invocation's remaining time so logs and metrics still get flushed. */
export const INVOCATION_SAFETY_MARGIN_MILLIS = 1_000;

const observability = createObservability<OrderMetric>();
const { logger, tracer, metrics, count, gauge } = observability;
const timings = readWorkflowTimings();
const supervisor = composeSupervisor(
  {
    documents: createDocumentClient(tracer),
    sqs: createSqsClient(tracer),
    eventBridge: createEventBridgeClient(tracer),
  },
  {
    stateTableName: requireEnv(EnvKey.StateTableName),
    startQueueUrl: requireEnv(EnvKey.StartQueueUrl),
    alertBusName: requireEnv(EnvKey.AlertBusName),
    timings,
    dueShardCount: readDueShardCount(),
    liveWorkflowVersions: [...readWorkflowStateMachines().keys()],
    clock: systemClock,
  },
);

/**
 * The metric each counter of a sweep, or of the alert re-delivery pass, is reported as
 * (SupervisorSweeps: 1 per sweep, counted by reportSweep only).
 */
const SWEEP_METRICS: readonly (readonly [keyof SweepSummary, OrderMetric])[] = [
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

function countSummary(summary: SweepSummary): void {
  for (const [field, metric] of SWEEP_METRICS) {
    count(metric, Number(summary[field]));
  }
}

/**
 * Reports the alert re-delivery pass (the outbox's backstop) and flushes: its AlertPublishFailures
 * reach the alarm now, not after the sweeps.
 */
async function reportRedelivery(redelivery: SweepSummary): Promise<void> {
  countSummary(redelivery);
  publishMetrics(metrics);
}

/** Reports one sweep: its counters, the gauges measured now, then a flush of both. */
async function reportSweep(sweep: SweepSummary, log: EventLog): Promise<void> {
  count(OrderMetric.SupervisorSweeps);
  countSummary(sweep);
  try {
    const gauges = await supervisor.measureGauges(systemClock.now());
    gauge(OrderMetric.OrdersInError, gauges.ordersInError);
    gauge(OrderMetric.CompensationsStuck, gauges.compensationsStuck);
    gauge(OrderMetric.OldestInFlightAgeSeconds, gauges.oldestInFlightAgeSeconds, MetricUnit.Seconds);
    if (gauges.capped.length > 0) {
      log.warn('Gauges stopped at their cap; their values are lower bounds', {
        capped: gauges.capped,
        cap: supervisor.gaugeCap,
      });
    }
  } catch (error) {
    // No reading is better than a wrong one: the gauges' alarms keep their state on missing data.
    count(OrderMetric.SupervisorErrors);
    log.error('Order gauges not measured', { error: describeError(error) });
  }
  publishMetrics(metrics);
}

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
    let budgetReported = false;
    const summary = await supervisor.run({ log, correlationId }, budget, {
      sweeps: timings.supervisorSweepsPerRun,
      intervalMillis: timings.supervisorRateSeconds * 1000,
      sleep,
      afterRedelivery: (redelivery) => {
        budgetReported ||= redelivery.stoppedByBudget;
        return reportRedelivery(redelivery);
      },
      afterSweep: (sweep) => {
        budgetReported ||= sweep.stoppedByBudget;
        return reportSweep(sweep, log);
      },
    });
    if (summary.stoppedByBudget && !budgetReported) {
      // The budget ran out between sweeps: no sweep reported it.
      count(OrderMetric.SupervisorBudgetExhausted);
    }
    log.info('Supervisor run finished', { summary });
    return summary;
  },
);
