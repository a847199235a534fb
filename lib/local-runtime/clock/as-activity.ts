/**
 * Work of a client outside the runtime (the campaign harness, a seeded run's client) as one activity
 * of a seeded clock: it waits its turn (`admit`), holds the clock while it runs, and names itself in
 * the headers it hands the work for its requests (ACTIVITY_HEADER: the server that serves one parks
 * it meanwhile), so its requests start when the schedule says, not when the machine gets to them.
 * On any other clock (or none) the work runs at once with no headers, as before.
 */
import { admitted } from './admitted';
import { ACTIVITY_HEADER, type RuntimeClock } from './runtime-clock';

export async function asActivity<T>(
  clock: RuntimeClock | undefined,
  label: string,
  work: (headers: Readonly<Record<string, string>>) => Promise<T>,
): Promise<T> {
  if (clock?.seed === undefined) return work({});
  const activity = await admitted(clock, label);
  try {
    return await work({ [ACTIVITY_HEADER]: activity.id });
  } finally {
    activity.release();
  }
}
