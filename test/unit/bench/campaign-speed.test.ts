import { GOAL_MINUTES, speedFigures } from '../../../lib/bench/figures/campaign-speed';

const value = (figures: ReturnType<typeof speedFigures>, key: string) =>
  figures.measurements.find((measurement) => measurement.key === key)?.value;

describe('campaign-speed figures', () => {
  const cpu = {
    runtimeMainThread: 120,
    runtimeOtherThreads: 90,
    dynamodbLocal: 20,
    otherProcesses: 30,
    endedProcesses: 40,
  };

  it('gives the rate, the projected 10,000-order time and CPU per Processed order and per order by part', () => {
    const figures = speedFigures({ orders: 300, processed: 250, wallSeconds: 200, cpu, violations: 0 });

    expect(value(figures, 'orders-per-second')).toBe(1.5);
    expect(value(figures, 'projected-minutes')).toBeCloseTo(10_000 / 1.5 / 60, 6);
    expect(value(figures, 'cpu.total')).toBe(300);
    expect(value(figures, 'cpu.per-processed')).toBe(1.2);
    expect(value(figures, 'cpu.per-order.endedProcesses')).toBe(40 / 300);
    expect(figures.targets.map((target) => [target.met, target.bound])).toEqual([
      [false, GOAL_MINUTES],
      [true, 0],
    ]);
  });

  it('meets the goal at 8.4 orders per second, and reports violations as unmet', () => {
    const figures = speedFigures({ orders: 840, processed: 800, wallSeconds: 100, cpu, violations: 2 });

    expect(figures.targets.map((target) => target.met)).toEqual([true, false]);
  });

  it('leaves CPU out where it could not be read', () => {
    const figures = speedFigures({
      orders: 10,
      processed: 8,
      wallSeconds: 20,
      cpu: undefined,
      violations: 0,
    });

    expect(figures.measurements.some((measurement) => measurement.key.startsWith('cpu.'))).toBe(false);
  });
});
