/**
 * One delivery campaign while it runs: the runtime and its driver (replaced at the restart), the
 * garbage and poison messages, the deliveries submitted at the fleet's pace with a bounded number
 * outstanding (a burst all at once), the sampler that reads the Delivery and Drone Scheduler
 * tables, and what all of them saw, gathered at the end into the snapshot the checker judges.
 * Each phase is a method, in the order runDeliveryCampaign calls them: start, sendGarbage,
 * submitAll, awaitTheEnd, stopSampling, finish.
 */
import { rmSync } from 'node:fs';
import { type DeliveryStatus, isTerminalStatus } from '../../../lambdas/choreography/contracts';
import type { DeliverySystemDriver } from '../../harness/deliveries-driver';
import type { DroneSample, ObservedEvent } from '../../harness/deliveries-snapshots';
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
import type { DeliveryCampaignOptions } from './campaign-options';
import { settleDeliveries } from './campaign-settle';
import type { DeliveryCampaignSetup } from './campaign-setup';
import { DELIVERY_FAULT_KINDS, DeliveryFaultKind } from './faults';
import { FleetPace } from './fleet-pace';
import type { DeliveryCampaignSnapshot, DeliveryOutcome, RequesterReadProbe } from './invariants';
import type { DeliveryPlan } from './plan';
import { poisonEnvelope } from './poison';

const SAMPLE_INTERVAL_MILLIS = 1_000;
const SUBMIT_GIVE_UP_MILLIS = 5 * 60_000;
/** Deliveries that book a drone: all but the out-of-range ones (no drone can fly them). */
const needsDrone = (delivery: DeliveryPlan) => delivery.scenario !== 'out-of-range';

type AssignmentSample = DeliveryCampaignSnapshot['assignmentSamples'][number];

export class DeliveryCampaignRun {
  readonly tracker: CampaignTracker;
  /** Lifecycle events the de-duplicating bus subscriber received. */
  readonly observed: ObservedEvent[] = [];
  readonly droneSamples: DroneSample[] = [];
  readonly assignmentSamples: AssignmentSample[] = [];
  private readonly lastDroneSample = new Map<string, string>();
  private lastScheduled = '';
  private restarting = false;
  private readonly fleet: FleetPace;
  private readonly sampler: { stop(): Promise<void> };
  /** The configured requesters (the Requesters output's order), and who submits each delivery. */
  private readonly requesters: readonly string[];
  private readonly requesterOf = new Map<string, string>();

  private constructor(
    private readonly setup: DeliveryCampaignSetup,
    private readonly options: DeliveryCampaignOptions,
    private runtime: LocalRuntime,
    private driver: DeliverySystemDriver,
    started: number,
  ) {
    const { plan, bound, injector, facts, log } = setup;
    this.tracker = new CampaignTracker(
      plan.deliveries.map((delivery) => delivery.deliveryId),
      {
        boundMillis: bound.totalMillis,
        now: setup.now,
        startedAt: started,
        intervalMillis: options.progressIntervalMillis ?? 5000,
        log,
        kinds: DELIVERY_FAULT_KINDS,
        firedCount: (kind) => injector.firedCount(kind as DeliveryFaultKind),
      },
    );
    this.fleet = new FleetPace(facts.limits.drones, facts.assignmentMillis, setup.pace);
    // Deliveries alternate between the requesters, each submitted with its own API key.
    this.requesters = driver.requesterIds;
    for (const [index, delivery] of plan.deliveries.entries()) {
      this.requesterOf.set(delivery.deliveryId, this.requesters[index % this.requesters.length] as string);
    }
    this.sampler = startSampler(
      () => this.sampleOnce(),
      () => this.restarting,
      SAMPLE_INTERVAL_MILLIS,
      log,
      setup.pace,
    );
  }

  /** Starts the runtime (its observer subscribed) and the sampler. */
  static async start(
    setup: DeliveryCampaignSetup,
    options: DeliveryCampaignOptions,
    started: number,
  ): Promise<DeliveryCampaignRun> {
    const { plan, seed, maxInFlight, bound, functionLogDir, log } = setup;
    log(
      `[chaos] ${plan.deliveries.length} deliveries, seed ${seed}, at most ${maxInFlight} in flight; ` +
        `terminal bound ${formatMillis(bound.totalMillis)}; logs in ${functionLogDir}`,
    );
    const [runtime, driver] = await setup.startRuntime();
    return new DeliveryCampaignRun(setup, options, runtime, driver, started);
  }

  /** The planned garbage: unattributed messages on consumer queues, each to be dead-lettered. */
  async sendGarbage(): Promise<void> {
    const { plan, seed, injector } = this.setup;
    for (const [index, garbage] of plan.garbage.entries()) {
      await this.driver.sendPoison(
        garbage.service,
        garbage.body,
        'chaos-garbage',
        `chaos-garbage-${seed}-${index}`,
      );
      injector.record(DeliveryFaultKind.PoisonMessage);
    }
  }

