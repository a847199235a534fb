/**
 * One order campaign while it runs: the runtime and its driver (replaced at the restart), the
 * orders submitted with a bounded number outstanding, the sampler that reads the state store, the
 * alerts and the client replies, the operator actor, and what all of them saw, gathered at the end
 * into the snapshot the checker judges. Each phase is a method, in the order runCampaign calls
 * them: start, submitAll, awaitTheEnd, stopSampling, finish.
 */
import { rmSync } from 'node:fs';
import { TERMINAL_STATES } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { SystemDriver, type TimedRecord } from '../../harness/orders-driver';
import type { AlertSnapshot, ClientMessageDelivery, ReplyQueueProbe } from '../../harness/snapshots';
import type { LocalRuntime } from '../../local-runtime';
import { appDenials } from '../common/iam-denials';
import {
  CampaignTracker,
  CLOCK_STOOD_STILL,
  startSampler,
  submitUntilAnswered,
  waitOnTheRunsClock,
} from '../common/loop';
import { formatMillis } from '../common/report';
import { restartOnTheClock } from '../common/restart-on-the-clock';
import type { CampaignOptions } from './campaign-options';
import { outboxSettleMillis, settleOutbox, settleReplies } from './campaign-settle';
import type { CampaignSetup } from './campaign-setup';
import type { AdmissionSample, CampaignSnapshot, OrderOutcome, RecordSample } from './campaign-snapshot';
import { FAULT_KINDS, FaultKind } from './faults';
import { OperatorActor } from './operator';
import type { OrderPlan } from './plan';

const SAMPLE_INTERVAL_MILLIS = 1_000;
const SUBMIT_GIVE_UP_MILLIS = 5 * 60_000;
/** After the last order is terminal: alerts published right after the transition still arrive. */
const ALERT_SETTLE_MILLIS = 3_000;
const TERMINAL: readonly string[] = TERMINAL_STATES;
export const HTTP_TOO_MANY_REQUESTS = 429;
/** SQS FIFO's deduplication window: a resend within it is dropped by the queue. */
const FIFO_DEDUPLICATION_WINDOW_MILLIS = 5 * 60_000;

export class OrderCampaignRun {
  /** Every client's id, in the Clients output's order: orders alternate between them. */
  readonly clientIds: readonly string[];
  readonly replies: ClientMessageDelivery[] = [];
  readonly probes: ReplyQueueProbe[] = [];
  readonly tracker: CampaignTracker;
  readonly samples: RecordSample[] = [];
  readonly admissionSamples: AdmissionSample[] = [];
  readonly refusedAfterAcceptance: string[] = [];
  admissionRefusals = 0;
  readonly alerts: AlertSnapshot[] = [];
  /** Orders an operator action took out of a terminal state, and when: their bound counts from there. */
  readonly reopenedAt = new Map<string, number>();
  readonly operatorActions: boolean;
  readonly operator: OperatorActor;
  /** Orders still holding an undelivered alert when the campaign stopped waiting for them. */
  undeliveredAtEnd: readonly string[] = [];
  outboxSettleWaitMillis = 0;
  private readonly lastSampleKey = new Map<string, string>();
  private restarting = false;
  private readonly sampler: { stop(): Promise<void> };

  private constructor(
    private readonly setup: CampaignSetup,
    private readonly options: CampaignOptions,
    private runtime: LocalRuntime,
    private driver: SystemDriver,
    started: number,
  ) {
    const { plan, bound, injector, enabledKinds, log } = setup;
    this.clientIds = driver.clients.map((client) => client.clientId);
    this.tracker = new CampaignTracker(
      plan.orders.map((order) => order.orderId),
      {
        boundMillis: bound.totalMillis,
        now: setup.now,
        startedAt: started,
        intervalMillis: options.progressIntervalMillis ?? 5000,
        log,
        kinds: FAULT_KINDS,
        firedCount: (kind) => injector.firedCount(kind as FaultKind),
      },
    );
    this.operatorActions = enabledKinds.includes(FaultKind.OperatorActions);
    this.operator = new OperatorActor({
      orders: plan.orders,
      driver: () => this.driver,
      paused: () => this.restarting,
      applied: (orderId, fromTerminal) => {
        injector.record(FaultKind.OperatorActions, [orderId]);
        if (!fromTerminal) return;
        // Out of a terminal state: in flight again, and the bound counts from here.
        this.reopenedAt.set(orderId, this.setup.now());
        this.tracker.of(orderId).terminalAt = undefined;
      },
      log,
      giveUpMillis: bound.totalMillis,
      pace: setup.pace,
    });
    this.sampler = startSampler(
      () => this.sampleOnce(),
      () => this.restarting,
      SAMPLE_INTERVAL_MILLIS,
      log,
      setup.pace,
    );
  }

