/**
 * Issue 22, item 4: the whole app on a seeded virtual clock replays. Two runs of one seed (two
 * orders submitted, five minutes of the clock) give the same trace, line for line: every request,
 * invocation, SDK call of the runtime's own and timer, in the same order at the same time of the
 * clock; and both orders end Processed. On a difference the test names the first line that differs.
 */
import { runSeededApp } from '../../../lib/chaos/orders/seeded-run';
import { assemblyUnderTest } from '../support';

jest.setTimeout(600_000);

it('gives the same trace twice for a seed, and the orders are processed', async () => {
  const options = { assemblyDir: assemblyUnderTest(), seed: 7, orders: 2, clockMinutes: 5 };
  const first = await runSeededApp(options);
  const second = await runSeededApp(options);
  expect(first.outcomes.map((outcome) => outcome.processState)).toEqual(['Processed', 'Processed']);
  expect(second.outcomes).toEqual(first.outcomes);
  // Not a trivial trace: the start-up, both orders' requests and invocations, the clock's timers.
  expect(first.trace.length).toBeGreaterThan(1_000);
  expect(
    first.trace.some((line) => line.includes('invoke SchedulerAgentSupervisor-ReserveInventoryAgent')),
  ).toBe(true);
  const differs = first.trace.findIndex((line, index) => second.trace[index] !== line);
  const firstDifference =
    differs === -1 && first.trace.length === second.trace.length
      ? undefined
      : { line: differs, first: first.trace[differs], second: second.trace[differs] };
  expect(firstDifference).toBeUndefined();
});
