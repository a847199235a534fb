/**
 * The chaos campaign: runs the synthesized app on the local runtime with the fault injector's
 * hooks, drives the planned orders through the API with a bounded number in flight, restarts the
 * whole runtime mid-way on the same data directory, samples the state store while it runs, then
 * takes the final snapshot (state, ledger, alerts, fault log) and hands it to the checker.
 *
 * Deterministic given the seed: the plan and every fault decision are seeded. Timing (which
 * message is picked first, how long a loaded CPU takes) still varies, so counts of collateral
 * effects (lost races, redeliveries) and latencies differ between runs of the same seed.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  DEFAULT_ALERT_REDELIVERY_GRACE_SECONDS,
  OperatorRefusal,
  ProcessState,
  TERMINAL_STATES,
  type WorkflowTimings,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { sleep } from '../../../lambdas/shared/clock';
import { type AssemblyFacts, PROJECT_ROOT, readAssemblyFacts, synthesizeLocal } from '../../harness/assembly';
import { operatorUserOf } from '../../harness/operator-user';
import { SystemDriver, type TimedRecord } from '../../harness/orders-driver';
import type { AlertSnapshot, ClientMessageDelivery, ReplyQueueProbe } from '../../harness/snapshots';
import { percentile } from '../../harness/stats';
import { type LocalRuntime, startLocalRuntime } from '../../local-runtime';
import type { TerminalBound } from '../common/bounds';
import { appDenials, iamRecordDirOf } from '../common/iam-denials';
import { CampaignTracker, startSampler, submitUntilAnswered } from '../common/loop';
import { formatMillis } from '../common/report';
import type { AlertBusOutageStats } from './alert-bus';
import { maxSafeRelativeSkewMillis, terminalBound } from './bounds';
import type { AdmissionSample, CampaignSnapshot, OrderOutcome, RecordSample } from './campaign-snapshot';
import { FAULT_KINDS, type FaultEvent, FaultKind, OperatorPlanKind } from './faults';
import { FaultInjector } from './injector';
import { type CheckResult, checkCampaign, terminalVisits } from './invariants';
import { OperatorActor } from './operator';
import {
  type AlertBusOutage,
  CAMPAIGN_STEPS,
  DEFAULT_FAULT_RATES,
  type FaultRates,
  type OrderPlan,
  planCampaign,
} from './plan';
import { renderSummary } from './report';

export interface CampaignOptions {
  /** @default 1000 */
  readonly orders?: number;
  /** @default 1 */
  readonly seed?: number;
  /**
   * Submissions outstanding at most: orders accepted and not yet terminal, plus submissions still
   * waiting for admission (429, resubmitted after Retry-After). @default 24
   */
  readonly maxInFlight?: number;
  /**
   * The admission limit the campaign synthesizes its assembly with when admission-pressure is on
   * (below maxInFlight, so the API refuses new work). Ignored with `assemblyDir`: that assembly's
   * own limit applies, and must then be below maxInFlight.
   * @default 16
   */
  readonly admissionLimit?: number;
  /**
   * A synthesized local-profile assembly.
   * @default - synthesized into `<workDir>/cdk.out` (with `-c admissionLimit` when admission-pressure is on)
   */
  readonly assemblyDir?: string;
  /** Scratch space: assembly, data, logs, summary. @default '.local/chaos' */
  readonly workDir?: string;
  /** @default every kind */
  readonly enabledKinds?: readonly FaultKind[];
  /** @default DEFAULT_FAULT_RATES */
  readonly rates?: FaultRates;
  /** @default 2 */
  readonly minOrdersPerKind?: number;
  /** Share of the orders submitted before the runtime is restarted. @default 0.5 */
  readonly restartAfterShare?: number;
  /** Guard: below this share of Processed orders the run is trivial. @default 0.6 */
  readonly minProcessedShare?: number;
  /**
   * Relative clock skew between the supervisor (ahead, 60%) and the starter (behind, 40%).
   * @default stepDeadlineSlackSeconds / 2 (maxSafeRelativeSkewMillis)
   */
  readonly clockSkewMillis?: number;
  /** Local machine allowance added to the terminal bound. @default 60 */
  readonly schedulingAllowanceSeconds?: number;
  /** Progress and summary lines. @default console.log */
  readonly log?: (line: string) => void;
  /** @default 5000 */
  readonly progressIntervalMillis?: number;
  /** Keep the DynamoDB data directory after the run. @default false */
  readonly keepData?: boolean;
}

