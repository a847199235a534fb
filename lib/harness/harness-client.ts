/**
 * An SDK client of the harness (a campaign's or a seeded run's driver) on the run's clock: on a
 * seeded clock each call waits its turn and holds the clock until its answer is read
 * (holdDuringCalls, labelled as the harness's), so a replay reads and writes at the same points of
 * the schedule; on any other clock the client is left as it is.
 */
import { holdDuringCalls, type RuntimeClock } from '../local-runtime';

export function harnessClient<T>(client: T, clock: RuntimeClock | undefined): T {
  return clock?.seed === undefined ? client : holdDuringCalls(client, clock, 'harness');
}
