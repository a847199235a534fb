/**
 * What an order campaign decides before anything runs: its assembly (synthesized, or the one given,
 * checked against admission-pressure), the seeded plan, the clock skews, the fault injector, the
 * terminal bound and the run's files, and how to start the runtime on them (again after a restart,
 * on the same data directory). Apart from the run itself (campaign-run.ts) so that each reads alone.
 */

import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { WorkflowTimings } from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { type AssemblyFacts, PROJECT_ROOT, readAssemblyFacts, synthesizeLocal } from '../../harness/assembly';
import type { LocalRuntime, RuntimeClock } from '../../local-runtime';
import type { TerminalBound } from '../common/bounds';
import { type CampaignClock, campaignClock } from '../common/campaign-clock';
import { campaignFiles } from '../common/campaign-files';
import { type RunClock, runClockOf } from '../common/loop';
import { maxSafeRelativeSkewMillis, terminalBound } from './bounds';
import type { CampaignOptions } from './campaign-options';
import { FAULT_KINDS, FaultKind } from './faults';
import { FaultInjector } from './injector';
import {
  CAMPAIGN_STEPS,
  type CampaignPlan,
  DEFAULT_FAULT_RATES,
  type FaultRates,
  planCampaign,
} from './plan';

export const DEFAULT_ADMISSION_LIMIT = 16;
export const DEFAULT_MAX_IN_FLIGHT = 24;

/**
 * Everything a run starts from; as a RunClock, the run's clock (its runtimes' clock, `--clock`):
 * acceptance, terminal and fault times are read from it, as the system's own times and the terminal
 * bound are on it.
 */
export interface CampaignSetup extends RunClock, Pick<CampaignClock, 'endTrace'> {
  /** The run's clock itself: the drivers are its actors (on a seeded one, their calls wait their turn). */
  readonly clock: RuntimeClock;
  readonly log: (line: string) => void;
  readonly workDir: string;
  readonly facts: AssemblyFacts;
  readonly timings: WorkflowTimings;
  readonly seed: number;
  readonly rates: FaultRates;
  readonly enabledKinds: readonly FaultKind[];
  readonly plan: CampaignPlan;
  readonly maxInFlight: number;
  readonly admissionPressure: boolean;
  readonly skew: {
    readonly enabled: boolean;
    readonly supervisorMillis: number;
    readonly starterMillis: number;
  };
  readonly injector: FaultInjector;
  readonly bound: TerminalBound;
  /** `s<seed>-<ISO time>`: names the run's data directory, logs and summary. */
  readonly runId: string;
  readonly dataDir: string;
  readonly functionLogDir: string;
  /** One IAM record directory per start, in order (a restart must not overwrite the last one's denials). */
  readonly iamRecordDirs: readonly string[];
  /** Starts the runtime on the run's assembly, data directory and fault hooks (again after a restart). */
  startRuntime(): Promise<LocalRuntime>;
}

/** The campaign's scratch space (created): options.workDir, from the project root. */
function campaignWorkDir(options: CampaignOptions): string {
  const workDir = resolve(PROJECT_ROOT, options.workDir ?? '.local/chaos');
  mkdirSync(workDir, { recursive: true });
  return workDir;
}

/** Whether the campaign's kinds include admission-pressure (its assembly then needs a lower limit). */
function admissionPressureOf(options: CampaignOptions): boolean {
  return (options.enabledKinds ?? FAULT_KINDS).includes(FaultKind.AdmissionPressure);
}

/**
 * The assembly a campaign with these options runs: the one given, or one synthesized into its work
 * directory (with the admission limit admission-pressure needs). A caller that must not count the
 * synthesis as the run's (the bench) calls it first and passes the result as `assemblyDir`.
 */
export function campaignAssembly(options: CampaignOptions, log: (line: string) => void): string {
  const workDir = campaignWorkDir(options);
  const admissionPressure = admissionPressureOf(options);
  const assemblyDir = options.assemblyDir ?? join(workDir, 'cdk.out');
  if (!options.assemblyDir) {
    const admissionLimit = admissionPressure
      ? (options.admissionLimit ?? DEFAULT_ADMISSION_LIMIT)
      : undefined;
    const timings = options.timings === undefined ? '' : ` and the ${options.timings} profile's timings`;
    log(
      `[chaos] synthesizing with the local profile${timings}${admissionLimit ? ` and admission limit ${admissionLimit}` : ''} into ${assemblyDir} ...`,
    );
    synthesizeLocal(assemblyDir, {
      ...(admissionLimit !== undefined && { admissionLimit }),
      ...(options.timings !== undefined && { timings: options.timings }),
    });
  }
  return assemblyDir;
}

/** Reads the assembly's facts; admission-pressure needs a limit below the submissions outstanding. */
function checkedFacts(assemblyDir: string, admissionPressure: boolean, maxInFlight: number): AssemblyFacts {
  const facts = readAssemblyFacts(assemblyDir);
  if (admissionPressure && facts.admission.limit >= maxInFlight) {
    throw new Error(
      `admission-pressure needs an admission limit below --max-in-flight ${maxInFlight}, but ${assemblyDir} was synthesized ` +
        `with limit ${facts.admission.limit}: synthesize it with -c admissionLimit=${DEFAULT_ADMISSION_LIMIT}, let the campaign synthesize, ` +
        'or switch the kind off (--without admission-pressure)',
    );
  }
  return facts;
}

/** Prepares a run from its options: nothing is started yet. */
export function prepareCampaign(options: CampaignOptions, log: (line: string) => void): CampaignSetup {
  const enabledKinds = options.enabledKinds ?? FAULT_KINDS;
  const workDir = campaignWorkDir(options);
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const admissionPressure = admissionPressureOf(options);
  const assemblyDir = campaignAssembly(options, log);
  const facts = checkedFacts(assemblyDir, admissionPressure, maxInFlight);
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
  const skew = {
    enabled: enabledKinds.includes(FaultKind.ClockSkew),
    supervisorMillis: Math.round(skewBudget * 0.6),
    starterMillis: Math.round(skewBudget * 0.4),
  };
  // One clock for the run: its runtimes (across the restart), the injector's held replies, the harness.
  const runClock = campaignClock(options.clock, seed, options.trace);
  const { clock } = runClock;
  const injector = new FaultInjector({
    clock,
    now: () => clock.now(),
    plan,
    facts,
    enabledKinds,
    remoteTransientPerCall: rates.remoteTransientPerCall,
    holdMillis: timings.stepTimeoutSeconds * 1000 + 1000,
    supervisorClockOffsetMillis: skew.supervisorMillis,
    starterClockOffsetMillis: skew.starterMillis,
  });
  const bound = terminalBound({
    timings,
    stepCount: CAMPAIGN_STEPS.length,
    maxClockSkewMillis: skew.enabled ? skew.supervisorMillis : 0,
    schedulingAllowanceMillis: (options.schedulingAllowanceSeconds ?? 60) * 1000,
  });

  const files = campaignFiles(workDir, seed, clock);
  const stackName = facts.agents[0]?.stackName ?? '';
  return {
    ...runClockOf(clock),
    clock,
    endTrace: () => runClock.endTrace(),
    log,
    workDir,
    facts,
    timings,
    seed,
    rates,
    enabledKinds,
    plan,
    maxInFlight,
    admissionPressure,
    skew,
    injector,
    bound,
    runId: files.runId,
    dataDir: files.dataDir,
    functionLogDir: files.functionLogDir,
    iamRecordDirs: files.iamRecordDirs,
    startRuntime: () => files.startRuntime(assemblyDir, injector.hooks(), stackName),
  };
}