export interface CampaignReport {
  readonly snapshot: CampaignSnapshot;
  readonly result: CheckResult;
  readonly bound: TerminalBound;
  readonly summary: string;
  readonly wallMillis: number;
  readonly facts: AssemblyFacts;
  /** Firings of attempt faults that hit a compensation request (the plan's compensationFault). */
  readonly compensationFaultsFired: number;
}

const SAMPLE_INTERVAL_MILLIS = 1_000;
const SUBMIT_GIVE_UP_MILLIS = 5 * 60_000;
/** After the last order is terminal: alerts published right after the transition still arrive. */
const ALERT_SETTLE_MILLIS = 3_000;
/** Beyond the backstop's grace and the longest outage window: time for a supervisor sweep or two. */
const OUTBOX_SETTLE_MARGIN_MILLIS = 30_000;
const TERMINAL: readonly string[] = TERMINAL_STATES;
const DEFAULT_ADMISSION_LIMIT = 16;
const DEFAULT_MAX_IN_FLIGHT = 24;
const HTTP_TOO_MANY_REQUESTS = 429;
/** SQS FIFO's deduplication window: a resend within it is dropped by the queue. */
const FIFO_DEDUPLICATION_WINDOW_MILLIS = 5 * 60_000;
/** After the last order is terminal: status messages still on their way (stream, notifier, queue). */
const REPLY_SETTLE_MAX_MILLIS = 20_000;