  /**
   * Submits every planned delivery, at most maxInFlight outstanding and at the fleet's pace (a
   * burst goes out at once: its deliveries ask the fleet for the same window), restarting the
   * runtime once mid-way.
   */
  async submitAll(): Promise<void> {
    const { plan, enabledKinds, maxInFlight } = this.setup;
    const restartAt = enabledKinds.includes(DeliveryFaultKind.RuntimeRestart)
      ? Math.max(1, Math.floor(plan.deliveries.length * (this.options.restartAfterShare ?? 0.5)))
      : Number.POSITIVE_INFINITY;
    const submitting = new Set<Promise<void>>();
    for (let next = 0; next < plan.deliveries.length; ) {
      this.tracker.printProgress();
      if (next >= restartAt && this.tracker.restarts.length === 0) await this.restart();
      const first = plan.deliveries[next] as DeliveryPlan;
      const group = plan.deliveries
        .slice(next)
        .filter(
          (delivery, offset) => offset === 0 || (first.burst !== undefined && delivery.burst === first.burst),
        );
      const wantDrones = group.filter(needsDrone).length;
      if (this.tracker.occupying() + submitting.size >= maxInFlight || !this.fleet.allows(wantDrones)) {
        await this.setup.pace.sleep(100);
        continue;
      }
      next += group.length;
      this.fleet.book(wantDrones);
      for (const delivery of group) {
        const submission: Promise<void> = this.submitOne(delivery).finally(() =>
          submitting.delete(submission),
        );
        submitting.add(submission);
      }
    }
    await Promise.all(submitting);
  }

  /**
   * Waits for every delivery to be terminal within its bound (or the caller's shorter wait), then
   * for the dead letters and lifecycle events still on their way.
   */
  async awaitTheEnd(): Promise<void> {
    const waitFor = Math.min(
      this.setup.bound.totalMillis + this.tracker.downtimeMillis(),
      this.options.maxWaitAfterLastMillis ?? Infinity,
    );
    const waitUntil = this.tracker.lastAcceptedAt() + waitFor + SAMPLE_INTERVAL_MILLIS * 2;
    const cappedByWall = await waitOnTheRunsClock(
      () => this.tracker.inFlightIds().length > 0,
      this.setup,
      () => waitUntil,
      () => this.tracker.printProgress(),
    );
    if (cappedByWall) this.setup.log(CLOCK_STOOD_STILL);
    await settleDeliveries(this.driver, this.setup.injector, this.observed, this.setup.pace);
  }

  /** Stops the sampler and lets go of every reply the injector still holds. */
  async stopSampling(): Promise<void> {
    await this.sampler.stop();
    this.setup.injector.cancelHeldReplies();
  }

  /** The final reads (every service's table, the observer, remediation), the runtime stopped, and the snapshot. */
  async finish(): Promise<DeliveryCampaignSnapshot> {
    const { driver, setup } = this;
    const finishedAt = setup.now();
    this.observed.push(...(await driver.drainObserved()));
    await this.observeDeliveries(finishedAt);
    await this.sampleDrones(finishedAt);
    const deliveryItems = await driver.deliveryItems();
    const ingestionItems = await driver.ingestionItems();
    const { assignments } = await driver.droneScheduler(finishedAt);
    const { markers, decisions } = await driver.remediation();
    const probes = await this.probeRequesterIsolation();
    this.tracker.printProgress(true);
    setup.endTrace();
    driver.close();
    await this.runtime.stop();
    if (!this.options.keepData) rmSync(setup.dataDir, { recursive: true, force: true });
    return {
      terminalBoundMillis: setup.bound.totalMillis,
      appDenials: appDenials(setup.iamRecordDirs),
      deliveries: this.outcomes(),
      deliveryItems: deliveryItems.map(({ updatedAt: _updatedAt, ...item }) => item),
      ingestionItems,
      lifecycleEvents: this.observed,
      assignments,
      assignmentSamples: this.assignmentSamples,
      droneSamples: this.droneSamples,
      deadLettersSent: setup.injector.deadLetters,
      deadLetterMarkers: markers,
      remediationDecisions: decisions,
      faults: setup.injector.events,
      enabledKinds: setup.enabledKinds,
      restarts: this.tracker.restarts,
      minDeliveredShare: this.options.minDeliveredShare ?? 0.6,
      requesterIsolation: { requesters: this.requesters, probes },
    };
  }

  /**
   * Each requester reads one accepted delivery of every requester (its own included) through the
   * API with its own key: another's must be 404, as an unknown id; its own 200, so the 404 is about
   * who asks. A 5xx or transport error is read again, a few times.
   */
  private async probeRequesterIsolation(): Promise<RequesterReadProbe[]> {
    const probes: RequesterReadProbe[] = [];
    for (const owner of this.requesters) {
      const deliveryId = [...this.requesterOf].find(
        ([id, requester]) => requester === owner && this.tracker.of(id).acceptedAt !== undefined,
      )?.[0];
      if (deliveryId === undefined) continue;
      for (const reader of this.requesters) {
        let status = await this.driver.readStatus(deliveryId, reader);
        for (let attempt = 1; attempt < 5 && (typeof status === 'string' || status >= 500); attempt++) {
          await this.setup.pace.sleep(500);
          status = await this.driver.readStatus(deliveryId, reader);
        }
        probes.push({ reader, owner, deliveryId, status });
      }
    }
    return probes;
  }

