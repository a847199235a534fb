/**
 * The delivery campaign: runs the synthesized app on the local runtime with the delivery fault
 * injector's hooks, submits the planned deliveries through the delivery API with a bounded number in
 * flight (a burst all at once), sends the planned poison messages, restarts the whole runtime
 * half-way on the same data directory, samples the Delivery and Drone Scheduler tables while it
 * runs, then takes the final snapshot (every service table, the lifecycle events a de-duplicating
 * bus subscriber received, the dead letters the consumers sent, the fault log) for the checker.
 * Its phases live apart: what is decided before anything runs (campaign-setup.ts), the run
 * (campaign-run.ts, pacing submissions with fleet-pace.ts) and its last wait (campaign-settle.ts).
 *
 * Deterministic given the seed: the plan and every fault decision are seeded. Without a trace,
 * timing (which message a poller takes first, how long a loaded CPU takes) still varies between
 * runs of one seed. With one (`trace`), the run is on a clock seeded by the seed and replays
 * (../common/campaign-clock.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TerminalBound } from '../common/bounds';
import { formatMillis } from '../common/report';
import type { DeliveryAssemblyFacts } from './assembly';
import type { DeliveryCampaignOptions } from './campaign-options';
import { DeliveryCampaignRun } from './campaign-run';
import { type DeliveryCampaignSetup, prepareDeliveryCampaign } from './campaign-setup';
import { checkDeliveryCampaign, type DeliveryCampaignSnapshot, type DeliveryCheckResult } from './invariants';
import { renderDeliverySummary } from './report';

export type { DeliveryCampaignOptions } from './campaign-options';

export interface DeliveryCampaignReport {
  readonly snapshot: DeliveryCampaignSnapshot;
  readonly result: DeliveryCheckResult;
  readonly bound: TerminalBound;
  readonly summary: string;
  readonly wallMillis: number;
  readonly facts: DeliveryAssemblyFacts;
}

export async function runDeliveryCampaign(
  options: DeliveryCampaignOptions = {},
): Promise<DeliveryCampaignReport> {
  const started = Date.now();
  const log = options.log ?? ((line: string) => console.log(line));
  const setup = prepareDeliveryCampaign(options, log);
  let snapshot: DeliveryCampaignSnapshot;
  try {
    const run = await DeliveryCampaignRun.start(setup, options, started);
    try {
      await run.sendGarbage();
      await run.submitAll();
      await run.awaitTheEnd();
    } finally {
      await run.stopSampling();
    }
    snapshot = await run.finish();
  } finally {
    setup.endTrace();
  }
  const result = checkDeliveryCampaign(snapshot);
  const wallMillis = Date.now() - started;
  const summary = renderDeliverySummary({
    snapshot,
    result,
    bound: setup.bound,
    seed: setup.seed,
    wallMillis,
    notes: deliveryNotes(setup, options),
  });
  writeFileSync(join(setup.workDir, `summary-${setup.runId}.txt`), `${summary}\n`);
  return { snapshot, result, bound: setup.bound, summary, wallMillis, facts: setup.facts };
}

/** The summary's notes: the profile's limits and timings the run ran with. */
function deliveryNotes(setup: DeliveryCampaignSetup, options: DeliveryCampaignOptions): string[] {
  const { facts, plan, fleetReadDelayMillis } = setup;
  return [
    `profile: ${facts.limits.drones} drones, maxPayloadGrams ${facts.limits.maxPayloadGrams}, maxRangeKm ${facts.limits.maxRangeKm}, ` +
      `maxReceiveAttempts ${facts.limits.maxReceiveAttempts}, remediation back-off ${facts.remediation.retryBaseSeconds}-${facts.remediation.retryMaxSeconds} s`,
    `consumer timeout ${facts.functionTimeoutSeconds} s, visibility timeout ${facts.visibilityTimeoutSeconds} s ` +
      `(a failed receive comes back after it), relay retry budget ${formatMillis(facts.relayRetryMillis)}`,
    `flight ${facts.flight.pickupMillis} + ${facts.flight.flightMillis} ms; ${plan.garbage.length} garbage messages; ` +
      `drone scheduler fleet reads answered in pairs, or alone after ${fleetReadDelayMillis} ms (contention)`,
    ...(options.maxWaitAfterLastMillis !== undefined
      ? [`waited at most ${formatMillis(options.maxWaitAfterLastMillis)} after the last acceptance`]
      : []),
  ];
}
