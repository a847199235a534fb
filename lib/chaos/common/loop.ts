/**
 * Pieces of a campaign's main loop that every campaign shares: waiting, a submission retried until
 * the API answers for good, and a sampler that ticks while the runtime is up.
 */
import { sleep } from '../../../lambdas/shared/clock';
import type { SubmitOutcome } from '../../harness/orders-driver';
import type { RuntimeClock } from '../../local-runtime';
import { formatMillis } from './report';
import type { RestartWindow } from './verdicts';

export type SubmissionResult = { readonly acceptedAt: number } | { readonly refused: string };

/** A time to read and to wait on. */
export interface Pace {
  readonly now: () => number;
  /** Resolves once `millis` have passed. */
  readonly sleep: (millis: number) => Promise<void>;
}

/** The machine's time. */
export const MACHINE_PACE: Pace = { now: () => Date.now(), sleep };

/** The run's clock as a campaign's loop reads and waits on it (its runtimes' clock, `--clock`). */
export interface RunClock extends Pace {
  /**
   * The harness's own pace: how long it waits between its polls, submissions and samples, and its
   * patience. On a seeded clock, the run's clock: the harness is then one of the run's actors (its
   * requests wait their turn too: harnessClient), so a replay polls, samples and gives up at the
   * same points of the schedule. Otherwise the machine's time, as a poll's pace.
   */
  readonly pace: Pace;
}

/** The run's clock as a RunClock. */
export function runClockOf(clock: RuntimeClock): RunClock {
  const run: Pace = { now: () => clock.now(), sleep: (millis) => clock.sleep(millis) };
  return { ...run, pace: clock.seed === undefined ? MACHINE_PACE : run };
}

/**
 * Submits until accepted or refused: transport errors, 429 and 5xx are retried (after Retry-After),
 * nothing is sent while `paused()` (the runtime is restarting), and after `giveUpMillis` (of the
 * harness's pace: the campaign's patience) it stops. `onRetry` hears of each answer that is retried (e.g. to
 * count admission's 429s). `acceptedAt` is read from the run's clock, which the system's own times
 * and the terminal bound are on, and Retry-After is waited on it: the system names a time of its
 * own (admission's drain rate, which on the virtual clock may be minutes of it that pass in
 * seconds).
 */
export async function submitUntilAnswered(
  submit: () => Promise<SubmitOutcome>,
  paused: () => boolean,
  giveUpMillis: number,
  clock: RunClock,
  onRetry?: (outcome: Extract<SubmitOutcome, { kind: 'retry' }>) => void,
): Promise<SubmissionResult> {
  const giveUpAt = clock.pace.now() + giveUpMillis;
  while (clock.pace.now() < giveUpAt) {
    if (paused()) {
      await clock.pace.sleep(200);
      continue;
    }
    const outcome = await submit();
    if (outcome.kind === 'accepted') return { acceptedAt: clock.now() };
    if (outcome.kind === 'refused') {
      return { refused: `HTTP ${outcome.status}: ${outcome.body.slice(0, 200)}` };
    }
    onRetry?.(outcome);
    await clock.sleep(outcome.afterMillis);
  }
  return { refused: 'gave up retrying the submission' };
}

/** Wall time a campaign's end waits beyond twice what the run's clock still has to run. */
export const END_WALL_PATIENCE_MILLIS = 5 * 60_000;

/** What a campaign logs when the wall-clock cap ended its wait (waitOnTheRunsClock). */
export const CLOCK_STOOD_STILL =
  "[chaos] the run's clock stood still: stopped waiting for the end on the wall clock's cap (the verdicts show what was left)";

/**
 * Waits while `going()` and the run's clock is before `deadline()` (which may move later: an
 * operator's action reopens an order), calling `onPoll` every `pollMillis` of the harness's pace.
 * On the virtual clock the wait is also capped on the wall clock, so a clock that stands still
 * (something holding it) ends the campaign with its verdicts instead of hanging: the cap is twice
 * the clock's remaining wait plus `patienceMillis`, as a busy run's clock may move slower than the
 * wall. On the wall clock the cap never binds first. Resolves true when the cap ended the wait.
 */
