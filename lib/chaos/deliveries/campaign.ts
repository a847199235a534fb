/**
 * The delivery campaign: runs the synthesized app on the local runtime with the delivery fault
 * injector's hooks, submits the planned deliveries through the delivery API with a bounded number in
 * flight (a burst all at once), sends the planned poison messages, restarts the whole runtime
 * half-way on the same data directory, samples the Delivery and Drone Scheduler tables while it
 * runs, then takes the final snapshot (every service table, the lifecycle events a de-duplicating
 * bus subscriber received, the dead letters the consumers sent, the fault log) for the checker.
 *
 * Deterministic given the seed: the plan and every fault decision are seeded. Timing (which message
 * a poller takes first, how long a loaded CPU takes) still varies between runs of one seed.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  currentVersion,
  type DeliveryStatus,
  EventType,
  isTerminalStatus,
  ServiceName,
} from '../../../lambdas/choreography/contracts';
import { sleep } from '../../../lambdas/shared/clock';
import { PROJECT_ROOT, synthesizeLocal } from '../../harness/assembly';
import { DeliverySystemDriver } from '../../harness/deliveries-driver';
import type { DroneSample, ObservedEvent } from '../../harness/deliveries-snapshots';
import { operatorUserOf } from '../../harness/operator-user';
import { type LocalRuntime, startLocalRuntime } from '../../local-runtime';
import type { TerminalBound } from '../common/bounds';
import { appDenials, iamRecordDirOf } from '../common/iam-denials';
import { CampaignTracker, startSampler, submitUntilAnswered } from '../common/loop';
import { formatMillis } from '../common/report';
import { type DeliveryAssemblyFacts, readDeliveryAssemblyFacts } from './assembly';
import { deliveryTerminalBound } from './bounds';
import { DELIVERY_FAULT_KINDS, DeliveryFaultKind } from './faults';
import { DeliveryFaultInjector } from './injector';
import {
  checkDeliveryCampaign,
  type DeliveryCampaignSnapshot,
  type DeliveryCheckResult,
  type DeliveryOutcome,
} from './invariants';
import {
  DEFAULT_DELIVERY_FAULT_RATES,
  DEFAULT_SCENARIO_SHARES,
  type DeliveryFaultRates,
  type DeliveryPlan,
  type PlannedFaults,
  planDeliveries,
  type ScenarioShares,
} from './plan';
import { renderDeliverySummary } from './report';

export interface DeliveryCampaignOptions {
  /** @default 200 */
  readonly deliveries?: number;
  /** @default 1 */
  readonly seed?: number;
  /** Deliveries accepted but not yet terminal, at most (a burst may pass it by its size). @default 12 */
  readonly maxInFlight?: number;
  /** A synthesized local-profile assembly. @default - synthesized into `<workDir>/cdk.out` */
  readonly assemblyDir?: string;
  /** Scratch space: assembly, data, logs, summary. @default '.local/chaos-deliveries' */
  readonly workDir?: string;
  /** @default every kind */
  readonly enabledKinds?: readonly DeliveryFaultKind[];
  /** @default DEFAULT_DELIVERY_FAULT_RATES */
  readonly rates?: DeliveryFaultRates;
  /** @default DEFAULT_SCENARIO_SHARES */
  readonly shares?: ScenarioShares;
  /** Unattributed garbage messages sent to consumer queues. @default 3 */
  readonly garbageMessages?: number;
  /** @default 2 */
  readonly minDeliveriesPerKind?: number;
  /** Share of the deliveries submitted before the runtime is restarted. @default 0.5 */
  readonly restartAfterShare?: number;
  /** Guard: below this share of happy deliveries Delivered the run is trivial. @default 0.6 */
  readonly minDeliveredShare?: number;
  /** Local machine allowance added to the terminal bound. @default 60 */
  readonly schedulingAllowanceSeconds?: number;
  /**
   * Stop waiting for stragglers this long after the last acceptance even if the bound is longer
   * (a short test run); what is not terminal then is reported, never excused. @default - the bound
   */
  readonly maxWaitAfterLastMillis?: number;
  /** Progress and summary lines. @default console.log */
  readonly log?: (line: string) => void;
  /** @default 5000 */
  readonly progressIntervalMillis?: number;
  /**
   * Contention: the drone scheduler's fleet reads answer this much later, so a burst's bookings
   * overlap and race on the DRONE# version condition. @default 300
   */
  readonly fleetReadDelayMillis?: number;
  /** Keep the data directory after the run. @default false */
  readonly keepData?: boolean;
}

