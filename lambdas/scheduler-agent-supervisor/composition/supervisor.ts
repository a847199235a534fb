/**
 * The supervisor composed: its adapters built on the clients it is given, with the deployment's
 * settings, and what a run does with them. The supervisor's handler composes it from its
 * environment; the tooling (the supervisor-sweep benchmark) composes it on its own metered clients
 * and runs the very same sweep, re-delivery and gauges, without reaching inside the wing.
 */

import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock, TimeBudget } from '../../shared/clock';
import { DynamoAlertOutbox } from '../adapters/alert-outbox';
import { EventBridgeAlertPublisher } from '../adapters/alert-publisher';
import { DynamoOrderGauges } from '../adapters/order-gauges';
import { SqsStartQueue } from '../adapters/start-queue';
import { DynamoStateStore } from '../adapters/state-store';
import { compensationStuckAfterSeconds, type WorkflowTimings } from '../contracts';
import { DEFAULT_GAUGE_CAP, measureOrderGauges, type OrderGauges } from '../domain/gauges';
import type { EventLog } from '../domain/ports';
import { allDueShards } from '../domain/shard';
import {
  redeliverAlerts,
  runSupervisor,
  type SupervisorDependencies,
  type SupervisorRunOptions,
  type SupervisorRunSummary,
  type SweepSummary,
  sweepDueRecords,
} from '../domain/supervisor';

export type { OrderGauges } from '../domain/gauges';
export { DEFAULT_GAUGE_CAP } from '../domain/gauges';
export type { EventLog } from '../domain/ports';
/** The back-off the supervisor gives an order before its next attempt (tooling bounds an order's life with it). */
export { backoffSecondsFor } from '../domain/supervision-rules';
export type { SupervisorRunSummary, SweepSummary } from '../domain/supervisor';

/** The SDK clients the supervisor's adapters send through (the handler's are traced). */
export interface SupervisorClients {
  readonly documents: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  readonly eventBridge: EventBridgeClient;
}

/** What the supervisor is told of its deployment. */
export interface SupervisorSettings {
  readonly stateTableName: string;
  readonly startQueueUrl: string;
  readonly alertBusName: string;
  readonly timings: WorkflowTimings;
  readonly dueShardCount: number;
  /** The workflow versions deployed here; a due record of another version is left untouched. */
  readonly liveWorkflowVersions: readonly number[];
  readonly clock: Clock;
}

/** Who a run logs as and traces its messages to. */
export interface SupervisorRunContext {
  readonly log: EventLog;
  readonly correlationId: string;
}

export interface ComposedSupervisor {
  /** One run as the schedule makes it: the re-delivery pass, then the sweeps, within the budget. */
  run(
    context: SupervisorRunContext,
    budget: TimeBudget,
    options: SupervisorRunOptions,
  ): Promise<SupervisorRunSummary>;
  /** One sweep of the DueIndex. */
  sweep(context: SupervisorRunContext, budget: TimeBudget): Promise<SweepSummary>;
  /** The alert re-delivery pass (the outbox's backstop). */
  redeliverAlerts(context: SupervisorRunContext, budget: TimeBudget): Promise<SweepSummary>;
  /** The order gauges as the handler reports them after each sweep. */
  measureGauges(now: number): Promise<OrderGauges>;
  /** The cap the gauges stop at (their values are then lower bounds). */
  readonly gaugeCap: number;
}

export function composeSupervisor(
  clients: SupervisorClients,
  settings: SupervisorSettings,
): ComposedSupervisor {
  const { documents } = clients;
  const { timings } = settings;
  const dependencies: Omit<SupervisorDependencies, 'log' | 'correlationId'> = {
    store: new DynamoStateStore(documents, settings.stateTableName),
    startQueue: new SqsStartQueue(clients.sqs, settings.startQueueUrl),
    alerts: new EventBridgeAlertPublisher(clients.eventBridge, settings.alertBusName),
    outbox: new DynamoAlertOutbox(documents, settings.stateTableName),
    ...(timings.alertRedeliveryGraceSeconds !== undefined && {
      alertRedeliveryGraceSeconds: timings.alertRedeliveryGraceSeconds,
    }),
    clock: settings.clock,
    timings,
    shards: allDueShards(settings.dueShardCount),
    liveWorkflowVersions: settings.liveWorkflowVersions,
  };
  const gaugeReader = new DynamoOrderGauges(documents, settings.stateTableName);
  const gaugeSettings = {
    compensationStuckAfterSeconds: compensationStuckAfterSeconds(timings),
    cap: DEFAULT_GAUGE_CAP,
  };
  return {
    run: (context, budget, options) => runSupervisor({ ...dependencies, ...context }, budget, options),
    sweep: (context, budget) => sweepDueRecords({ ...dependencies, ...context }, budget),
    redeliverAlerts: (context, budget) => redeliverAlerts({ ...dependencies, ...context }, budget),
    measureGauges: (now) => measureOrderGauges(gaugeReader, now, gaugeSettings),
    gaugeCap: gaugeSettings.cap,
  };
}