export async function waitOnTheRunsClock(
  going: () => boolean,
  clock: RunClock,
  deadline: () => number,
  onPoll: () => void,
  pollMillis = 500,
  patienceMillis = END_WALL_PATIENCE_MILLIS,
): Promise<boolean> {
  let seenDeadline = Number.NEGATIVE_INFINITY;
  let wallCap = Number.POSITIVE_INFINITY;
  let capReached: Promise<void> = new Promise(() => undefined);
  while (going() && clock.now() < deadline()) {
    if (deadline() > seenDeadline) {
      seenDeadline = deadline();
      wallCap = Date.now() + 2 * (seenDeadline - clock.now()) + patienceMillis;
      capReached = wallTimeout(wallCap - Date.now());
    }
    if (Date.now() >= wallCap) return true;
    onPoll();
    // On a seeded clock the poll waits on it: a clock that stands still would never end it.
    await Promise.race([clock.pace.sleep(pollMillis), capReached]);
  }
  return false;
}

/** Resolves after `millis` of the machine's time, without keeping the process alive. */
function wallTimeout(millis: number): Promise<void> {
  return new Promise((resolve) => {
    setTimeout(resolve, Math.max(0, millis)).unref();
  });
}

/**
 * Runs `tick` every `intervalMillis` of `pace` until stopped, skipping ticks while `paused()`; a
 * failed tick is logged (unless paused meanwhile) and the next one tries again. `stop` resolves
 * after the last tick.
 */
export function startSampler(
  tick: () => Promise<void>,
  paused: () => boolean,
  intervalMillis: number,
  log: (line: string) => void,
  pace: Pace = MACHINE_PACE,
): { stop(): Promise<void> } {
  let running = true;
  const loop = (async () => {
    while (running) {
      if (!paused()) {
        try {
          await tick();
        } catch (error) {
          if (!paused()) log(`[chaos] sampling failed (will retry): ${(error as Error).message}`);
        }
      }
      await pace.sleep(intervalMillis);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

/** One subject's (order's, delivery's) way through a campaign, as the loop sees it. */
export interface SubjectProgress {
  acceptedAt?: number;
  terminalAt?: number;
  refused?: string;
}

/**
 * What a campaign's loop tracks of its subjects and restarts: which are in flight, which still hold
 * a slot, the runtime's downtime, and the progress line printed every few seconds.
 */
export class CampaignTracker {
  readonly subjects: Map<string, SubjectProgress>;
  readonly restarts: RestartWindow[] = [];
  private lastPrinted = 0;

  constructor(
    ids: readonly string[],
    private readonly settings: {
      readonly boundMillis: number;
      /** The run's clock, which acceptance times are on (submitUntilAnswered). */
      readonly now: () => number;
      readonly startedAt: number;
      readonly intervalMillis: number;
      readonly log: (line: string) => void;
      readonly kinds: readonly string[];
      readonly firedCount: (kind: string) => number;
    },
  ) {
    this.subjects = new Map(ids.map((id) => [id, {}]));
  }

  of(id: string): SubjectProgress {
    const subject = this.subjects.get(id);
    if (!subject) throw new Error(`${id} is not planned`);
    return subject;
  }

  inFlightIds(): string[] {
    return [...this.subjects]
      .filter(([, subject]) => subject.acceptedAt !== undefined && subject.terminalAt === undefined)
      .map(([id]) => id);
  }

  downtimeMillis(): number {
    return this.restarts.reduce((sum, window) => sum + (window.readyAt - window.lastDrainAt), 0);
  }

  /**
   * In flight and still within the bound: one past it is already a violation and must not hold a
   * slot, or a system that strands its subjects would stall the campaign instead of failing it.
   */
  occupying(): number {
    const overdueBefore = this.settings.now() - this.settings.boundMillis - this.downtimeMillis();
    return this.inFlightIds().filter((id) => (this.subjects.get(id)?.acceptedAt ?? 0) >= overdueBefore)
      .length;
  }

  lastAcceptedAt(): number {
    return Math.max(0, ...[...this.subjects.values()].map((subject) => subject.acceptedAt ?? 0));
  }

  printProgress(force = false): void {
    const now = Date.now();
    if (!force && now - this.lastPrinted < this.settings.intervalMillis) return;
    this.lastPrinted = now;
    const all = [...this.subjects.values()];
    const accepted = all.filter((subject) => subject.acceptedAt !== undefined).length;
    const terminal = all.filter((subject) => subject.terminalAt !== undefined).length;
    const { kinds, firedCount } = this.settings;
    const fired = kinds
      .filter((kind) => firedCount(kind) > 0)
      .map((kind) => `${kind} ${firedCount(kind)}`)
      .join(', ');
    this.settings.log(
      `[chaos ${formatMillis(now - this.settings.startedAt)}] accepted ${accepted}/${all.length}, terminal ${terminal}, ` +
        `in flight ${accepted - terminal}; fired: ${fired || 'none yet'}`,
    );
  }
}
