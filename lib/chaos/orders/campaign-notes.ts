/**
 * The lines a campaign's summary adds below its verdicts: the profile's timings, the clock skew,
 * the fault rates, admission, compensation, operator actions, the alert bus and outbox, and the
 * clients' reply queues. Apart from the run so that what is said about a run reads in one place.
 */
import { OperatorRefusal, ProcessState } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import type { AlertSnapshot } from '../../harness/snapshots';
import { percentile } from '../../harness/stats';
import { formatMillis } from '../common/report';
import type { AlertBusOutageStats } from './alert-bus';
import { maxSafeRelativeSkewMillis } from './bounds';
import { HTTP_TOO_MANY_REQUESTS, type OrderCampaignRun } from './campaign-run';
import type { CampaignSetup } from './campaign-setup';
import type { CampaignSnapshot } from './campaign-snapshot';
import { type FaultEvent, OperatorPlanKind } from './faults';
import type { AlertBusOutage, OrderPlan } from './plan';

/** The summary's notes on one finished run. */
export function campaignNotes(
  setup: CampaignSetup,
  run: OrderCampaignRun,
  compensationFaultsFired: number,
): string[] {
  const { timings, skew, rates, facts, maxInFlight, plan, injector } = setup;
  const { admissionSamples, replies, probes, clientIds } = run;
  return [
    `profile timings: step timeout ${timings.stepTimeoutSeconds} s + slack ${timings.stepDeadlineSlackSeconds} s, ` +
      `maxFailures ${timings.maxFailures}, supervisor sweep every ${timings.supervisorRateSeconds / timings.supervisorSweepsPerRun} s`,
    skew.enabled
      ? `clock skew: supervisor +${skew.supervisorMillis} ms, starter -${skew.starterMillis} ms ` +
        `(relative ${skew.supervisorMillis + skew.starterMillis} ms; stated bound stepDeadlineSlack/2 = ${maxSafeRelativeSkewMillis(timings)} ms)`
      : 'clock skew: off',
    `remote transient rate ${rates.remoteTransientPerCall} per call; held replies wait ${timings.stepTimeoutSeconds * 1000 + 1000} ms`,
    `admission limit ${facts.admission.limit} (${facts.admission.shards} shards), at most ${maxInFlight} submissions outstanding; ` +
      `${run.admissionRefusals} submissions answered 429 and resubmitted after Retry-After; ` +
      `most in flight seen ${Math.max(0, ...admissionSamples.map((sample) => sample.nonTerminal))} orders, ` +
      `${Math.max(0, ...admissionSamples.map((sample) => sample.slotsHeld ?? 0))} slots`,
    `orders planned to compensate: ${plan.orders.filter((order) => order.expectedOutcome === 'Compensated').length}, ` +
      `to end CompensationFailed: ${plan.orders.filter((order) => order.expectedOutcome === 'CompensationFailed').length}; ` +
      `attempt faults planned on compensation requests: ${plan.orders.filter((order) => order.compensationFault).length}, ` +
      `fired: ${compensationFaultsFired}`,
    `SQS queues and messages persist with the data directory: a restart keeps queued and in-flight messages`,
    operatorSummary(plan.orders, run.operator.actions, run.operatorActions),
    alertSummary(
      plan.alertBusOutages,
      injector.alertBus?.stats(),
      run.alerts,
      run.undeliveredAtEnd,
      run.outboxSettleWaitMillis,
    ),
    `clients ${clientIds.join(', ')} (orders alternate): ${replies.length} status messages taken from their reply queues ` +
      `(${clientIds.map((id) => `${id} ${replies.filter((reply) => reply.queueOf === id).length}`).join(', ')}); ` +
      `${probes.filter((probe) => probe.outcome === 'AccessDenied').length} of ${probes.length} cross-client reads denied`,
  ];
}

/**
 * One summary line: the alert bus outages (windows, PutEvents failed, how long the alerts they hit
 * took to get through), what reached the inbox (copies of one AlertId collapse into one alert) and
 * any outbox entry still undelivered at the end.
 */
