/**
 * What a delivery campaign decides before anything runs: its assembly (synthesized, or the one
 * given) and its facts, the seeded plan, the fault injector, the terminal bound and the run's
 * files, and how to start the runtime on them (again after the restart, on the same data
 * directory). Apart from the run itself (campaign-run.ts) so that each reads alone.
 */

import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PROJECT_ROOT, synthesizeLocal } from '../../harness/assembly';
import { DeliverySystemDriver } from '../../harness/deliveries-driver';
import type { LocalRuntime, RuntimeClock } from '../../local-runtime';
import type { TerminalBound } from '../common/bounds';
import { type CampaignClock, campaignClock } from '../common/campaign-clock';
import { campaignFiles } from '../common/campaign-files';
import { type RunClock, runClockOf } from '../common/loop';
import { type DeliveryAssemblyFacts, readDeliveryAssemblyFacts } from './assembly';
import { deliveryTerminalBound } from './bounds';
import type { DeliveryCampaignOptions } from './campaign-options';
import { DELIVERY_FAULT_KINDS, type DeliveryFaultKind } from './faults';
import { DeliveryFaultInjector } from './injector';
import {
  DEFAULT_DELIVERY_FAULT_RATES,
  DEFAULT_SCENARIO_SHARES,
  type DeliveryCampaignPlan,
  type PlannedFaults,
  planDeliveries,
} from './plan';

/**
 * Everything a run starts from; as a RunClock, the run's clock (its runtimes' clock, `--clock`):
 * acceptance, terminal and fault times are read from it, as the system's own times and the terminal
 * bound are on it.
 */
export interface DeliveryCampaignSetup extends RunClock, Pick<CampaignClock, 'endTrace'> {
  /** The run's clock itself: the driver is its actor (on a seeded one, its calls wait their turn). */
  readonly clock: RuntimeClock;
  readonly log: (line: string) => void;
  readonly workDir: string;
  readonly facts: DeliveryAssemblyFacts;
  readonly seed: number;
  readonly enabledKinds: readonly DeliveryFaultKind[];
  readonly plan: DeliveryCampaignPlan;
  readonly maxInFlight: number;
  readonly fleetReadDelayMillis: number;
  readonly injector: DeliveryFaultInjector;
  readonly bound: TerminalBound;
  /** `s<seed>-<ISO time>`: names the run's data directory, logs and summary. */
  readonly runId: string;
  readonly dataDir: string;
  readonly functionLogDir: string;
  /** One IAM record directory per start, in order (a restart must not overwrite the last one's denials). */
  readonly iamRecordDirs: readonly string[];
  /**
   * Starts the runtime on the run's assembly, data directory and fault hooks (again after a
   * restart), with a driver whose observer is subscribed: rules made through the EventBridge API
   * live as long as the runtime.
   */
  startRuntime(): Promise<[LocalRuntime, DeliverySystemDriver]>;
}

/** Prepares a run from its options: nothing is started yet. */
export function prepareDeliveryCampaign(
  options: DeliveryCampaignOptions,
  log: (line: string) => void,
): DeliveryCampaignSetup {
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
  // One clock for the run: its runtimes (across the restart), the injector's held replies, the harness.
  const runClock = campaignClock(options.clock, seed, options.trace);
  const { clock } = runClock;
  const injector = new DeliveryFaultInjector({
    clock,
    now: () => clock.now(),
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

  const files = campaignFiles(workDir, seed, clock);
  const startRuntime = async (): Promise<[LocalRuntime, DeliverySystemDriver]> => {
    const runtime = await files.startRuntime(assemblyDir, injector.hooks(), facts.stackName);
    const driver = new DeliverySystemDriver(runtime.target, facts.stackName, clock);
    await driver.subscribeObserver();
    return [runtime, driver];
  };
  return {
    ...runClockOf(clock),
    clock,
    endTrace: () => runClock.endTrace(),
    log,
    workDir,
    facts,
    seed,
    enabledKinds,
    plan,
    maxInFlight: options.maxInFlight ?? 12,
    fleetReadDelayMillis,
    injector,
    bound,
    runId: files.runId,
    dataDir: files.dataDir,
    functionLogDir: files.functionLogDir,
    iamRecordDirs: files.iamRecordDirs,
    startRuntime,
  };
}

/** Faults that each may cost a delivery a round of redeliveries or relay retries. */
function costlyFaults(faults: PlannedFaults): number {
  return Object.keys(faults).filter((key) => key !== 'sqsDuplicate').length;
}
