import {
  conflictingOrderFields,
  itemsToStoredJson,
  type OrderData,
  orderDataFrom,
  orderFingerprint,
} from '../../../lambdas/scheduler-agent-supervisor/domain/order';
import { seededRandom, shuffledKeys } from '../shared/key-order';

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

describe("conflictingOrderFields (what the owner's 409 names)", () => {
  it('names the immutable fields that differ, in name order, and none for the same order', () => {
    expect(conflictingOrderFields(order, { ...order })).toEqual([]);
    expect(conflictingOrderFields(order, { ...order, customerId: 'someone-else' })).toEqual(['customerId']);
    expect(
      conflictingOrderFields(order, {
        ...order,
        totalCents: 1,
        currency: 'USD',
        items: [...order.items].reverse(),
      }),
    ).toEqual(['currency', 'items', 'totalCents']);
  });

  it('compares items by their sku and quantity only (what the fingerprint hashes)', () => {
    const stored = { ...order, items: order.items.map((item) => ({ ...item, note: 'x' })) } as OrderData;
    expect(conflictingOrderFields(stored, order)).toEqual([]);
  });
});
