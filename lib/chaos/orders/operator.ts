/**
 * The campaign as operator (operator-actions): while the other faults fire it retries orders that
 * reach Error and cancels the orders its plan names, through the signed operator routes, always
 * with the state and UpdatedAt it just read, exactly as a person at the CLI would. Every action
 * sent is kept with its answer, for the checker (operator-actions-logged).
 *
 * What it does, per order:
 * - Error, no cancel planned: retried (an OUTAGE order after its outage is ended through the
 *   ledger); a 409 StateChanged is read again and retried, a 429 waits for its Retry-After. Not a
 *   remote-outage order: that outage lasts the whole run, a retry would only fail again. At most
 *   MAX_RETRIES_PER_ORDER retries.
 * - cancel-early: cancelled from the first state read after acceptance, and again until applied:
 *   Pending races the starter (StateChanged when it claimed first); Processing is refused
 *   NotAllowed (sent at most NOT_ALLOWED_PROBES times, then the actor waits for the attempt to
 *   settle); Error and Processed allow it.
 * - cancel-processed: cancelled once Processed (or Error, which allows it too).
 */
import {
  type OperatorAction,
  OperatorRefusal,
  ORDER_STEPS,
  ProcessState,
  TERMINAL_STATES,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import type { SystemDriver, TimedRecord } from '../../harness/orders-driver';
import type { Pace } from '../common/loop';
import type { OperatorActionSnapshot } from './campaign-snapshot';
import { FaultKind, OperatorPlanKind } from './faults';
import { idempotencyKeyFor, type OrderPlan } from './plan';

export interface OperatorActorSettings {
  readonly orders: readonly OrderPlan[];
  /** The driver of the runtime now up (a restart replaces it). */
  readonly driver: () => SystemDriver;
  /** True while the runtime restarts: nothing is sent then. */
  readonly paused: () => boolean;
  /** An action was applied (the kind fired); `fromTerminal`: the order is in flight again. */
  readonly applied: (orderId: string, fromTerminal: boolean) => void;
  readonly log: (line: string) => void;
  /** A task gives up after this long (the order is then judged as it stands). */
  readonly giveUpMillis: number;
  /** The harness's pace (RunClock.pace): its polls, waits and patience, and its actions' times. */
  readonly pace: Pace;
}

const MAX_RETRIES_PER_ORDER = 2;
const NOT_ALLOWED_PROBES = 2;
const POLL_MILLIS = 500;
const TERMINAL: readonly string[] = TERMINAL_STATES;
const HTTP_OK = 200;
const HTTP_CONFLICT = 409;
const HTTP_TOO_MANY_REQUESTS = 429;
/** Where the fake plays OUTAGE (payment only): the key whose outage the campaign ends. */
const OUTAGE_STEP = ORDER_STEPS.find((step) => step.service === 'payment');

export class OperatorActor {
  readonly actions: OperatorActionSnapshot[] = [];
  private readonly ordersById: ReadonlyMap<string, OrderPlan>;
  private readonly busy = new Map<string, Promise<void>>();
  private readonly retries = new Map<string, number>();
  private readonly cancelled = new Set<string>();
  /** Cancelled from a terminal state: being rolled back without an admission slot (cancel takes none). */
  private readonly withoutSlot = new Set<string>();
  /** The UpdatedAt each order's last applied action was conditional on. */
  private readonly appliedFrom = new Map<string, string>();
  private sequence = 0;

  constructor(private readonly settings: OperatorActorSettings) {
    this.ordersById = new Map(settings.orders.map((order) => [order.orderId, order]));
  }

  /** The order was accepted: a cancel-early starts at once. */
  accepted(orderId: string): void {
    if (this.ordersById.get(orderId)?.operator === OperatorPlanKind.CancelEarly) {
      this.start(orderId, () => this.cancel(orderId, true));
    }
  }

  /** A record the sampler read: an order that just reached Error or Processed may need an action. */
  observe(record: TimedRecord): void {
    const order = this.ordersById.get(record.orderId);
    if (!order || this.busy.has(order.orderId) || this.cancelled.has(order.orderId) || this.isStale(record))
      return;
    const cancels =
      order.operator === OperatorPlanKind.CancelEarly || order.operator === OperatorPlanKind.CancelProcessed;
    if (record.processState === ProcessState.Error) {
      if (cancels) this.start(order.orderId, () => this.cancel(order.orderId, false));
      else if (this.mayRetry(order)) this.start(order.orderId, () => this.retry(order));
    } else if (record.processState === ProcessState.Processed && cancels) {
      this.start(order.orderId, () => this.cancel(order.orderId, false));
    }
  }

  /** Actions under way (the campaign waits for them before it ends). */
  get working(): number {
    return this.busy.size;
  }

  /**
   * The record as it was when an action applied to it was sent (a read that raced the action):
   * it says nothing about the order now.
   */
  isStale(record: TimedRecord): boolean {
    return (
      record.updatedAtText !== undefined && this.appliedFrom.get(record.orderId) === record.updatedAtText
    );
  }

  /** Orders cancelled from a terminal state: they hold no admission slot while rolled back. */
  holdsNoSlot(orderId: string): boolean {
    return this.withoutSlot.has(orderId);
  }

  async idle(): Promise<void> {
    while (this.busy.size > 0) await Promise.all([...this.busy.values()]);
  }

  private mayRetry(order: OrderPlan): boolean {
    if (order.attemptFault?.kind === FaultKind.RemoteOutage) return false;
    return (this.retries.get(order.orderId) ?? 0) < MAX_RETRIES_PER_ORDER;
  }

  private start(orderId: string, task: () => Promise<void>): void {
    const running = task()
      .catch((error: Error) =>
        this.settings.log(`[chaos] operator action on ${orderId} failed: ${error.message}`),
      )
      .finally(() => this.busy.delete(orderId));
    this.busy.set(orderId, running);
  }

  private async read(orderId: string): Promise<TimedRecord | undefined> {
    for (;;) {
      if (this.settings.paused()) {
        await this.settings.pace.sleep(200);
        continue;
      }
      try {
        return (await this.settings.driver().records([orderId]))[0];
      } catch {
        // The runtime may be going down for a restart: read again once it is back.
        await this.settings.pace.sleep(POLL_MILLIS);
      }
    }
  }

  private async retry(order: OrderPlan): Promise<void> {
    const { orderId } = order;
    this.retries.set(orderId, (this.retries.get(orderId) ?? 0) + 1);
    if (order.operator === OperatorPlanKind.OutageRetry && OUTAGE_STEP) {
      await this.whenUp(() =>
        this.settings.driver().endOutage(OUTAGE_STEP.service, idempotencyKeyFor(orderId, OUTAGE_STEP.name)),
      );
    }
    const giveUpAt = this.settings.pace.now() + this.settings.giveUpMillis;
    while (this.settings.pace.now() < giveUpAt) {
      const record = await this.read(orderId);
      if (record?.processState !== ProcessState.Error) return;
      const answer = await this.send('retry', record, 'the failing downstream is back');
      if (answer === 'applied' || answer === OperatorRefusal.NotAllowed) return;
      if (typeof answer === 'number') await this.settings.pace.sleep(answer);
      else await this.settings.pace.sleep(answer === OperatorRefusal.StateChanged ? 0 : POLL_MILLIS);
    }
    this.settings.log(`[chaos] gave up retrying ${orderId}`);
  }

  private async cancel(orderId: string, early: boolean): Promise<void> {
    let notAllowedProbes = 0;
    const giveUpAt = this.settings.pace.now() + this.settings.giveUpMillis;
    while (this.settings.pace.now() < giveUpAt) {
      const record = await this.read(orderId);
      if (!record) {
        await this.settings.pace.sleep(POLL_MILLIS);
        continue;
      }
      const state = record.processState;
      const allowed =
        state === ProcessState.Error ||
        state === ProcessState.Processed ||
        (early && state === ProcessState.Pending);
      const probe = early && state === ProcessState.Processing && notAllowedProbes < NOT_ALLOWED_PROBES;
      if (!allowed && !probe) {
        // Rolled back (or rolling back) already, e.g. after an answer that never came: done.
        if (TERMINAL.includes(state) || state === ProcessState.CompensationInProgress) return;
        await this.settings.pace.sleep(POLL_MILLIS);
        continue;
      }
      if (probe) notAllowedProbes += 1;
      const answer = await this.send(
        'cancel',
        record,
        early ? 'customer withdrew the order' : 'order cancelled after delivery',
      );
      if (answer === 'applied') return;
      await this.settings.pace.sleep(answer === OperatorRefusal.StateChanged ? 0 : POLL_MILLIS);
    }
    this.settings.log(`[chaos] gave up cancelling ${orderId}`);
  }

  /**
   * Sends one action conditional on the record as read, and keeps it with its answer. Returns
   * 'applied', the 409's refusal, a 429's Retry-After in ms, or 'unknown' (no usable answer).
   */
  private async send(
    action: OperatorAction,
    record: TimedRecord,
    why: string,
  ): Promise<'applied' | 'unknown' | OperatorRefusal | number> {
    this.sequence += 1;
    const reason = `chaos operator #${this.sequence}: ${why}`;
    const seen = { seenState: record.processState, seenUpdatedAt: record.updatedAtText ?? '?' };
    const base = { orderId: record.orderId, action, reason, ...seen, at: this.settings.pace.now() };
    if (this.settings.paused()) return 'unknown';
    let status: number;
    let body: Record<string, unknown>;
    let retryAfterMillis: number | undefined;
    try {
      ({ status, body, retryAfterMillis } = await this.settings.driver().operate(action, record.orderId, {
        reason,
        expectedState: record.processState as ProcessState,
        expectedUpdatedAt: seen.seenUpdatedAt,
      }));
    } catch {
      this.actions.push({ ...base, outcome: 'unknown' });
      return 'unknown';
    }
    if (status === HTTP_OK) {
      this.actions.push({ ...base, outcome: 'applied', status });
      this.appliedFrom.set(record.orderId, seen.seenUpdatedAt);
      const fromTerminal = TERMINAL.includes(record.processState);
      if (action === 'cancel') {
        this.cancelled.add(record.orderId);
        if (fromTerminal) this.withoutSlot.add(record.orderId);
      }
      this.settings.applied(record.orderId, fromTerminal);
      return 'applied';
    }
    if (status === HTTP_CONFLICT) {
      const refusal = String(body.refusal ?? '?');
      this.actions.push({ ...base, outcome: 'refused', status, refusal });
      return refusal === OperatorRefusal.NotAllowed
        ? OperatorRefusal.NotAllowed
        : OperatorRefusal.StateChanged;
    }
    if (status === HTTP_TOO_MANY_REQUESTS) {
      this.actions.push({ ...base, outcome: 'refused', status });
      return retryAfterMillis ?? 1_000;
    }
    // A 5xx may or may not have written: judged neither way.
    this.actions.push({ ...base, outcome: 'unknown', status });
    return 'unknown';
  }

  private async whenUp(work: () => Promise<void>): Promise<void> {
    for (;;) {
      if (!this.settings.paused()) {
        try {
          return await work();
        } catch {
          // a restart under way: try again once it is back
        }
      }
      await this.settings.pace.sleep(200);
    }
  }
}
