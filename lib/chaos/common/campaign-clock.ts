/**
 * The one clock of a campaign's run (its runtimes across a restart, the injector's held replies,
 * the harness's pace): `--clock` as given; with `--trace FILE`, a virtual clock seeded by the
 * campaign's seed (lib/local-runtime/clock/README.md), whose trace, every admission and timer fired
 * with its time, the run writes to FILE. A run of the same seed, options and commit writes the
 * same file: the replay (lib/chaos/README.md, Replay, says what is measured).
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { PROJECT_ROOT } from '../../harness/assembly';
import { type ClockMode, createClock, type RuntimeClock, VirtualClock } from '../../local-runtime';

export interface CampaignClock {
  readonly clock: RuntimeClock;
  /**
   * Ends the trace and closes its file (no-op without `--trace`, or once ended): the run calls it
   * after its last read, before it stops the runtime (what stopping cuts short goes in the order the
   * machine takes), and again if it ends early.
   */
  endTrace(): void;
  /** The trace's file, absolute (undefined without `--trace`). */
  readonly traceFile: string | undefined;
}

export function campaignClock(
  mode: ClockMode | undefined,
  seed: number,
  traceFile: string | undefined,
): CampaignClock {
  if (traceFile === undefined) {
    return { clock: createClock(mode, '--clock'), endTrace: () => undefined, traceFile: undefined };
  }
  if (mode === 'wall') {
    throw new Error('--trace needs the virtual clock (a seeded one is what replays): drop --clock wall');
  }
  const file = resolve(PROJECT_ROOT, traceFile);
  // Written as it goes: a run that hangs or crashes leaves its trace up to there.
  mkdirSync(dirname(file), { recursive: true });
  const descriptor = openSync(file, 'w');
  let open = true;
  const clock = new VirtualClock({
    seed,
    trace: (line) => {
      if (open) writeSync(descriptor, `${line}\n`);
    },
  });
  return {
    clock,
    traceFile: file,
    endTrace: () => {
      if (!open) return;
      open = false;
      closeSync(descriptor);
    },
  };
}
