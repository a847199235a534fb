import { distributionOf, ratio } from '../../../lib/harness/stats';

describe('ratio', () => {
  it('divides a measurement by its baseline', () => {
    expect(ratio(54, 54)).toBe(1);
    expect(ratio(3942, 200)).toBeCloseTo(19.71, 2);
  });

  it('refuses a zero or non-finite baseline rather than put Infinity or NaN in a figure', () => {
    expect(() => ratio(1, 0)).toThrow(/divide 1 by 0/);
    expect(() => ratio(Number.NaN, 2)).toThrow();
    expect(() => ratio(1, Number.POSITIVE_INFINITY)).toThrow();
  });
});

describe('distributionOf', () => {
  it('gives the count, the nearest-rank median and 90th percentile, and the maximum', () => {
    expect(distributionOf([10, 1, 9, 2, 8, 3, 7, 4, 6, 5])).toEqual({ count: 10, p50: 5, p90: 9, max: 10 });
    expect(distributionOf([4.2])).toEqual({ count: 1, p50: 4.2, p90: 4.2, max: 4.2 });
  });

  it('has no distribution without values', () => {
    expect(distributionOf([])).toBeUndefined();
  });
});