  /** Starts the runtime, probes the reply queues across clients, and starts sampling. */
  static async start(
    setup: CampaignSetup,
    options: CampaignOptions,
    started: number,
  ): Promise<OrderCampaignRun> {
    const { plan, seed, maxInFlight, facts, bound, functionLogDir, log } = setup;
    log(
      `[chaos] ${plan.orders.length} orders, seed ${seed}, at most ${maxInFlight} in flight ` +
        `(admission limit ${facts.admission.limit}); ` +
        `terminal bound ${formatMillis(bound.totalMillis)}; logs in ${functionLogDir}`,
    );
    const runtime = await setup.startRuntime();
    const driver = new SystemDriver(runtime.target, setup.clock);
    const clientIds = driver.clients.map((client) => client.clientId);
    const probes: ReplyQueueProbe[] = [];
    await probeReplyQueues(driver, clientIds, probes);
    const run = new OrderCampaignRun(setup, options, runtime, driver, started);
    run.probes.push(...probes);
    return run;
  }

  /** The client an order is submitted as: its status messages must reach that client's queue only. */
  clientOf(order: OrderPlan): string {
    return this.clientIds[order.index % this.clientIds.length] as string;
  }

  /** Submits every planned order, at most maxInFlight outstanding, restarting the runtime once mid-way. */
  async submitAll(): Promise<void> {
    const { plan, enabledKinds, maxInFlight } = this.setup;
    const restartAt = enabledKinds.includes(FaultKind.RuntimeRestart)
      ? Math.max(1, Math.floor(plan.orders.length * (this.options.restartAfterShare ?? 0.5)))
      : Number.POSITIVE_INFINITY;
    const submitting = new Set<Promise<void>>();
    for (let next = 0; next < plan.orders.length; ) {
      this.tracker.printProgress();
      if (next >= restartAt && this.tracker.restarts.length === 0) await this.restart();
      if (this.tracker.occupying() + submitting.size >= maxInFlight) {
        await this.setup.pace.sleep(100);
        continue;
      }
      const order = plan.orders[next] as OrderPlan;
      next += 1;
      const submission: Promise<void> = this.submitOne(order).finally(() => submitting.delete(submission));
      submitting.add(submission);
    }
    await Promise.all(submitting);
  }

  /**
   * Waits for every order to be terminal within its bound (operator actions reopen some: the bound
   * then counts from the last), then for every alert outbox to empty (an alert the relay gave up on
   * is delivered by the supervisor's backstop once its grace has passed).
   */
  async awaitTheEnd(): Promise<void> {
    const { bound, timings, plan } = this.setup;
    const waitUntil =
      this.tracker.lastAcceptedAt() +
      bound.totalMillis +
      this.tracker.downtimeMillis() +
      SAMPLE_INTERVAL_MILLIS * 2;
    const cappedByWall = await waitOnTheRunsClock(
      () => this.tracker.inFlightIds().length > 0 || this.operator.working > 0,
      this.setup,
      () => Math.max(waitUntil, Math.max(0, ...this.reopenedAt.values()) + bound.totalMillis),
      () => this.tracker.printProgress(),
    );
    if (cappedByWall) this.setup.log(CLOCK_STOOD_STILL);
    const settleStarted = Date.now();
    this.undeliveredAtEnd = await settleOutbox(
      () => this.driver.ordersWithUndeliveredAlerts(),
      outboxSettleMillis(timings, plan.alertBusOutages),
      this.setup.pace,
    );
    this.outboxSettleWaitMillis = Date.now() - settleStarted;
    await this.setup.pace.sleep(ALERT_SETTLE_MILLIS);
  }

  /** Stops the sampler and lets go of every reply the injector still holds. */
  async stopSampling(): Promise<void> {
    await this.sampler.stop();
    this.setup.injector.cancelHeldReplies();
  }

