import { canonicalJson, fingerprintOf } from '../../../lambdas/shared/fingerprint';
import { seededRandom, shuffledKeys } from './key-order';

/** Any nested data will do: the helper is not about orders. */
const delivery = {
  deliveryId: 'delivery-1',
  owner: 'owner-7',
  packages: [
    { packageId: 'p-1', weightGrams: 1200, fragile: false },
    { packageId: 'p-2', weightGrams: 300, fragile: true },
  ],
  pickup: { lat: 47.6, lon: -122.3 },
};

describe('canonicalJson', () => {
  it.each([
    [null, 'null'],
    ['text', '"text"'],
    [42, '42'],
    [true, 'true'],
    [[3, 1, 2], '[3,1,2]'],
    [{ b: 1, a: 2 }, '{"a":2,"b":1}'],
    [{ z: { y: [{ b: 1, a: 0 }] }, a: 'x' }, '{"a":"x","z":{"y":[{"a":0,"b":1}]}}'],
    [{ a: undefined, b: 1 }, '{"b":1}'],
    [{ 'needs "quotes"': 1 }, '{"needs \\"quotes\\"":1}'],
  ])('encodes %j as %s', (value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });

  it('gives the same text for 50 random key orders of the same nested data', () => {
    const random = seededRandom(7);
    const reference = canonicalJson(delivery);
    for (let round = 0; round < 50; round += 1) {
      const shuffled = shuffledKeys(
        {
          ...delivery,
          packages: delivery.packages.map((item) => shuffledKeys(item, random)),
          pickup: shuffledKeys(delivery.pickup, random),
        },
        random,
      );
      expect(canonicalJson(shuffled)).toBe(reference);
    }
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY])('refuses the non-finite number %p', (value) => {
    expect(() => canonicalJson({ value })).toThrow(/non-finite/);
  });

  it('refuses values JSON cannot represent', () => {
    expect(() => canonicalJson(() => 1)).toThrow(/type function/);
    expect(() => canonicalJson(BigInt(1))).toThrow(/type bigint/);
  });
});

describe('fingerprintOf', () => {
  it('is the sha256 hex digest of the canonical JSON, whatever the key order', () => {
    expect(fingerprintOf({ b: [1, { d: 2, c: 3 }], a: 'x' })).toBe(
      fingerprintOf({ a: 'x', b: [1, { c: 3, d: 2 }] }),
    );
    expect(fingerprintOf({ a: 1 })).toBe('015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862');
  });

  it('tells apart data that differs in a value or in array order', () => {
    expect(fingerprintOf({ a: [1, 2] })).not.toBe(fingerprintOf({ a: [2, 1] }));
    expect(fingerprintOf({ a: 1 })).not.toBe(fingerprintOf({ a: '1' }));
  });
});