export interface DeliveryCampaignReport {
  readonly snapshot: DeliveryCampaignSnapshot;
  readonly result: DeliveryCheckResult;
  readonly bound: TerminalBound;
  readonly summary: string;
  readonly wallMillis: number;
  readonly facts: DeliveryAssemblyFacts;
}

const SAMPLE_INTERVAL_MILLIS = 1_000;
const SUBMIT_GIVE_UP_MILLIS = 5 * 60_000;
/** Between a submission and its booking (the request's way to the drone scheduler), and a margin. */
const FLEET_PACE_SLACK_MILLIS = 3_000;
/** Deliveries that book a drone: all but the out-of-range ones (no drone can fly them). */
const needsDrone = (delivery: DeliveryPlan) => delivery.scenario !== 'out-of-range';
/** After the last delivery is terminal: remediation's last decisions and the last bus events. */
const SETTLE_MAX_MILLIS = 30_000;

export async function runDeliveryCampaign(
  options: DeliveryCampaignOptions = {},
): Promise<DeliveryCampaignReport> {
  const started = Date.now();
  const log = options.log ?? ((line: string) => console.log(line));
  const enabledKinds = options.enabledKinds ?? DELIVERY_FAULT_KINDS;
  const workDir = resolve(PROJECT_ROOT, options.workDir ?? '.local/chaos-deliveries');
  mkdirSync(workDir, { recursive: true });
  const assemblyDir = options.assemblyDir ?? join(workDir, 'cdk.out');
  if (!options.assemblyDir) {
    log(`[chaos] synthesizing with the local profile into ${assemblyDir} ...`);
    synthesizeLocal(assemblyDir);
  }
  const facts = readDeliveryAssemblyFacts(assemblyDir);
  const seed = options.seed ?? 1;
  const plan = planDeliveries({
    deliveries: options.deliveries ?? 200,
    seed,
    limits: facts.limits,
    rates: options.rates ?? DEFAULT_DELIVERY_FAULT_RATES,
    shares: options.shares ?? DEFAULT_SCENARIO_SHARES,
    garbageMessages: options.garbageMessages ?? 3,
    minDeliveriesPerKind: options.minDeliveriesPerKind ?? 2,
    enabledKinds,
  });
  const fleetReadDelayMillis = options.fleetReadDelayMillis ?? 300;
  const injector = new DeliveryFaultInjector({
    plan,
    enabledKinds,
    hangMillis: (facts.functionTimeoutSeconds + 1) * 1000,
    fleetReadDelayMillis,
  });
  const bound = deliveryTerminalBound({
    remediation: facts.remediation,
    maxReceiveAttempts: facts.limits.maxReceiveAttempts,
    visibilityTimeoutSeconds: facts.visibilityTimeoutSeconds,
    functionTimeoutSeconds: facts.functionTimeoutSeconds,
    flight: facts.flight,
    relayRetryMillis: facts.relayRetryMillis,
    faultsPerDelivery: Math.max(1, ...plan.deliveries.map((delivery) => costlyFaults(delivery.faults))),
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
  const startRuntime = async (): Promise<[LocalRuntime, DeliverySystemDriver]> => {
    const started = await startLocalRuntime({
      assemblyDir,
      port: 0,
      dataDir,
      targetFile: null,
      functionLogDir,
      faults: injector.hooks(),
      iamRecordDir: nextIamRecordDir(),
      users: operatorUserOf(facts.stackName),
      log: (line) => writeFileSync(runtimeLog, `${new Date().toISOString()} ${line}\n`, { flag: 'a' }),
    });
    const startedDriver = new DeliverySystemDriver(started.target, facts.stackName);
    // Rules made through the EventBridge API live as long as the runtime: subscribe on every start.
    await startedDriver.subscribeObserver();
    return [started, startedDriver];
  };

  const maxInFlight = options.maxInFlight ?? 12;
  log(
    `[chaos] ${plan.deliveries.length} deliveries, seed ${seed}, at most ${maxInFlight} in flight; ` +
      `terminal bound ${formatMillis(bound.totalMillis)}; logs in ${functionLogDir}`,
  );
  let [runtime, driver] = await startRuntime();
  const tracker = new CampaignTracker(
    plan.deliveries.map((delivery) => delivery.deliveryId),
    {
      boundMillis: bound.totalMillis,
      startedAt: started,
      intervalMillis: options.progressIntervalMillis ?? 5000,
      log,
      kinds: DELIVERY_FAULT_KINDS,
      firedCount: (kind) => injector.firedCount(kind as DeliveryFaultKind),
    },
  );
  const observed: ObservedEvent[] = [];
  const droneSamples: DroneSample[] = [];
  const lastDroneSample = new Map<string, string>();
  const assignmentSamples: DeliveryCampaignSnapshot['assignmentSamples'][number][] = [];
  let lastScheduled = '';
  let restarting = false;

  const observeDeliveries = async (now: number) => {
    for (const item of await driver.deliveryItems()) {
      const delivery = tracker.subjects.get(item.deliveryId);
      if (!delivery || delivery.terminalAt !== undefined) continue;
      if (!isTerminalStatus(item.status as DeliveryStatus)) continue;
      const written = item.updatedAt ?? now;
      delivery.terminalAt = Math.min(now, Math.max(delivery.acceptedAt ?? written, written));
    }
  };
  const sampleDrones = async (now: number) => {
    const { assignments, drones } = await driver.droneScheduler(now);
    const scheduled = assignments.filter((assignment) => assignment.status === 'SCHEDULED');
    const scheduledKey = JSON.stringify(scheduled);
    if (scheduledKey !== lastScheduled) {
      lastScheduled = scheduledKey;
      assignmentSamples.push({ at: now, scheduled });
    }
    for (const drone of drones) {
      const key = JSON.stringify(drone.assignments);
      if (lastDroneSample.get(drone.droneId) === key) continue;
      lastDroneSample.set(drone.droneId, key);
      droneSamples.push(drone);
    }
  };
  const sampleOnce = async () => {
    const now = Date.now();
    await observeDeliveries(now);
    await sampleDrones(now);
    observed.push(...(await driver.drainObserved()));
  };
  const sampler = startSampler(sampleOnce, () => restarting, SAMPLE_INTERVAL_MILLIS, log);

  const restart = async () => {
    restarting = true;
    const hit = tracker.inFlightIds();
    observed.push(...(await driver.drainObserved()));
    const lastDrainAt = Date.now();
    log(`[chaos] restarting the runtime with ${hit.length} deliveries in flight (same data directory) ...`);
    injector.cancelHeldReplies();
    await runtime.stop();
    const stoppedAt = Date.now();
    driver.close();
    injector.record(DeliveryFaultKind.RuntimeRestart, hit);
    [runtime, driver] = await startRuntime();
    const readyAt = Date.now();
    tracker.restarts.push({ lastDrainAt, stoppedAt, readyAt });
    log(`[chaos] runtime back after ${formatMillis(readyAt - lastDrainAt)}`);
    restarting = false;
  };

  /**
   * The fleet's pace: a drone stays booked for its whole window (assignmentSeconds) however short
   * the flight, so deliveries are submitted no faster than the fleet frees drones; only the planned
   * bursts ask for one drone more than there are. Faster, every happy delivery past the fleet's
   * capacity would walk NO_DRONE_AVAILABLE to Failed and the run would say little.
   */
  const fleet = {
    booked: [] as number[],
    free: () => {
      const since = Date.now() - facts.assignmentMillis - FLEET_PACE_SLACK_MILLIS;
      return facts.limits.drones - fleet.booked.filter((at) => at > since).length;
    },
    book: (count: number) => {
      for (let index = 0; index < count; index += 1) fleet.booked.push(Date.now());
    },
  };

  const sendPoison = async (delivery: DeliveryPlan) => {
    const poison = delivery.faults.poison;
    if (!poison || !enabledKinds.includes(DeliveryFaultKind.PoisonMessage)) return;
    await driver.sendPoison(
      poison.service,
      poisonEnvelope(delivery.deliveryId, poison.service, poison.kind),
      delivery.deliveryId,
      `chaos-poison-${delivery.deliveryId}`,
    );
    injector.record(DeliveryFaultKind.PoisonMessage, [delivery.deliveryId]);
  };

  const submitOne = async (delivery: DeliveryPlan) => {
    const state = tracker.of(delivery.deliveryId);
    const result = await submitUntilAnswered(
      () => driver.submit(delivery.request),
      () => restarting,
      SUBMIT_GIVE_UP_MILLIS,
    );
    if ('refused' in result) {
      state.refused = result.refused;
      log(`[chaos] ${delivery.deliveryId} refused: ${state.refused}`);
      return;
    }
    state.acceptedAt = result.acceptedAt;
    await sendPoison(delivery);
  };

  try {
    for (const [index, garbage] of plan.garbage.entries()) {
      await driver.sendPoison(
        garbage.service,
        garbage.body,
        'chaos-garbage',
        `chaos-garbage-${seed}-${index}`,
      );
      injector.record(DeliveryFaultKind.PoisonMessage);
    }
    const restartAt = enabledKinds.includes(DeliveryFaultKind.RuntimeRestart)
      ? Math.max(1, Math.floor(plan.deliveries.length * (options.restartAfterShare ?? 0.5)))
      : Number.POSITIVE_INFINITY;
    const submitting = new Set<Promise<void>>();
    for (let next = 0; next < plan.deliveries.length; ) {
      tracker.printProgress();
      if (next >= restartAt && tracker.restarts.length === 0) await restart();
      // A burst goes out at once: its deliveries ask the fleet for the same window.
      const first = plan.deliveries[next] as DeliveryPlan;
      const group = plan.deliveries
        .slice(next)
        .filter(
          (delivery, offset) => offset === 0 || (first.burst !== undefined && delivery.burst === first.burst),
        );
      const wantDrones = group.filter(needsDrone).length;
      if (
        tracker.occupying() + submitting.size >= maxInFlight ||
        (wantDrones > 0 && fleet.free() < Math.min(wantDrones, facts.limits.drones))
      ) {
        await sleep(100);
        continue;
      }
      next += group.length;
      fleet.book(wantDrones);
      for (const delivery of group) {
        const submission: Promise<void> = submitOne(delivery).finally(() => submitting.delete(submission));
        submitting.add(submission);
      }
    }
    await Promise.all(submitting);

    const lastAccepted = tracker.lastAcceptedAt();
    const waitFor = Math.min(
      bound.totalMillis + tracker.downtimeMillis(),
      options.maxWaitAfterLastMillis ?? Infinity,
    );
    const waitUntil = lastAccepted + waitFor + SAMPLE_INTERVAL_MILLIS * 2;
    while (tracker.inFlightIds().length > 0 && Date.now() < waitUntil) {
      tracker.printProgress();
      await sleep(500);
    }
    await settle(driver, injector, observed);
  } finally {
    await sampler.stop();
    injector.cancelHeldReplies();
  }

  const finishedAt = Date.now();
  observed.push(...(await driver.drainObserved()));
  await observeDeliveries(finishedAt);
  await sampleDrones(finishedAt);
  const deliveryItems = await driver.deliveryItems();
  const ingestionItems = await driver.ingestionItems();
  const { assignments } = await driver.droneScheduler(finishedAt);
  const { markers, decisions } = await driver.remediation();
  tracker.printProgress(true);
  driver.close();
  await runtime.stop();
  if (!options.keepData) rmSync(dataDir, { recursive: true, force: true });

  const deliveries: DeliveryOutcome[] = plan.deliveries.map((delivery) => {
    const state = tracker.of(delivery.deliveryId);
    return {
      deliveryId: delivery.deliveryId,
      scenario: delivery.scenario,
      allowedOutcomes: delivery.allowedOutcomes,
      ...(state.acceptedAt !== undefined ? { acceptedAt: state.acceptedAt } : {}),
      ...(state.terminalAt !== undefined ? { terminalAt: state.terminalAt } : {}),
    };
  });
  const snapshot: DeliveryCampaignSnapshot = {
    terminalBoundMillis: bound.totalMillis,
    appDenials: appDenials(iamRecordDirs),
    deliveries,
    deliveryItems: deliveryItems.map(({ updatedAt: _updatedAt, ...item }) => item),
    ingestionItems,
    lifecycleEvents: observed,
    assignments,
    assignmentSamples,
    droneSamples,
    deadLettersSent: injector.deadLetters,
    deadLetterMarkers: markers,
    remediationDecisions: decisions,
    faults: injector.events,
    enabledKinds,
    restarts: tracker.restarts,
    minDeliveredShare: options.minDeliveredShare ?? 0.6,
  };
  const result = checkDeliveryCampaign(snapshot);
  const wallMillis = Date.now() - started;
  const summary = renderDeliverySummary({
    snapshot,
    result,
    bound,
    seed,
    wallMillis,
    notes: [
      `profile: ${facts.limits.drones} drones, maxPayloadGrams ${facts.limits.maxPayloadGrams}, maxRangeKm ${facts.limits.maxRangeKm}, ` +
        `maxReceiveAttempts ${facts.limits.maxReceiveAttempts}, remediation back-off ${facts.remediation.retryBaseSeconds}-${facts.remediation.retryMaxSeconds} s`,
      `consumer timeout ${facts.functionTimeoutSeconds} s, visibility timeout ${facts.visibilityTimeoutSeconds} s ` +
        `(a failed receive comes back after it), relay retry budget ${formatMillis(facts.relayRetryMillis)}`,
      `flight ${facts.flight.pickupMillis} + ${facts.flight.flightMillis} ms; ${plan.garbage.length} garbage messages; ` +
        `drone scheduler fleet reads answered ${fleetReadDelayMillis} ms late (contention)`,
      ...(options.maxWaitAfterLastMillis !== undefined
        ? [`waited at most ${formatMillis(options.maxWaitAfterLastMillis)} after the last acceptance`]
        : []),
    ],
  });
  writeFileSync(join(workDir, `summary-${runId}.txt`), `${summary}\n`);
  return { snapshot, result, bound, summary, wallMillis, facts };
}

/** Faults that each may cost a delivery a round of redeliveries or relay retries. */
function costlyFaults(faults: PlannedFaults): number {
  return Object.keys(faults).filter((key) => key !== 'sqsDuplicate').length;
}

/**
 * Waits (at most SETTLE_MAX_MILLIS) until every dead letter a consumer sent has remediation's
 * marker and every lifecycle event a Delivery record counts has reached the observer.
 */
async function settle(
  driver: DeliverySystemDriver,
  injector: DeliveryFaultInjector,
  observed: ObservedEvent[],
): Promise<void> {
  const until = Date.now() + SETTLE_MAX_MILLIS;
  while (Date.now() < until) {
    observed.push(...(await driver.drainObserved()));
    const marked = new Set((await driver.remediation()).markers.map((marker) => marker.key));
    const seen = new Set(observed.map((event) => `${event.deliveryId}#${event.sequence}`));
    const items = await driver.deliveryItems();
    const eventsIn = items.every((item) =>
      Array.from({ length: item.sequence }, (_, index) => `${item.deliveryId}#${index + 1}`).every((key) =>
        seen.has(key),
      ),
    );
    if (eventsIn && injector.deadLetters.every((sent) => marked.has(sent.key))) return;
    await sleep(1_000);
  }
}

/**
 * A message naming the delivery that its consumer must dead-letter: a version its contracts do not
 * list, or the right version with data that breaks the schema.
 */
function poisonEnvelope(
  deliveryId: string,
  service: string,
  kind: 'unknown-version' | 'schema-invalid',
): string {
  const [type, producer] =
    service === ServiceName.Delivery
      ? [EventType.PackageReady, ServiceName.Package]
      : [EventType.DeliveryRequested, ServiceName.Ingestion];
  return JSON.stringify({
    schemaVersion: kind === 'unknown-version' ? currentVersion(type) + 90 : currentVersion(type),
    eventId: `chaos-poison:${deliveryId}`,
    deliveryId,
    correlationId: `chaos-poison-${deliveryId}`,
    sequence: 900,
    producer,
    occurredAt: new Date().toISOString(),
    type,
    data: kind === 'unknown-version' ? {} : { unexpected: true },
  });
}
