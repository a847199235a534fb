/**
 * What the dashboard's small charts draw and say, derived from the dashboard's body (the hour, per
 * minute, console/contract/dashboard.ts) and the counts now: per state or status its bars, its
 * hour's total, its busiest minute and the one-line summary the chart says on focus and to screen
 * readers; the group's shared scale (small multiples compare only on one scale). Pure, so the unit
 * test checks exactly what the charts and their text equivalent say.
 */
import type { DashboardSeries } from '../contract/dashboard';

/** How many a state or status holds now: exact, or at least `count` (a list or count that stopped at its limit). */
export interface CountNow {
  readonly count: number;
  readonly atLeast: boolean;
}

export interface SmallChart {
  readonly name: string;
  /** Entered per minute, oldest first (index 0 starts at the window's `from`). */
  readonly perMinute: readonly number[];
  readonly total: number;
  /** The most entered in one minute, and the latest minute it happened in; undefined when none entered. */
  readonly busiest?: { readonly count: number; readonly at: number };
  readonly now?: CountNow;
  /** "Processing: 12 entered in the last hour, at most 4 in a minute, at 08:41; 3 now". */
  readonly summary: string;
}

export interface SmallMultiples {
  readonly charts: readonly SmallChart[];
  /** The scale every chart of the group shares: the most entered in one minute by any (at least 1). */
  readonly scaleMax: number;
}

const MINUTE_MILLIS = 60_000;

/** A minute as the page writes it: hours and minutes on the reader's clock. */
export const minuteOf = (at: number) =>
  new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** A count now in words: `3`, `300+`, or nothing known. */
export const countText = (now: CountNow | undefined) =>
  now === undefined ? '—' : `${now.count}${now.atLeast ? '+' : ''}`;

/**
 * The group's charts, in the body's order: each series with its count now (by name; none when the
 * counts are not read yet or not known for it).
 */
export function smallMultiplesOf(
  series: readonly DashboardSeries[],
  from: string,
  nowOf: (name: string) => CountNow | undefined,
  clock: (at: number) => string = minuteOf,
): SmallMultiples {
  const start = Date.parse(from);
  const charts = series.map(({ name, perMinute, total }): SmallChart => {
    let busiest: SmallChart['busiest'];
    perMinute.forEach((count, minute) => {
      if (count > 0 && count >= (busiest?.count ?? 0))
        busiest = { count, at: start + minute * MINUTE_MILLIS };
    });
    const now = nowOf(name);
    const hour =
      busiest === undefined
        ? 'none entered in the last hour'
        : `${total} entered in the last hour, at most ${busiest.count} in a minute, at ${clock(busiest.at)}`;
    return {
      name,
      perMinute,
      total,
      ...(busiest && { busiest }),
      ...(now && { now }),
      summary: `${name}: ${hour}${now ? `; ${countText(now)} now` : ''}`,
    };
  });
  const scaleMax = Math.max(1, ...charts.map((chart) => chart.busiest?.count ?? 0));
  return { charts, scaleMax };
}
