/**
 * The chaos campaign: runs the synthesized app on the local runtime with the fault injector's
 * hooks, drives the planned orders through the API with a bounded number in flight, restarts the
 * whole runtime mid-way on the same data directory, samples the state store while it runs, then
 * takes the final snapshot (state, ledger, alerts, fault log) and hands it to the checker.
 * Its phases live apart: what is decided before anything runs (campaign-setup.ts), the run
 * (campaign-run.ts), its last waits (campaign-settle.ts) and the summary's notes (campaign-notes.ts).
 *
 * Deterministic given the seed: the plan and every fault decision are seeded. Without a trace,
 * timing (which message is picked first, how long a loaded CPU takes) still varies, so counts of
 * collateral effects (lost races, redeliveries) and latencies differ between runs of the same seed.
 * With one (`trace`), the run is on a clock seeded by the seed and replays
 * (../common/campaign-clock.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AssemblyFacts } from '../../harness/assembly';
import type { TerminalBound } from '../common/bounds';
import { campaignNotes, compensationFaultFirings } from './campaign-notes';
import type { CampaignOptions } from './campaign-options';
import { OrderCampaignRun } from './campaign-run';
import { prepareCampaign } from './campaign-setup';
import type { CampaignSnapshot } from './campaign-snapshot';
import { type CheckResult, checkCampaign } from './invariants';
import { renderSummary } from './report';

export type { CampaignOptions } from './campaign-options';

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

export async function runCampaign(options: CampaignOptions = {}): Promise<CampaignReport> {
  const started = Date.now();
  const log = options.log ?? ((line: string) => console.log(line));
  const setup = prepareCampaign(options, log);
  let snapshot: CampaignSnapshot;
  let run: OrderCampaignRun;
  try {
    run = await OrderCampaignRun.start(setup, options, started);
    try {
      await run.submitAll();
      await run.awaitTheEnd();
    } finally {
      await run.stopSampling();
    }
    snapshot = await run.finish();
  } finally {
    setup.endTrace();
  }
  const result = checkCampaign(snapshot);
  const wallMillis = Date.now() - started;
  const compensationFaultsFired = compensationFaultFirings(setup.plan.orders, setup.injector.events);
  const summary = renderSummary({
    snapshot,
    result,
    bound: setup.bound,
    seed: setup.seed,
    wallMillis,
    notes: campaignNotes(setup, run, compensationFaultsFired),
  });
  writeFileSync(join(setup.workDir, `summary-${setup.runId}.txt`), `${summary}\n`);
  return {
    snapshot,
    result,
    bound: setup.bound,
    summary,
    wallMillis,
    facts: setup.facts,
    compensationFaultsFired,
  };
}
