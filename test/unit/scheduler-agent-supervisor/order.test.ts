import {
  canonicalJson,
  itemsToStoredJson,
  type OrderData,
  orderDataFrom,
  orderFingerprint,
} from '../../../lambdas/scheduler-agent-supervisor/domain/order';

const order: OrderData = {
  orderId: 'order-1',
  customerId: 'customer-7',
  items: [
    { sku: 'SKU-1', quantity: 2 },
    { sku: 'SKU-2', quantity: 1 },
  ],
  totalCents: 4599,
  currency: 'EUR',
};

/** Deterministic pseudo-random generator so the property-style cases are reproducible. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function shuffledKeys<T extends object>(value: T, random: () => number): T {
  const entries = Object.entries(value);
  for (let index = entries.length - 1; index > 0; index -= 1) {
    const swap = Math.floor(random() * (index + 1));
    const current = entries[index];
    const other = entries[swap];
    if (current && other) {
      entries[index] = other;
      entries[swap] = current;
    }
  }
  return Object.fromEntries(entries) as T;
}

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
    const reference = canonicalJson(order);
    for (let round = 0; round < 50; round += 1) {
      const shuffled = shuffledKeys(
        { ...order, items: order.items.map((item) => shuffledKeys(item, random)) },
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

describe('orderFingerprint', () => {
  it('is a sha256 hex digest', () => {
    expect(orderFingerprint(order)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is stable under key order of the order and of its items', () => {
    const random = seededRandom(42);
    const reference = orderFingerprint(order);
    for (let round = 0; round < 30; round += 1) {
      const reordered = shuffledKeys(
        { ...order, items: order.items.map((item) => shuffledKeys(item, random)) },
        random,
      );
      expect(orderFingerprint(reordered)).toBe(reference);
    }
  });

  it.each<[string, Partial<OrderData>]>([
    ['orderId', { orderId: 'order-2' }],
    ['customerId', { customerId: 'customer-8' }],
    ['totalCents', { totalCents: 4600 }],
    ['currency', { currency: 'USD' }],
    [
      'an item quantity',
      {
        items: [
          { sku: 'SKU-1', quantity: 3 },
          { sku: 'SKU-2', quantity: 1 },
        ],
      },
    ],
    [
      'an item sku',
      {
        items: [
          { sku: 'SKU-9', quantity: 2 },
          { sku: 'SKU-2', quantity: 1 },
        ],
      },
    ],
    [
      'the item order',
      {
        items: [
          { sku: 'SKU-2', quantity: 1 },
          { sku: 'SKU-1', quantity: 2 },
        ],
      },
    ],
    ['an added item', { items: [...order.items, { sku: 'SKU-3', quantity: 1 }] }],
    ['a removed item', { items: [{ sku: 'SKU-1', quantity: 2 }] }],
  ])('changes when %s changes', (_field, change) => {
    expect(orderFingerprint({ ...order, ...change })).not.toBe(orderFingerprint(order));
  });

  it('ignores properties that are not part of the immutable order data', () => {
    const withExtras = {
      ...order,
      receivedAt: 'now',
      items: order.items.map((item) => ({ ...item, note: 'x' })),
    };
    expect(orderFingerprint(withExtras)).toBe(orderFingerprint(order));
  });

  it('is the same for a request and the order data built from it', () => {
    expect(orderFingerprint(orderDataFrom({ ...order, items: [...order.items] }))).toBe(
      orderFingerprint(order),
    );
  });
});

describe('itemsToStoredJson', () => {
  it('stores items as canonical JSON that parses back to the same items', () => {
    const stored = itemsToStoredJson([{ quantity: 2, sku: 'SKU-1' } as { sku: string; quantity: number }]);
    expect(stored).toBe('[{"quantity":2,"sku":"SKU-1"}]');
    expect(JSON.parse(stored)).toEqual([{ sku: 'SKU-1', quantity: 2 }]);
  });
});
