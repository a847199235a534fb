/**
 * The charts' time axis (OrderChart.tsx, DeliverySwimlane.tsx). A stalled order idles for minutes between two
 * attempts of a second each: on one linear axis the later attempt would be a sliver at the edge. So
 * the axis is linear within each stretch of activity and cuts the long idle gaps between them down
 * to a fixed break (drawn as such, so nobody reads the cut as time). Pure, for the unit tests.
 */

export interface TimeAxis {
  /** Where time `at` (epoch ms) sits, from 0 to the width given. */
  readonly x: (at: number) => number;
  /** The x of each cut gap's middle, with the time it leaves out. */
  readonly breaks: readonly { readonly x: number; readonly skippedMs: number }[];
  /** Round times to label, a few per stretch. */
  readonly ticks: readonly { readonly at: number; readonly x: number }[];
}

/** A gap is cut when longer than both of these: 10 s, and a fifth of the whole span. */
const GAP_MIN_MS = 10_000;
const GAP_SHARE = 0.2;
const BREAK_WIDTH = 28;
/** Room for one time label: even a stretch of a second reads. */
const MIN_STRETCH_WIDTH = 80;
/** Room for one tick's label. */
const TICK_SPACING = 110;

/** Tick steps a reader counts in, from one second to a day. */
const TICK_STEPS_MS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21_600, 86_400].map(
  (seconds) => seconds * 1000,
);

/** The stretches of activity: the intervals merged, with every gap too short to cut kept inside. */
function stretchesOf(intervals: readonly (readonly [number, number])[]): [number, number][] {
  const sorted = [...intervals].sort((left, right) => left[0] - right[0]);
  const first = sorted[0];
  if (first === undefined) return [[0, 1000]];
  const last = Math.max(...sorted.map(([, end]) => end));
  const cut = Math.max(GAP_MIN_MS, (last - first[0]) * GAP_SHARE);
  const stretches: [number, number][] = [[first[0], first[1]]];
  for (const [start, end] of sorted.slice(1)) {
    const current = stretches[stretches.length - 1] as [number, number];
    if (start - current[1] > cut) stretches.push([start, end]);
    else current[1] = Math.max(current[1], end);
  }
  return stretches;
}

/** Round times within [from, to], at most about `count` of them. */
function ticksWithin(from: number, to: number, count: number): number[] {
  const step = TICK_STEPS_MS.find((candidate) => (to - from) / candidate <= count) ?? 86_400_000;
  const ticks: number[] = [];
  for (let tick = Math.ceil(from / step) * step; tick <= to; tick += step) ticks.push(tick);
  return ticks;
}

/** The axis of `intervals` (each [start, end] in epoch ms) over `width`. */
export function timeAxisOf(intervals: readonly (readonly [number, number])[], width: number): TimeAxis {
  const stretches = stretchesOf(intervals);
  const durations = stretches.map(([from, to]) => to - from);
  const total = durations.reduce((sum, duration) => sum + duration, 0);
  const free = Math.max(
    width - (stretches.length - 1) * BREAK_WIDTH - stretches.length * MIN_STRETCH_WIDTH,
    0,
  );
  const widths = durations.map(
    (duration) => MIN_STRETCH_WIDTH + (total > 0 ? (free * duration) / total : free / stretches.length),
  );
  const lefts: number[] = [];
  let left = 0;
  for (const stretchWidth of widths) {
    lefts.push(left);
    left += stretchWidth + BREAK_WIDTH;
  }
  const within = (index: number, at: number) => {
    const [from, to] = stretches[index] as [number, number];
    const share = to > from ? (Math.min(Math.max(at, from), to) - from) / (to - from) : 0.5;
    return (lefts[index] ?? 0) + share * (widths[index] ?? 0);
  };
  const x = (at: number) => {
    // The last stretch that starts at or before `at` (an instant inside a cut gap sits at the
    // stretch's end it follows; none of the chart's times falls there).
    let index = 0;
    stretches.forEach(([from], candidate) => {
      if (from <= at) index = candidate;
    });
    return within(index, at);
  };
  const breaks = stretches.slice(1).map(([from], index) => ({
    x: (lefts[index + 1] ?? 0) - BREAK_WIDTH / 2,
    skippedMs: from - (stretches[index] as [number, number])[1],
  }));
  // A stretch shorter than any round step is labelled at its start, so every stretch has a time.
  const ticks = stretches.flatMap(([from, to], index) => {
    const round = ticksWithin(from, to, Math.max(1, Math.floor((widths[index] ?? 0) / TICK_SPACING)));
    return (round.length > 0 ? round : [from]).map((at) => ({ at, x: within(index, at) }));
  });
  return { x, breaks, ticks };
}
