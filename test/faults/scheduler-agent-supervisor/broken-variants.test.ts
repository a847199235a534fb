/**
 * The checker is itself tested: the same campaign machinery runs an assembly whose bundled assets
 * carry deliberate bugs (planted at the asset level; the sources stay correct), and the checker
 * must name the specific invariant each bug breaks: duplicate effects, calls never reserved against
 * the retry budget, a FailureCount past the threshold, an alert relay that drops what the bus refused
 * (error-exactly-one-alert), and compensations that leave completed steps standing
 * (compensation-exact).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runCampaign } from '../../../lib/chaos/orders/campaign';
import { FaultKind } from '../../../lib/chaos/orders/faults';
import { DEFAULT_FAULT_RATES } from '../../../lib/chaos/orders/plan';
import { BROKEN_VARIANTS, plantBrokenVariants, readAssemblyFacts } from '../../../lib/harness/assembly';
import { testClockMode } from '../../support/test-clock';
import { assemblyUnderTest, TEST_WORK_DIR, testLog } from '../support';

const CAMPAIGN_TIMEOUT_MILLIS = 8 * 60_000;

describe('chaos checker against broken variants', () => {
  const afterCleanup: Array<() => void> = [];
  afterAll(() => {
    for (const cleanup of afterCleanup) cleanup();
  });

  it(
    'reports duplicate effects of a token-keyed agent, calls an agent never reserved against the retry budget, a FailureCount past the threshold of an off-by-one supervisor and an alert lost by a relay that ignores a failed publish',
    async () => {
      mkdirSync(TEST_WORK_DIR, { recursive: true });
      const brokenDir = join(mkdtempSync(join(TEST_WORK_DIR, 'broken-')), 'cdk.out');
      afterCleanup.push(() => rmSync(dirname(brokenDir), { recursive: true, force: true }));
      plantBrokenVariants(assemblyUnderTest(), brokenDir, [
        BROKEN_VARIANTS.agentKeyIncludesToken,
        BROKEN_VARIANTS.agentSkipsBudget,
        BROKEN_VARIANTS.supervisorThresholdOffByOne,
        BROKEN_VARIANTS.relayDropsUnpublishedAlert,
      ]);
      // Faults that make the system retry a step whose effect already happened (the token-keyed
      // agent then records a second effect), outages that use up every attempt (the broken
      // supervisor then lets FailureCount pass maxFailures; each such order raises an alert), and
      // alert bus outages (the broken relay removes the outbox entry of an alert the bus refused).
      const enabledKinds = [
        FaultKind.RemoteLatency,
        FaultKind.AgentKilledAfterEffect,
        FaultKind.RemoteOutage,
        FaultKind.AlertBusOutage,
      ];
      const report = await runCampaign({
        orders: 12,
        seed: 3,
        assemblyDir: brokenDir,
        clock: testClockMode(),
        workDir: TEST_WORK_DIR,
        enabledKinds,
        minOrdersPerKind: 3,
        rates: {
          ...DEFAULT_FAULT_RATES,
          attempt: {
            ...DEFAULT_FAULT_RATES.attempt,
            [FaultKind.RemoteLatency]: 0.25,
            [FaultKind.AgentKilledAfterEffect]: 0.25,
            [FaultKind.RemoteOutage]: 0.25,
          },
        },
        minProcessedShare: 0,
        log: testLog,
      });
      console.log(report.summary);
      const violations = (id: string) =>
        report.result.invariants.find((entry) => entry.id === id)?.violations ?? [];
      expect(report.result.passed).toBe(false);
      expect(violations('one-effect-per-key')).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^chaos-s3-\d{5}:\w+: 2 effects \(keys .+:[0-9a-f]{12}, .+:[0-9a-f]{12}\)$/),
        ]),
      );
      expect(violations('processed-one-effect-per-step')).toEqual(
        expect.arrayContaining([expect.stringMatching(/Processed with 2 \w+ effects for \w+$/)]),
      );
      // The agent that skips its reservations: the downstream counted calls no record reserved.
      expect(violations('calls-within-budget')).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^chaos-s3-\d{5}:\w+: \d+ calls received, 0 reserved in CallsMade$/),
        ]),
      );
      // One failure past the threshold the assembly was synthesized with.
      const { maxFailures } = readAssemblyFacts(assemblyUnderTest()).timings;
      expect(violations('failure-count-within-threshold')).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            new RegExp(`^chaos-s3-\\d{5}: FailureCount ${maxFailures + 1} > maxFailures ${maxFailures}$`),
          ),
        ]),
      );
      // The orders whose first alert publish the bus refused: their alert is gone for good.
      expect(report.snapshot.faults.some((event) => event.kind === FaultKind.AlertBusOutage)).toBe(true);
      expect(violations('error-exactly-one-alert')).toEqual(
        expect.arrayContaining([expect.stringMatching(/^chaos-s3-\d{5}: Error with 0 OrderFailed alerts$/)]),
      );
    },
    CAMPAIGN_TIMEOUT_MILLIS,
  );

  it(
    'reports completed steps left standing by an agent whose compensation names the order instead of the effect',
    async () => {
      mkdirSync(TEST_WORK_DIR, { recursive: true });
      const brokenDir = join(mkdtempSync(join(TEST_WORK_DIR, 'broken-')), 'cdk.out');
      afterCleanup.push(() => rmSync(dirname(brokenDir), { recursive: true, force: true }));
      plantBrokenVariants(assemblyUnderTest(), brokenDir, [BROKEN_VARIANTS.agentCompensationNamesTheOrder]);
      // Orders that fail for good past the first step: their completed steps must be undone. The
      // broken agent's compensations close a key that was never used, so the effects stand.
      const report = await runCampaign({
        orders: 6,
        seed: 5,
        assemblyDir: brokenDir,
        clock: testClockMode(),
        workDir: TEST_WORK_DIR,
        enabledKinds: [FaultKind.PermanentFailure, FaultKind.CompensationTransient],
        minOrdersPerKind: 3,
        rates: {
          ...DEFAULT_FAULT_RATES,
          attempt: {
            ...DEFAULT_FAULT_RATES.attempt,
            [FaultKind.PermanentFailure]: 0.5,
            [FaultKind.CompensationTransient]: 0.5,
          },
        },
        minProcessedShare: 0,
        log: testLog,
      });
      console.log(report.summary);
      const violations = report.result.invariants.find(
        (entry) => entry.id === 'compensation-exact',
      )?.violations;
      expect(report.result.passed).toBe(false);
      expect(violations).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            /^chaos-s5-\d{5}: (ReserveInventory|ChargePayment) was done \(\w+ effect\) and undone 0 times$/,
          ),
          expect.stringMatching(
            /^\w+ chaos-s5-\d{5}:\w+: undoes chaos-s5-\d{5}, which names no step of \w+$/,
          ),
        ]),
      );
    },
    CAMPAIGN_TIMEOUT_MILLIS,
  );
});
