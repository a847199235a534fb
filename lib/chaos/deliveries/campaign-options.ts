/**
 * What a caller may set of a delivery campaign (the chaos CLI, the fault tests), each with its
 * default; read by the setup (campaign-setup.ts) and the run (campaign-run.ts).
 */
import type { ClockMode } from '../../local-runtime';
import type { DeliveryFaultKind } from './faults';
import type { DeliveryFaultRates, ScenarioShares } from './plan';

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
   * Contention: a drone scheduler's fleet read is answered with the next one, or alone after this
   * many milliseconds, so a burst's bookings in flight together read the same fleet and race on
   * the DRONE# version condition. @default 300
   */
  readonly fleetReadDelayMillis?: number;
  /** Keep the data directory after the run. @default false */
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
