/**
 * The campaign's last waits, once every order is terminal: for the status messages still on their
 * way to the clients' reply queues, and for every alert outbox to empty (an alert the relay gave up
 * on is delivered by the supervisor's backstop once its grace has passed). Each wait is bounded:
 * what is still missing at its end is named by the checker.
 */
import {
  DEFAULT_ALERT_REDELIVERY_GRACE_SECONDS,
  TERMINAL_STATES,
  type WorkflowTimings,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import type { TimedRecord } from '../../harness/orders-driver';
import type { ClientMessageDelivery } from '../../harness/snapshots';
import { MACHINE_PACE, type Pace } from '../common/loop';
import { terminalVisits } from './invariants';
import type { AlertBusOutage } from './plan';

const TERMINAL: readonly string[] = TERMINAL_STATES;
/** Beyond the backstop's grace and the longest outage window: time for a supervisor sweep or two. */
const OUTBOX_SETTLE_MARGIN_MILLIS = 30_000;
/** After the last order is terminal: status messages still on their way (stream, notifier, queue). */
const REPLY_SETTLE_MAX_MILLIS = 20_000;

/**
 * After the last order is terminal, status messages may still be on their way (the state table's
 * stream, the notifier, the queue): drain until every terminal order has as many distinct
 * messages as its transitions call for, or REPLY_SETTLE_MAX_MILLIS have passed (the checker then
 * names what is missing).
 */
export async function settleReplies(
  finalRecords: readonly TimedRecord[],
  drain: () => Promise<void>,
  taken: () => readonly ClientMessageDelivery[],
  pace: Pace = MACHINE_PACE,
): Promise<void> {
  const expected = new Map(
    finalRecords
      .filter((record) => TERMINAL.includes(record.processState))
      .map((record) => [record.orderId, 1 + terminalVisits(record).length]),
  );
  const giveUpAt = pace.now() + REPLY_SETTLE_MAX_MILLIS;
  for (;;) {
    await drain();
    const keys = new Map<string, Set<string>>();
    for (const { message } of taken()) {
      if (message)
        keys.set(message.orderId, (keys.get(message.orderId) ?? new Set()).add(message.messageKey));
    }
    const missing = [...expected].some(([orderId, count]) => (keys.get(orderId)?.size ?? 0) < count);
    if (!missing || pace.now() >= giveUpAt) return;
    await pace.sleep(1_000);
  }
}

/** The longest the campaign waits, after the last order is terminal, for every alert outbox to empty. */
export function outboxSettleMillis(timings: WorkflowTimings, outages: readonly AlertBusOutage[]): number {
  const grace = (timings.alertRedeliveryGraceSeconds ?? DEFAULT_ALERT_REDELIVERY_GRACE_SECONDS) * 1000;
  const longest = Math.max(0, ...outages.map((outage) => outage.durationMillis));
  return grace + longest + OUTBOX_SETTLE_MARGIN_MILLIS;
}

/** Polls until no record holds an undelivered alert, or maxMillis; returns the orders still holding one. */
export async function settleOutbox(
  pending: () => Promise<readonly string[]>,
  maxMillis: number,
  pace: Pace = MACHINE_PACE,
): Promise<readonly string[]> {
  const giveUpAt = pace.now() + maxMillis;
  for (;;) {
    const orderIds = await pending();
    if (orderIds.length === 0 || pace.now() >= giveUpAt) return orderIds;
    await pace.sleep(1_000);
  }
}
