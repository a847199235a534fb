import { allDueShards, dueShardFor } from '../../../lambdas/scheduler-agent-supervisor/domain/shard';

describe('dueShardFor', () => {
  it('is stable: pinned values guard the hash against accidental change', () => {
    // If these change, records already stored would be looked for in the wrong index partition.
    const ids = ['order-1', 'order-2', 'ABC_123', 'x', 'order-1000'];
    expect(ids.map((id) => dueShardFor(id, 8))).toEqual(['1', '6', '3', '2', '1']);
    expect(ids.map((id) => dueShardFor(id, 5))).toEqual(['0', '0', '0', '1', '1']);
  });

  it.each([1, 2, 3, 4, 7, 8, 16, 64])('returns a shard in range 0..%i-1 as a decimal string', (count) => {
    for (let index = 0; index < 500; index += 1) {
      const shard = dueShardFor(`order-${index}`, count);
      expect(shard).toMatch(/^(0|[1-9][0-9]*)$/);
      expect(Number(shard)).toBeGreaterThanOrEqual(0);
      expect(Number(shard)).toBeLessThan(count);
    }
  });

  it.each([4, 8, 16])(
    'spreads sequential ids evenly over %i shards (every shard within 15%% of the mean)',
    (count) => {
      const ids = 8_000;
      const counts = new Array<number>(count).fill(0);
      for (let index = 0; index < ids; index += 1) {
        const shard = Number(dueShardFor(`order-${index}`, count));
        counts[shard] = (counts[shard] ?? 0) + 1;
      }
      const mean = ids / count;
      for (const observed of counts) {
        expect(Math.abs(observed - mean) / mean).toBeLessThan(0.15);
      }
    },
  );

  it('maps to shard 0 when there is one shard', () => {
    expect(new Set(['a', 'b', 'c', 'order-99'].map((id) => dueShardFor(id, 1)))).toEqual(new Set(['0']));
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects shard count %p with a clear error', (count) => {
    expect(() => dueShardFor('order-1', count)).toThrow(/DueShard count must be a positive integer/);
  });

  it('rejects an empty order id', () => {
    expect(() => dueShardFor('', 4)).toThrow(/orderId must not be empty/);
  });
});

describe('allDueShards', () => {
  it('lists every shard value once, in order', () => {
    expect(allDueShards(4)).toEqual(['0', '1', '2', '3']);
    expect(allDueShards(1)).toEqual(['0']);
  });

  it('covers every value dueShardFor can return', () => {
    const shards = new Set(allDueShards(8));
    for (let index = 0; index < 200; index += 1) {
      expect(shards.has(dueShardFor(`id-${index}`, 8))).toBe(true);
    }
  });

  it('rejects an invalid count', () => {
    expect(() => allDueShards(0)).toThrow(/positive integer/);
  });
});