  /** The final reads (records, alerts, replies, ledger), the runtime stopped, and the snapshot. */
  async finish(): Promise<CampaignSnapshot> {
    const { driver, setup } = this;
    this.alerts.push(...(await driver.drainAlerts()));
    const finalRecords = await driver.allRecords();
    await settleReplies(
      finalRecords,
      () => this.drainReplies(),
      () => this.replies,
      setup.pace,
    );
    await probeReplyQueues(driver, this.clientIds, this.probes);
    const { effects: ledger, undos, calls } = await driver.ledgerContents();
    const finishedAt = setup.now();
    for (const record of finalRecords) this.observe(record, finishedAt);
    this.tracker.printProgress(true);
    setup.endTrace();
    driver.close();
    await this.runtime.stop();
    if (!this.options.keepData) rmSync(setup.dataDir, { recursive: true, force: true });
    return {
      timings: setup.timings,
      terminalBoundMillis: setup.bound.totalMillis,
      orders: this.outcomes(),
      finalRecords: finalRecords.map(({ updatedAt: _updatedAt, ...record }) => record),
      samples: this.samples,
      ledger,
      undos,
      calls,
      retryBudget: setup.facts.retryBudget,
      appDenials: appDenials(setup.iamRecordDirs),
      admission: {
        limit: setup.facts.admission.limit,
        samples: this.admissionSamples,
        refusedAfterAcceptance: this.refusedAfterAcceptance,
      },
      alerts: this.alerts,
      faults: setup.injector.events,
      enabledKinds: setup.enabledKinds,
      restarts: this.tracker.restarts,
      minProcessedShare: this.options.minProcessedShare ?? 0.6,
      operator: { identity: driver.operatorIdentity, actions: this.operator.actions },
      clientMessages: {
        clients: this.clientIds,
        deliveries: this.replies,
        probes: this.probes,
        deduplicationWindowMillis: FIFO_DEDUPLICATION_WINDOW_MILLIS,
      },
    };
  }

  /** Each planned order's way through the run, as the checker reads it. */
  private outcomes(): OrderOutcome[] {
    return this.setup.plan.orders.map((order) => {
      const state = this.tracker.of(order.orderId);
      return {
        orderId: order.orderId,
        mustFail: order.mustFail,
        ...(order.expectedOutcome !== undefined
          ? { expectedOutcome: order.expectedOutcome, failingStep: order.attemptFault?.step }
          : {}),
        ...(state.acceptedAt !== undefined ? { acceptedAt: state.acceptedAt } : {}),
        ...(state.terminalAt !== undefined ? { terminalAt: state.terminalAt } : {}),
        clientId: this.clientOf(order),
        ...(this.reopenedAt.has(order.orderId) ? { reopenedAt: this.reopenedAt.get(order.orderId) } : {}),
      };
    });
  }

  private async drainReplies(): Promise<void> {
    for (const clientId of this.clientIds) this.replies.push(...(await this.driver.drainReplies(clientId)));
  }

  /** Keeps a sample when the record changed, and the time it became terminal. */
  private observe(record: TimedRecord, now: number): void {
    const order = this.tracker.subjects.get(record.orderId);
    if (!order) return;
    const sampleKey = `${record.processState}|${record.lockedBy ?? ''}|${record.failureCount}|${record.attempt}`;
    if (sampleKey !== this.lastSampleKey.get(record.orderId)) {
      this.lastSampleKey.set(record.orderId, sampleKey);
      this.samples.push({ ...record, at: now });
    }
    // A read that raced an operator action shows the terminal state the action just left.
    if (
      TERMINAL.includes(record.processState) &&
      order.terminalAt === undefined &&
      !this.operator.isStale(record)
    ) {
      const written = record.updatedAt ?? now;
      const from = Math.max(order.acceptedAt ?? written, this.reopenedAt.get(record.orderId) ?? 0);
      order.terminalAt = Math.min(now, Math.max(from, written));
    }
  }

  /** One tick of the sampler: the records in flight, the admission slots, alerts and replies. */
  private async sampleOnce(): Promise<void> {
    const now = this.setup.now();
    const records = await this.driver.records(this.tracker.inFlightIds());
    for (const record of records) {
      this.observe(record, now);
      if (this.operatorActions) this.operator.observe(record);
    }
    const slotsHeld = await this.driver.admissionSlotsHeld(this.setup.facts.admission.shards);
    this.admissionSamples.push({
      at: now,
      // An order cancelled from a terminal state is rolled back without a slot (a cancel takes none).
      nonTerminal: records.filter(
        (record) => !TERMINAL.includes(record.processState) && !this.operator.holdsNoSlot(record.orderId),
      ).length,
      slotsHeld,
    });
    this.alerts.push(...(await this.driver.drainAlerts()));
    await this.drainReplies();
  }