  /** Each planned delivery's way through the run, as the checker reads it. */
  private outcomes(): DeliveryOutcome[] {
    return this.setup.plan.deliveries.map((delivery) => {
      const state = this.tracker.of(delivery.deliveryId);
      return {
        deliveryId: delivery.deliveryId,
        scenario: delivery.scenario,
        allowedOutcomes: delivery.allowedOutcomes,
        ...(state.acceptedAt !== undefined ? { acceptedAt: state.acceptedAt } : {}),
        ...(state.terminalAt !== undefined ? { terminalAt: state.terminalAt } : {}),
      };
    });
  }

  /** The time each delivery was first seen terminal in the Delivery table. */
  private async observeDeliveries(now: number): Promise<void> {
    for (const item of await this.driver.deliveryItems()) {
      const delivery = this.tracker.subjects.get(item.deliveryId);
      if (!delivery || delivery.terminalAt !== undefined) continue;
      if (!isTerminalStatus(item.status as DeliveryStatus)) continue;
      const written = item.updatedAt ?? now;
      delivery.terminalAt = Math.min(now, Math.max(delivery.acceptedAt ?? written, written));
    }
  }

  /** The drone scheduler's assignments and drones, kept when they changed. */
  private async sampleDrones(now: number): Promise<void> {
    const { assignments, drones } = await this.driver.droneScheduler(now);
    const scheduled = assignments.filter((assignment) => assignment.status === 'SCHEDULED');
    const scheduledKey = JSON.stringify(scheduled);
    if (scheduledKey !== this.lastScheduled) {
      this.lastScheduled = scheduledKey;
      this.assignmentSamples.push({ at: now, scheduled });
    }
    for (const drone of drones) {
      const key = JSON.stringify(drone.assignments);
      if (this.lastDroneSample.get(drone.droneId) === key) continue;
      this.lastDroneSample.set(drone.droneId, key);
      this.droneSamples.push(drone);
    }
  }

  /** One tick of the sampler: deliveries, drones, the observer. */
  private async sampleOnce(): Promise<void> {
    const now = this.setup.now();
    await this.observeDeliveries(now);
    await this.sampleDrones(now);
    this.observed.push(...(await this.driver.drainObserved()));
  }

  /** Stops the runtime with deliveries in flight and starts it again on the same data directory. */
  private async restart(): Promise<void> {
    const { injector, log } = this.setup;
    this.restarting = true;
    const hit = this.tracker.inFlightIds();
    this.observed.push(...(await this.driver.drainObserved()));
    const lastDrainAt = this.setup.now();
    // wall clock: how long the restart took, as the log tells it
    const restartStarted = Date.now();
    log(`[chaos] restarting the runtime with ${hit.length} deliveries in flight (same data directory) ...`);
    injector.cancelHeldReplies();
    const stoppedAt = await restartOnTheClock(
      this.setup.clock,
      () => this.runtime.stop(),
      async () => {
        this.driver.close();
        injector.record(DeliveryFaultKind.RuntimeRestart, hit);
        [this.runtime, this.driver] = await this.setup.startRuntime();
      },
    );
    const readyAt = this.setup.now();
    this.tracker.restarts.push({ lastDrainAt, stoppedAt, readyAt });
    log(`[chaos] runtime back after ${formatMillis(Date.now() - restartStarted)}`);
    this.restarting = false;
  }

  /** The planned poison message of a delivery just accepted, when poison messages are on. */
  private async sendPoison(delivery: DeliveryPlan): Promise<void> {
    const poison = delivery.faults.poison;
    if (!poison || !this.setup.enabledKinds.includes(DeliveryFaultKind.PoisonMessage)) return;
    await this.driver.sendPoison(
      poison.service,
      poisonEnvelope(delivery.deliveryId, poison.service, poison.kind, this.setup.now()),
      delivery.deliveryId,
      `chaos-poison-${delivery.deliveryId}`,
    );
    this.setup.injector.record(DeliveryFaultKind.PoisonMessage, [delivery.deliveryId]);
  }

  /** Submits one delivery until it is accepted or refused for good, then its poison message. */
  private async submitOne(delivery: DeliveryPlan): Promise<void> {
    const state = this.tracker.of(delivery.deliveryId);
    const result = await submitUntilAnswered(
      // What the door refuses (400) is accepted past it, so the services' own refusals still run.
      () => {
        const requester = this.requesterOf.get(delivery.deliveryId);
        return delivery.scenario === 'too-heavy' || delivery.scenario === 'out-of-range'
          ? this.driver.acceptPastTheDoor(delivery.request, requester)
          : this.driver.submit(delivery.request, requester);
      },
      () => this.restarting,
      SUBMIT_GIVE_UP_MILLIS,
      this.setup,
    );
    if ('refused' in result) {
      state.refused = result.refused;
      this.setup.log(`[chaos] ${delivery.deliveryId} refused: ${state.refused}`);
      return;
    }
    state.acceptedAt = result.acceptedAt;
    await this.sendPoison(delivery);
  }
}