export async function runCampaign(options: CampaignOptions = {}): Promise<CampaignReport> {
  const started = Date.now();
  const log = options.log ?? ((line: string) => console.log(line));
  const enabledKinds = options.enabledKinds ?? FAULT_KINDS;
  const workDir = resolve(PROJECT_ROOT, options.workDir ?? '.local/chaos');
  mkdirSync(workDir, { recursive: true });
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const admissionPressure = enabledKinds.includes(FaultKind.AdmissionPressure);
  const assemblyDir = options.assemblyDir ?? join(workDir, 'cdk.out');
  if (!options.assemblyDir) {
    const admissionLimit = admissionPressure
      ? (options.admissionLimit ?? DEFAULT_ADMISSION_LIMIT)
      : undefined;
    log(
      `[chaos] synthesizing with the local profile${admissionLimit ? ` and admission limit ${admissionLimit}` : ''} into ${assemblyDir} ...`,
    );
    synthesizeLocal(assemblyDir, admissionLimit === undefined ? {} : { admissionLimit });
  }
  const facts = readAssemblyFacts(assemblyDir);
  if (admissionPressure && facts.admission.limit >= maxInFlight) {
    throw new Error(
      `admission-pressure needs an admission limit below --max-in-flight ${maxInFlight}, but ${assemblyDir} was synthesized ` +
        `with limit ${facts.admission.limit}: synthesize it with -c admissionLimit=${DEFAULT_ADMISSION_LIMIT}, let the campaign synthesize, ` +
        'or switch the kind off (--without admission-pressure)',
    );
  }
  const { timings } = facts;
  const seed = options.seed ?? 1;
  const rates = options.rates ?? DEFAULT_FAULT_RATES;
  const plan = planCampaign({
    orders: options.orders ?? 1000,
    seed,
    rates,
    minOrdersPerKind: options.minOrdersPerKind ?? 2,
    enabledKinds,
  });
  // The supervisor runs ahead and the starter behind, together within the design's slack budget.
  const skewBudget = options.clockSkewMillis ?? maxSafeRelativeSkewMillis(timings);
  const skewEnabled = enabledKinds.includes(FaultKind.ClockSkew);
  const supervisorClockOffsetMillis = Math.round(skewBudget * 0.6);
  const starterClockOffsetMillis = Math.round(skewBudget * 0.4);
  const injector = new FaultInjector({
    plan,
    facts,
    enabledKinds,
    remoteTransientPerCall: rates.remoteTransientPerCall,
    holdMillis: timings.stepTimeoutSeconds * 1000 + 1000,
    supervisorClockOffsetMillis,
    starterClockOffsetMillis,
  });
  const bound = terminalBound({
    timings,
    stepCount: CAMPAIGN_STEPS.length,
    maxClockSkewMillis: skewEnabled ? supervisorClockOffsetMillis : 0,
    schedulingAllowanceMillis: (options.schedulingAllowanceSeconds ?? 60) * 1000,
  });

  const runId = `s${seed}-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  const dataDir = join(workDir, `data-${runId}`);
  const functionLogDir = join(workDir, `logs-${runId}`);
  const runtimeLog = join(workDir, `runtime-${runId}.log`);
  // One IAM record per start (a restart must not overwrite the last one's denials).
  const iamRecordDirs: string[] = [];
  const nextIamRecordDir = () => {
    const dir = iamRecordDirOf(workDir, runId, iamRecordDirs.length);
    iamRecordDirs.push(dir);
    return dir;
  };
  writeFileSync(runtimeLog, '');
  const startRuntime = () =>
    startLocalRuntime({
      assemblyDir,
      port: 0,
      dataDir,
      targetFile: null,
      functionLogDir,
      faults: injector.hooks(),
      iamRecordDir: nextIamRecordDir(),
      users: operatorUserOf(facts.agents[0]?.stackName ?? ''),
      log: (line) => writeFileSync(runtimeLog, `${new Date().toISOString()} ${line}\n`, { flag: 'a' }),
    });

  log(
    `[chaos] ${plan.orders.length} orders, seed ${seed}, at most ${maxInFlight} in flight ` +
      `(admission limit ${facts.admission.limit}); ` +
      `terminal bound ${formatMillis(bound.totalMillis)}; logs in ${functionLogDir}`,
  );
  let runtime: LocalRuntime = await startRuntime();
  let driver = new SystemDriver(runtime.target);
  // Orders alternate between the clients (the Clients output's order), each submitted with that
  // client's API key; its status messages must reach that client's queue only.
  const clientIds = driver.clients.map((client) => client.clientId);
  const clientOf = (order: OrderPlan) => clientIds[order.index % clientIds.length] as string;
  const replies: ClientMessageDelivery[] = [];
  const probes: ReplyQueueProbe[] = [];
  const probeReplyQueues = async () => {
    for (const reader of clientIds) {
      for (const queueOf of clientIds) {
        if (reader !== queueOf) probes.push(await driver.probeReplyQueue(reader, queueOf));
      }
    }
  };
  const drainReplies = async () => {
    for (const clientId of clientIds) replies.push(...(await driver.drainReplies(clientId)));
  };
  await probeReplyQueues();
  const tracker = new CampaignTracker(
    plan.orders.map((order) => order.orderId),
    {
      boundMillis: bound.totalMillis,
      startedAt: started,
      intervalMillis: options.progressIntervalMillis ?? 5000,
      log,
      kinds: FAULT_KINDS,
      firedCount: (kind) => injector.firedCount(kind as FaultKind),
    },
  );
  const samples: RecordSample[] = [];
  const admissionSamples: AdmissionSample[] = [];
  const refusedAfterAcceptance: string[] = [];
  let admissionRefusals = 0;
  const alerts: AlertSnapshot[] = [];
  const lastSampleKey = new Map<string, string>();
  let restarting = false;
  const reopenedAt = new Map<string, number>();
  const operatorActions = enabledKinds.includes(FaultKind.OperatorActions);
  const operator = new OperatorActor({
    orders: plan.orders,
    driver: () => driver,
    paused: () => restarting,
    applied: (orderId, fromTerminal) => {
      injector.record(FaultKind.OperatorActions, [orderId]);
      if (!fromTerminal) return;
      // Out of a terminal state: in flight again, and the bound counts from here.
      reopenedAt.set(orderId, Date.now());
      tracker.of(orderId).terminalAt = undefined;
    },
    log,
    giveUpMillis: bound.totalMillis,
  });

  const observe = (record: TimedRecord, now: number) => {
    const order = tracker.subjects.get(record.orderId);
    if (!order) return;
    const sampleKey = `${record.processState}|${record.lockedBy ?? ''}|${record.failureCount}|${record.attempt}`;
    if (sampleKey !== lastSampleKey.get(record.orderId)) {
      lastSampleKey.set(record.orderId, sampleKey);
      samples.push({ ...record, at: now });
    }
    // A read that raced an operator action shows the terminal state the action just left.
    if (
      TERMINAL.includes(record.processState) &&
      order.terminalAt === undefined &&
      !operator.isStale(record)
    ) {
      const written = record.updatedAt ?? now;
      const from = Math.max(order.acceptedAt ?? written, reopenedAt.get(record.orderId) ?? 0);
      order.terminalAt = Math.min(now, Math.max(from, written));
    }
  };

  const sampleOnce = async () => {
    const now = Date.now();
    const records = await driver.records(tracker.inFlightIds());
    for (const record of records) {
      observe(record, now);
      if (operatorActions) operator.observe(record);
    }
    const slotsHeld = await driver.admissionSlotsHeld(facts.admission.shards);
    admissionSamples.push({
      at: now,
      // An order cancelled from a terminal state is rolled back without a slot (a cancel takes none).
      nonTerminal: records.filter(
        (record) => !TERMINAL.includes(record.processState) && !operator.holdsNoSlot(record.orderId),
      ).length,
      slotsHeld,
    });
    alerts.push(...(await driver.drainAlerts()));
    await drainReplies();
  };

  /**
   * Admission refused a submission: the fault fired. Once per refused order, an order already
   * accepted and still in flight is submitted again, identically: it must be answered as accepted
   * (accepted work is never refused later), never 429.
   */
  const admissionRefused = async (order: OrderPlan) => {
    admissionRefusals += 1;
    if (!injector.firstTime(FaultKind.AdmissionPressure, order.orderId)) return;
    // A limit below the submissions outstanding is the fault; without the kind a 429 is still
    // honoured and probed, just not counted as fired.
    if (admissionPressure) injector.record(FaultKind.AdmissionPressure, [order.orderId]);
    const acceptedId = tracker.inFlightIds()[0];
    const accepted = plan.orders.find((candidate) => candidate.orderId === acceptedId);
    if (!accepted || restarting) return;
    const again = await driver.submit(accepted.request, clientOf(accepted));
    if (again.kind === 'retry' && again.status === HTTP_TOO_MANY_REQUESTS) {
      refusedAfterAcceptance.push(`${accepted.orderId}: accepted, then refused 429 when submitted again`);
    } else if (again.kind === 'refused') {
      refusedAfterAcceptance.push(
        `${accepted.orderId}: accepted, then refused ${again.status} when submitted again`,
      );
    }
  };

  const sampler = startSampler(sampleOnce, () => restarting, SAMPLE_INTERVAL_MILLIS, log);
  let undeliveredAtEnd: readonly string[] = [];
  let outboxSettleWaitMillis = 0;

  const restart = async () => {
    restarting = true;
    const hit = tracker.inFlightIds();
    alerts.push(...(await driver.drainAlerts()));
    await drainReplies();
    const lastDrainAt = Date.now();
    log(`[chaos] restarting the runtime with ${hit.length} orders in flight (same data directory) ...`);
    await runtime.stop();
    const stoppedAt = Date.now();
    driver.close();
    injector.record(FaultKind.RuntimeRestart, hit);
    runtime = await startRuntime();
    driver = new SystemDriver(runtime.target);
    const readyAt = Date.now();
    tracker.restarts.push({ lastDrainAt, stoppedAt, readyAt });
    log(`[chaos] runtime back after ${formatMillis(readyAt - lastDrainAt)}`);
    restarting = false;
  };

  const submitOne = async (order: OrderPlan) => {
    const state = tracker.of(order.orderId);
    const refusals: Promise<void>[] = [];
    const result = await submitUntilAnswered(
      () => driver.submit(order.request, clientOf(order)),
      () => restarting,
      SUBMIT_GIVE_UP_MILLIS,
      (outcome) => {
        if (outcome.status === HTTP_TOO_MANY_REQUESTS) refusals.push(admissionRefused(order));
      },
    );
    await Promise.all(refusals);
    if ('acceptedAt' in result) {
      state.acceptedAt = result.acceptedAt;
      if (operatorActions) operator.accepted(order.orderId);
      return;
    }
    state.refused = result.refused;
    log(`[chaos] ${order.orderId} refused: ${state.refused}`);
  };

  try {
    const restartAt = enabledKinds.includes(FaultKind.RuntimeRestart)
      ? Math.max(1, Math.floor(plan.orders.length * (options.restartAfterShare ?? 0.5)))
      : Number.POSITIVE_INFINITY;
    const submitting = new Set<Promise<void>>();
    for (let next = 0; next < plan.orders.length; ) {
      tracker.printProgress();
      if (next >= restartAt && tracker.restarts.length === 0) await restart();
      if (tracker.occupying() + submitting.size >= maxInFlight) {
        await sleep(100);
        continue;
      }
      const order = plan.orders[next] as OrderPlan;
      next += 1;
      const submission: Promise<void> = submitOne(order).finally(() => submitting.delete(submission));
      submitting.add(submission);
    }
    await Promise.all(submitting);

    const waitUntil =
      tracker.lastAcceptedAt() + bound.totalMillis + tracker.downtimeMillis() + SAMPLE_INTERVAL_MILLIS * 2;
    // Operator actions reopen terminal orders: wait for them too, with the bound from the last.
    while (
      (tracker.inFlightIds().length > 0 || operator.working > 0) &&
      Date.now() < Math.max(waitUntil, Math.max(0, ...reopenedAt.values()) + bound.totalMillis)
    ) {
      tracker.printProgress();
      await sleep(500);
    }
    // An alert the relay gave up on (a bus outage outlasting the stream's retries) is delivered by
    // the supervisor's backstop once its grace has passed: wait for every outbox to empty.
    const settleStarted = Date.now();
    undeliveredAtEnd = await settleOutbox(
      () => driver.ordersWithUndeliveredAlerts(),
      outboxSettleMillis(timings, plan.alertBusOutages),
    );
    outboxSettleWaitMillis = Date.now() - settleStarted;
    await sleep(ALERT_SETTLE_MILLIS);
  } finally {
    await sampler.stop();
    injector.cancelHeldReplies();
  }

  alerts.push(...(await driver.drainAlerts()));
  const finalRecords = await driver.allRecords();
  await settleReplies(finalRecords, drainReplies, () => replies);
  await probeReplyQueues();
  const { effects: ledger, undos, calls } = await driver.ledgerContents();
  const finishedAt = Date.now();
  for (const record of finalRecords) observe(record, finishedAt);
  tracker.printProgress(true);
  driver.close();
  await runtime.stop();
  if (!options.keepData) rmSync(dataDir, { recursive: true, force: true });

  const orders: OrderOutcome[] = plan.orders.map((order) => {
    const state = tracker.of(order.orderId);
    return {
      orderId: order.orderId,
      mustFail: order.mustFail,
      ...(order.expectedOutcome !== undefined
        ? { expectedOutcome: order.expectedOutcome, failingStep: order.attemptFault?.step }
        : {}),
      ...(state.acceptedAt !== undefined ? { acceptedAt: state.acceptedAt } : {}),
      ...(state.terminalAt !== undefined ? { terminalAt: state.terminalAt } : {}),
      clientId: clientOf(order),
      ...(reopenedAt.has(order.orderId) ? { reopenedAt: reopenedAt.get(order.orderId) } : {}),
    };
  });
  const snapshot: CampaignSnapshot = {
    timings,
    terminalBoundMillis: bound.totalMillis,
    orders,
    finalRecords: finalRecords.map(({ updatedAt: _updatedAt, ...record }) => record),
    samples,
    ledger,
    undos,
    calls,
    retryBudget: facts.retryBudget,
    appDenials: appDenials(iamRecordDirs),
    admission: { limit: facts.admission.limit, samples: admissionSamples, refusedAfterAcceptance },
    alerts,
    faults: injector.events,
    enabledKinds,
    restarts: tracker.restarts,
    minProcessedShare: options.minProcessedShare ?? 0.6,
    operator: { identity: driver.operatorIdentity, actions: operator.actions },
    clientMessages: {
      clients: clientIds,
      deliveries: replies,
      probes,
      deduplicationWindowMillis: FIFO_DEDUPLICATION_WINDOW_MILLIS,
    },
  };
  const result = checkCampaign(snapshot);
  const wallMillis = Date.now() - started;
  const compensationFaultsFired = compensationFaultFirings(plan.orders, injector.events);
  const summary = renderSummary({
    snapshot,
    result,
    bound,
    seed,
    wallMillis,
    notes: [
      `profile timings: step timeout ${timings.stepTimeoutSeconds} s + slack ${timings.stepDeadlineSlackSeconds} s, ` +
        `maxFailures ${timings.maxFailures}, supervisor sweep every ${timings.supervisorRateSeconds / timings.supervisorSweepsPerRun} s`,
      skewEnabled
        ? `clock skew: supervisor +${supervisorClockOffsetMillis} ms, starter -${starterClockOffsetMillis} ms ` +
          `(relative ${supervisorClockOffsetMillis + starterClockOffsetMillis} ms; stated bound stepDeadlineSlack/2 = ${maxSafeRelativeSkewMillis(timings)} ms)`
        : 'clock skew: off',
      `remote transient rate ${rates.remoteTransientPerCall} per call; held replies wait ${timings.stepTimeoutSeconds * 1000 + 1000} ms`,
      `admission limit ${facts.admission.limit} (${facts.admission.shards} shards), at most ${maxInFlight} submissions outstanding; ` +
        `${admissionRefusals} submissions answered 429 and resubmitted after Retry-After; ` +
        `most in flight seen ${Math.max(0, ...admissionSamples.map((sample) => sample.nonTerminal))} orders, ` +
        `${Math.max(0, ...admissionSamples.map((sample) => sample.slotsHeld ?? 0))} slots`,
      `orders planned to compensate: ${plan.orders.filter((order) => order.expectedOutcome === 'Compensated').length}, ` +
        `to end CompensationFailed: ${plan.orders.filter((order) => order.expectedOutcome === 'CompensationFailed').length}; ` +
        `attempt faults planned on compensation requests: ${plan.orders.filter((order) => order.compensationFault).length}, ` +
        `fired: ${compensationFaultsFired}`,
      `SQS queues and messages persist with the data directory: a restart keeps queued and in-flight messages`,
      operatorSummary(plan.orders, operator.actions, operatorActions),
      alertSummary(
        plan.alertBusOutages,
        injector.alertBus?.stats(),
        alerts,
        undeliveredAtEnd,
        outboxSettleWaitMillis,
      ),
      `clients ${clientIds.join(', ')} (orders alternate): ${replies.length} status messages taken from their reply queues ` +
        `(${clientIds.map((id) => `${id} ${replies.filter((reply) => reply.queueOf === id).length}`).join(', ')}); ` +
        `${probes.filter((probe) => probe.outcome === 'AccessDenied').length} of ${probes.length} cross-client reads denied`,
    ],
  });
  writeFileSync(join(workDir, `summary-${runId}.txt`), `${summary}\n`);
  return { snapshot, result, bound, summary, wallMillis, facts, compensationFaultsFired };
}

/**
 * After the last order is terminal, status messages may still be on their way (the state table's
 * stream, the notifier, the queue): drain until every terminal order has as many distinct
 * messages as its transitions call for, or REPLY_SETTLE_MAX_MILLIS have passed (the checker then
 * names what is missing).
 */
async function settleReplies(
  finalRecords: readonly TimedRecord[],
  drain: () => Promise<void>,
  taken: () => readonly ClientMessageDelivery[],
): Promise<void> {
  const expected = new Map(
    finalRecords
      .filter((record) => TERMINAL.includes(record.processState))
      .map((record) => [record.orderId, 1 + terminalVisits(record).length]),
  );
  const giveUpAt = Date.now() + REPLY_SETTLE_MAX_MILLIS;
  for (;;) {
    await drain();
    const keys = new Map<string, Set<string>>();
    for (const { message } of taken()) {
      if (message)
        keys.set(message.orderId, (keys.get(message.orderId) ?? new Set()).add(message.messageKey));
    }
    const missing = [...expected].some(([orderId, count]) => (keys.get(orderId)?.size ?? 0) < count);
    if (!missing || Date.now() >= giveUpAt) return;
    await sleep(1_000);
  }
}

/** The longest the campaign waits, after the last order is terminal, for every alert outbox to empty. */
function outboxSettleMillis(timings: WorkflowTimings, outages: readonly AlertBusOutage[]): number {
  const grace = (timings.alertRedeliveryGraceSeconds ?? DEFAULT_ALERT_REDELIVERY_GRACE_SECONDS) * 1000;
  const longest = Math.max(0, ...outages.map((outage) => outage.durationMillis));
  return grace + longest + OUTBOX_SETTLE_MARGIN_MILLIS;
}

/** Polls until no record holds an undelivered alert, or maxMillis; returns the orders still holding one. */
async function settleOutbox(
  pending: () => Promise<readonly string[]>,
  maxMillis: number,
): Promise<readonly string[]> {
  const giveUpAt = Date.now() + maxMillis;
  for (;;) {
    const orderIds = await pending();
    if (orderIds.length === 0 || Date.now() >= giveUpAt) return orderIds;
    await sleep(1_000);
  }
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
function compensationFaultFirings(orders: readonly OrderPlan[], events: readonly FaultEvent[]): number {
  const byOrder = new Map(orders.map((order) => [order.orderId, order]));
  return events.filter((event) =>
    event.orderIds.some((orderId) => {
      const order = byOrder.get(orderId);
      return order?.compensationFault?.kind === event.kind && order.attemptFault?.kind !== event.kind;
    }),
  ).length;
}
