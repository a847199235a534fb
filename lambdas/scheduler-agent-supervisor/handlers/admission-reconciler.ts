/**
 * Admission reconciler: invoked by an EventBridge schedule every minute (reserved concurrency 1).
 * Releases the slots of terminal records whose release was lost, found through the AdmissionIndex,
 * then reports the slots held across the counters (OrdersInFlight, the dashboard's "in flight").
 */
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { systemClock, timeBudget } from '../../shared/clock';
import { requireEnv } from '../../shared/env';
import { describeError } from '../../shared/errors';
import { annotateTrace, createObservability, instrumentedHandler } from '../../shared/observability';
import { DynamoAdmissionSlots } from '../adapters/admission-store';
import { DynamoInFlightReader } from '../adapters/order-gauges';
import { readAdmissionSettings } from '../adapters/runtime-config';
import { admissionShardKeys, EnvKey, OrderMetric } from '../contracts';
import { type ReconcileSummary, reconcileAdmission } from '../domain/admission';

/** Time kept back from the invocation's remaining time so logs and metrics still get flushed. */
const INVOCATION_SAFETY_MARGIN_MILLIS = 1_000;
/** A run's own bound: well inside the one-minute schedule, so runs never overlap for long. */
const RUN_BUDGET_MILLIS = 45_000;
const PAGE_SIZE = 100;

const observability = createObservability<OrderMetric>();
const { logger, tracer, count, gauge } = observability;
const settings = readAdmissionSettings();
const documentClient = createDocumentClient(tracer);
const admissionTable = requireEnv(EnvKey.AdmissionTableName);
const slots = new DynamoAdmissionSlots(documentClient, {
  stateTable: requireEnv(EnvKey.StateTableName),
  admissionTable,
});
const inFlight = new DynamoInFlightReader(documentClient, admissionTable);

export const handler = instrumentedHandler(
  observability,
  async (_event: unknown, context): Promise<ReconcileSummary> => {
    const correlationId = context.awsRequestId;
    const log = logger.createChild({ persistentKeys: { correlationId } });
    log.addContext(context);
    annotateTrace(tracer, { correlationId });
    const budget = timeBudget({
      clock: systemClock,
      deadlineEpochMillis: systemClock.now() + RUN_BUDGET_MILLIS,
      ...(typeof context.getRemainingTimeInMillis === 'function' && {
        liveRemainingMillis: () => context.getRemainingTimeInMillis(),
      }),
      safetyMarginMillis: INVOCATION_SAFETY_MARGIN_MILLIS,
    });
    const summary = await reconcileAdmission(
      {
        index: slots,
        releaser: slots,
        clock: systemClock,
        shardKeys: admissionShardKeys(settings.shards),
        graceSeconds: settings.reconcileGraceSeconds,
        pageSize: PAGE_SIZE,
        log,
      },
      budget,
    );
    count(OrderMetric.AdmissionReleasesReconciled, summary.released);
    try {
      gauge(OrderMetric.OrdersInFlight, await inFlight.slotsHeld(admissionShardKeys(settings.shards)));
    } catch (error) {
      log.error('Orders in flight not measured', { error: describeError(error) });
    }
    log.info('Admission reconciler run finished', { summary });
    return summary;
  },
);
