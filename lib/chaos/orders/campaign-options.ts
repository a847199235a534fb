/**
 * What a caller may set of an order campaign (the chaos CLI, the recovery benchmark, the fault
 * tests), each with its default; read by the setup (campaign-setup.ts) and the run.
 */
import type { ClockMode } from '../../local-runtime';
import type { FaultKind } from './faults';
import type { FaultRates } from './plan';

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
  /**
   * Another profile's workflow timings for the assembly the campaign synthesizes (CDK context
   * `timings`, docs/configuration.md): `default` runs the deployed step timeouts, back-offs and
   * supervisor rate, at the speed of the work on the virtual clock. A profile's name (the command
   * checks it; the synthesis refuses an unknown one). Ignored with `assemblyDir`.
   * @default - the local profile's own
   */
  readonly timings?: string;
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
  /**
   * The runtime's clock: wall, or virtual (time moves only when the system is quiet, then jumps to
   * the next due timer; one clock across the run's restarts). @default 'wall' ('virtual' with `trace`)
   */
  readonly clock?: ClockMode;
  /**
   * Runs on a virtual clock seeded by `seed` and writes its trace to this file (from the project
   * root): a run of the same seed, options and commit writes the same file (the replay:
   * ../common/campaign-clock.ts).
   * @default - no trace, and the clock as `clock` says
   */
  readonly trace?: string;
}
