/**
 * What the dashboard's small charts draw and say (console/src/dashboard-chart.ts): each series' hour
 * total, its busiest minute (the latest of equals), the summary it says on focus, its count now,
 * and the scale the group shares.
 */
import { countText, smallMultiplesOf } from '../../../console/src/dashboard-chart';

const FROM = '2030-01-01T07:42:00.000Z';
const hour = (points: Record<number, number>) =>
  Array.from({ length: 60 }, (_, minute) => points[minute] ?? 0);
/** Minutes written as UTC HH:MM, so the test reads the same in every time zone. */
const utc = (at: number) => new Date(at).toISOString().slice(11, 16);

describe('the small multiples of one group', () => {
  const series = [
    { name: 'Processing', perMinute: hour({ 3: 2, 59: 4, 40: 4 }), total: 10 },
    { name: 'Processed', perMinute: hour({ 10: 1 }), total: 1 },
    { name: 'Error', perMinute: hour({}), total: 0 },
  ];
  const counts: Record<string, { count: number; atLeast: boolean }> = {
    Processing: { count: 3, atLeast: false },
    Processed: { count: 300, atLeast: true },
  };
  const multiples = smallMultiplesOf(series, FROM, (name) => counts[name], utc);

  it('says each chart in one line: the hour, its busiest minute (the latest of equals) and now', () => {
    expect(multiples.charts.map((chart) => chart.summary)).toEqual([
      'Processing: 10 entered in the last hour, at most 4 in a minute, at 08:41; 3 now',
      'Processed: 1 entered in the last hour, at most 1 in a minute, at 07:52; 300+ now',
      'Error: none entered in the last hour',
    ]);
    expect(multiples.charts[0]?.busiest).toEqual({ count: 4, at: Date.parse('2030-01-01T08:41:00.000Z') });
    expect(multiples.charts[2]?.busiest).toBeUndefined();
    expect(countText(multiples.charts[2]?.now)).toBe('—');
  });

  it('puts every chart of the group on one scale: the busiest minute of any, at least 1', () => {
    expect(multiples.scaleMax).toBe(4);
    expect(smallMultiplesOf([series[2] as (typeof series)[number]], FROM, () => undefined).scaleMax).toBe(1);
  });
});