  /**
   * Admission refused a submission: the fault fired. Once per refused order, an order already
   * accepted and still in flight is submitted again, identically: it must be answered as accepted
   * (accepted work is never refused later), never 429.
   */
  private async admissionRefused(order: OrderPlan): Promise<void> {
    const { injector, admissionPressure, plan } = this.setup;
    this.admissionRefusals += 1;
    if (!injector.firstTime(FaultKind.AdmissionPressure, order.orderId)) return;
    // A limit below the submissions outstanding is the fault; without the kind a 429 is still
    // honoured and probed, just not counted as fired.
    if (admissionPressure) injector.record(FaultKind.AdmissionPressure, [order.orderId]);
    const acceptedId = this.tracker.inFlightIds()[0];
    const accepted = plan.orders.find((candidate) => candidate.orderId === acceptedId);
    if (!accepted || this.restarting) return;
    const again = await this.driver.submit(accepted.request, this.clientOf(accepted));
    if (again.kind === 'retry' && again.status === HTTP_TOO_MANY_REQUESTS) {
      this.refusedAfterAcceptance.push(
        `${accepted.orderId}: accepted, then refused 429 when submitted again`,
      );
    } else if (again.kind === 'refused') {
      this.refusedAfterAcceptance.push(
        `${accepted.orderId}: accepted, then refused ${again.status} when submitted again`,
      );
    }
  }

  /** Stops the runtime with orders in flight and starts it again on the same data directory. */
  private async restart(): Promise<void> {
    const { injector, log } = this.setup;
    this.restarting = true;
    const hit = this.tracker.inFlightIds();
    this.alerts.push(...(await this.driver.drainAlerts()));
    await this.drainReplies();
    const lastDrainAt = this.setup.now();
    // wall clock: how long the restart took, as the log tells it
    const restartStarted = Date.now();
    log(`[chaos] restarting the runtime with ${hit.length} orders in flight (same data directory) ...`);
    const stoppedAt = await restartOnTheClock(
      this.setup.clock,
      () => this.runtime.stop(),
      async () => {
        this.driver.close();
        injector.record(FaultKind.RuntimeRestart, hit);
        this.runtime = await this.setup.startRuntime();
        this.driver = new SystemDriver(this.runtime.target, this.setup.clock);
      },
    );
    const readyAt = this.setup.now();
    this.tracker.restarts.push({ lastDrainAt, stoppedAt, readyAt });
    log(`[chaos] runtime back after ${formatMillis(Date.now() - restartStarted)}`);
    this.restarting = false;
  }

  /** Submits one order until it is accepted or refused for good (429s resubmitted after Retry-After). */
  private async submitOne(order: OrderPlan): Promise<void> {
    const state = this.tracker.of(order.orderId);
    const refusals: Promise<void>[] = [];
    const result = await submitUntilAnswered(
      () => this.driver.submit(order.request, this.clientOf(order)),
      () => this.restarting,
      SUBMIT_GIVE_UP_MILLIS,
      this.setup,
      (outcome) => {
        if (outcome.status === HTTP_TOO_MANY_REQUESTS) refusals.push(this.admissionRefused(order));
      },
    );
    await Promise.all(refusals);
    if ('acceptedAt' in result) {
      state.acceptedAt = result.acceptedAt;
      if (this.operatorActions) this.operator.accepted(order.orderId);
      return;
    }
    state.refused = result.refused;
    this.setup.log(`[chaos] ${order.orderId} refused: ${state.refused}`);
  }
}

/** Every client reads every other client's reply queue once: each read must be denied. */
async function probeReplyQueues(
  driver: SystemDriver,
  clientIds: readonly string[],
  probes: ReplyQueueProbe[],
): Promise<void> {
  for (const reader of clientIds) {
    for (const queueOf of clientIds) {
      if (reader !== queueOf) probes.push(await driver.probeReplyQueue(reader, queueOf));
    }
  }
}
