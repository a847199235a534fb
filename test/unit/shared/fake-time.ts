/** A clock that only moves when the code under test sleeps (or the test advances it). */
export function fakeTime(start: number) {
  let now = start;
  const sleeps: number[] = [];
  return {
    clock: { now: () => now },
    sleep: async (millis: number) => {
      sleeps.push(millis);
      now += millis;
    },
    advance: (millis: number) => {
      now += millis;
    },
    /** Every delay slept, in order. */
    sleeps,
  };
}

export type FakeTime = ReturnType<typeof fakeTime>;