function alertSummary(
  outages: readonly AlertBusOutage[],
  stats: AlertBusOutageStats | undefined,
  alerts: readonly AlertSnapshot[],
  undelivered: readonly string[],
  settleWaitMillis: number,
): string {
  const withId = alerts.filter((alert) => alert.alertId !== undefined);
  const distinct = new Set(withId.map((alert) => alert.alertId)).size;
  const inbox =
    `alert inbox: ${alerts.length} alerts, ${distinct} distinct AlertIds (${withId.length - distinct} redelivered copies collapsed); ` +
    `outbox entries undelivered at the end: ${undelivered.length === 0 ? 'none' : undelivered.slice(0, 10).join(', ')} ` +
    `(waited ${formatMillis(settleWaitMillis)} after the last order was terminal for the outboxes to empty)`;
  if (stats === undefined) return `alert bus outages: off; ${inbox}`;
  const windows = outages
    .map(
      (outage) =>
        `${formatMillis(outage.durationMillis)} ${outage.failure} after ${outage.afterAlerts} alerts`,
    )
    .join(', ');
  const delays = stats.deliveryDelaysMillis;
  return (
    `alert bus outages: ${stats.windowsOpened} of ${stats.windowsPlanned} windows opened (${windows}); ` +
    `${stats.failedCalls.error + stats.failedCalls['failed-entry']} alert PutEvents failed ` +
    `(${stats.failedCalls.error} HTTP 500, ${stats.failedCalls['failed-entry']} FailedEntryCount); ` +
    `${stats.alertsHit} alerts hit, ${stats.alertsHitDelivered} delivered later ` +
    `(first failure to delivery p50 ${formatMillis(percentile(delays, 50))}, max ${formatMillis(delays.length > 0 ? Math.max(...delays) : undefined)}); ` +
    `the bus accepted ${stats.alertEntriesAccepted} alert entries for ${stats.alertsAccepted} AlertIds; ${inbox}`
  );
}

/** One summary line: the operator plans and what became of the actions sent. */
function operatorSummary(
  orders: readonly OrderPlan[],
  actions: CampaignSnapshot['operator']['actions'],
  enabled: boolean,
): string {
  if (!enabled) return 'operator actions: off';
  const planned = (kind: string) => orders.filter((order) => order.operator === kind).length;
  const count = (action: string, outcome: string, detail?: (a: (typeof actions)[number]) => boolean) =>
    actions.filter((a) => a.action === action && a.outcome === outcome && (detail?.(a) ?? true)).length;
  const fromState = (state: ProcessState) => (a: (typeof actions)[number]) => a.seenState === state;
  return (
    `operator actions: planned cancel-early ${planned(OperatorPlanKind.CancelEarly)}, cancel-processed ${planned(OperatorPlanKind.CancelProcessed)}, ` +
    `outage-retry ${planned(OperatorPlanKind.OutageRetry)}; retries applied ${count('retry', 'applied')}, refused ${count('retry', 'refused')} ` +
    `(429: ${count('retry', 'refused', (a) => a.status === HTTP_TOO_MANY_REQUESTS)}); cancels applied ${count('cancel', 'applied')} ` +
    `(from Pending ${count('cancel', 'applied', fromState(ProcessState.Pending))}, Processed ${count('cancel', 'applied', fromState(ProcessState.Processed))}, ` +
    `Error ${count('cancel', 'applied', fromState(ProcessState.Error))}), refused ${count('cancel', 'refused')} ` +
    `(NotAllowed while Processing ${count('cancel', 'refused', (a) => a.refusal === OperatorRefusal.NotAllowed && a.seenState === ProcessState.Processing)}); ` +
    `no answer ${actions.filter((a) => a.outcome === 'unknown').length}`
  );
}

/**
 * Firings that can only have hit a compensation: the kind of an order's compensationFault, on that
 * order, whose own attempt fault is another kind.
 */
export function compensationFaultFirings(
  orders: readonly OrderPlan[],
  events: readonly FaultEvent[],
): number {
  const byOrder = new Map(orders.map((order) => [order.orderId, order]));
  return events.filter((event) =>
    event.orderIds.some((orderId) => {
      const order = byOrder.get(orderId);
      return order?.compensationFault?.kind === event.kind && order.attemptFault?.kind !== event.kind;
    }),
  ).length;
}
