/**
 * What the browser test reads of the console's dashboard (console/src/DashboardView.tsx), kept
 * apart from console.test.ts so that file stays a list of scenarios: each group's charts (the bars
 * they draw and the hour's total they say), its table (the text equivalent), the hour it shows, the
 * firing alarms on top, and the summary a chart says when reached from the keyboard. Read in the
 * page as text: this project's TypeScript knows no DOM.
 */
import type { Page } from 'playwright-core';

export type DashboardGroup = 'orders' | 'deliveries';

export interface DrawnSeries {
  readonly name: string;
  /** The hour's total the chart says (data-total). */
  readonly total: number;
  /** The sum of the bars it draws. */
  readonly bars: number;
}

const groupSelector = (group: DashboardGroup) => `[data-testid="dashboard-${group}"]`;

/** Each chart of the group, in the page's order. */
export function drawnSeries(page: Page, group: DashboardGroup): Promise<DrawnSeries[]> {
  return page.evaluate<DrawnSeries[]>(
    `[...document.querySelectorAll('${groupSelector(group)} ul.small-multiples > li')].map((item) => ({
      name: item.getAttribute('data-series'),
      total: Number(item.getAttribute('data-total')),
      bars: [...item.querySelectorAll('.minute-bar')].reduce((sum, bar) => sum + Number(bar.getAttribute('data-count')), 0),
    }))`,
  );
}

/** Each row of the group's table: the name and the hour's total it says. */
export function tableRows(page: Page, group: DashboardGroup): Promise<{ name: string; total: number }[]> {
  return page.evaluate<{ name: string; total: number }[]>(
    `[...document.querySelectorAll('${groupSelector(group)} tbody tr')].map((row) => ({
      name: row.getAttribute('data-series'),
      total: Number(row.querySelector('[data-cell="total"]').textContent),
    }))`,
  );
}

/** The hour the dashboard shows (ISO, end excluded), once it has read it. */
export async function shownHour(page: Page, timeoutMs: number): Promise<{ from: string; to: string }> {
  const group = page.locator(groupSelector('orders'));
  await group.waitFor({ timeout: timeoutMs });
  return {
    from: (await group.getAttribute('data-from')) ?? '',
    to: (await group.getAttribute('data-to')) ?? '',
  };
}

/** The hour's total one chart says. */
export async function totalOf(page: Page, group: DashboardGroup, name: string): Promise<number> {
  return Number(
    await page
      .locator(`${groupSelector(group)} ul.small-multiples > li[data-series="${name}"]`)
      .getAttribute('data-total'),
  );
}

/**
 * Expects every chart named to count at least its number, polling the page (which reads the
 * metrics every 30 s) for up to `timeoutMs`.
 */
export async function expectCountedAtLeast(
  page: Page,
  wanted: readonly { readonly group: DashboardGroup; readonly name: string; readonly atLeast: number }[],
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const read = () =>
    Promise.all(wanted.map(async ({ group, name }) => ({ name, total: await totalOf(page, group, name) })));
  let totals = await read();
  while (totals.some(({ total }, index) => total < (wanted[index]?.atLeast ?? 0)) && Date.now() < deadline) {
    await new Promise((resolveWait) => setTimeout(resolveWait, 1_000));
    totals = await read();
  }
  expect(
    totals.map(({ name, total }, index) => ({ name, enough: total >= (wanted[index]?.atLeast ?? 0), total })),
  ).toEqual(totals.map(({ name, total }) => ({ name, enough: true, total })));
}

/** Expects each chart of both groups to draw the total it says, and the table to say the same. */
export async function expectChartsAsTheirTables(page: Page): Promise<void> {
  for (const group of ['orders', 'deliveries'] as const) {
    const [series, rows] = await Promise.all([drawnSeries(page, group), tableRows(page, group)]);
    expect(series.map(({ name, bars }) => ({ name, total: bars }))).toEqual(rows);
    expect(series.map(({ name, total }) => ({ name, total }))).toEqual(rows);
  }
}

/**
 * The alarm panel's heading summary and the firing alarms it spells out, read at once (the panel
 * reads the alarms every 2 s: two reads could straddle a change).
 */
export function alarmsOnTop(page: Page): Promise<{ summary: string; firing: string[] }> {
  return page.evaluate<{ summary: string; firing: string[] }>(`({
    summary: (document.querySelector('#alarms-title .summary')?.textContent ?? '').trim(),
    firing: [...document.querySelectorAll('ul.firing > li')].map((item) => item.textContent.trim()),
  })`);
}

/** A chart of the group, to focus or read. */
export const chartOf = (page: Page, group: DashboardGroup, name: string) =>
  page.locator(`${groupSelector(group)} li[data-series="${name}"] [data-testid="dashboard-chart"]`);
