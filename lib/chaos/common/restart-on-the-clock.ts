/**
 * A campaign's runtime restart, on the run's clock. On a seeded clock the restart waits its turn as
 * one activity and holds the clock while the runtime stops (what stopping cuts short is cut at the
 * same point of the schedule), and no timer fires until the runtime is back: the new runtime's
 * start-up calls are still admitted, in the seed's order. Without it the harness's and the
 * injector's timers fired as many times as the start-up took of the machine's time, and two runs of
 * a campaign with runtime-restart parted there (lib/chaos/README.md, Replay). On any other clock it
 * just stops and starts. Resolves with the run clock's time once the runtime had stopped.
 */
import { admitted, type RuntimeClock, VirtualClock } from '../../local-runtime';

export async function restartOnTheClock(
  clock: RuntimeClock,
  stop: () => Promise<void>,
  start: () => Promise<void>,
): Promise<number> {
  const seeded = clock instanceof VirtualClock && clock.seed !== undefined ? clock : undefined;
  if (!seeded) {
    await stop();
    const stoppedAt = clock.now();
    await start();
    return stoppedAt;
  }
  const held = await admitted(seeded, 'harness restart');
  const frozen = seeded.freeze();
  try {
    try {
      await stop();
    } finally {
      held.release();
    }
    const stoppedAt = seeded.now();
    await start();
    return stoppedAt;
  } finally {
    frozen.thaw();
  }
}
