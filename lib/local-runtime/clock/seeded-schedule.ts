/**
 * The order of concurrent work on a seeded virtual clock (issue 22, item 4): work that starts on
 * its own (a request arriving, an invocation, the runtime's own SDK call) waits to be admitted, and
 * once nothing is in progress the clock admits one, the seed's pick among those waiting sorted by
 * their labels; of several timers due at the same instant it fires one, the seed's pick. The
 * labels name what waits without the run's random parts (no ports, no minted ids), so the same
 * waiting set sorts the same in every run, and the sequence of admissions, with the clock's time,
 * is the trace a replay is compared by. Two waiting with the same label are a tie: their order is
 * the order they arrived in, which the run's timing decides; the trace marks each.
 */
import { mulberry32, type Random } from './seeded-random';

/** Work waiting to start. */
export interface Admission {
  readonly label: string;
  readonly start: () => void;
}

export interface PickedAdmission {
  readonly admission: Admission;
  /** Others waiting with the same label (0: the pick was the seed's alone). */
  readonly ties: number;
}

export class SeededSchedule {
  private readonly random: Random;
  private readonly waiting: Admission[] = [];
  private readonly admittedByLabel = new Map<string, number>();

  constructor(readonly seed: number) {
    this.random = mulberry32(seed);
  }

  get pending(): number {
    return this.waiting.length;
  }

  enqueue(admission: Admission): void {
    this.waiting.push(admission);
  }

  /** The next admission: the seed's pick among the waiting, sorted by label (stable). */
  next(): PickedAdmission | undefined {
    if (this.waiting.length === 0) return undefined;
    const sorted = this.waiting
      .map((admission, arrival) => ({ admission, arrival }))
      .sort((a, b) => compare(a.admission.label, b.admission.label) || a.arrival - b.arrival);
    const chosen = (sorted[this.choose(sorted.length)] as { admission: Admission; arrival: number })
      .admission;
    this.waiting.splice(this.waiting.indexOf(chosen), 1);
    const ties = sorted.filter(({ admission }) => admission.label === chosen.label).length - 1;
    return { admission: chosen, ties };
  }

  /** `label` with its ordinal among the admissions of that label so far (`label #n`). */
  numbered(label: string): string {
    const ordinal = (this.admittedByLabel.get(label) ?? 0) + 1;
    this.admittedByLabel.set(label, ordinal);
    return `${label} #${ordinal}`;
  }

  /** An index in [0, count): which of `count` candidates (timers due together, in arming order) goes first. */
  choose(count: number): number {
    return count <= 1 ? 0 : Math.floor(this.random() * count);
  }
}

function compare(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
