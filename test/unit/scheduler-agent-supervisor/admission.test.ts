import type { DynamoDBRecord } from 'aws-lambda';
import { heldSlotOf } from '../../../lambdas/scheduler-agent-supervisor/adapters/admission-release';
import {
  admissionShardCaps,
  clientShardCaps,
  parseAdmissionSettings,
  RETRY_AFTER_MAX_SECONDS,
  RETRY_AFTER_MIN_SECONDS,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import {
  admissionSlotOrder,
  type DrainObservation,
  nextDrainObservation,
  reconcileAdmission,
  recordDrain,
  retryAfterSeconds,
} from '../../../lambdas/scheduler-agent-supervisor/domain/admission';
import type {
  DrainRecorder,
  HeldSlot,
  HeldSlotIndex,
  SlotReleaser,
} from '../../../lambdas/scheduler-agent-supervisor/domain/ports';
import { dueShardFor } from '../../../lambdas/scheduler-agent-supervisor/domain/shard';

const silentLog = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

describe('admission caps and shard order', () => {
  it('splits the limit so the caps sum to it, the first `limit % shards` one higher', () => {
    expect(admissionShardCaps(10, 4)).toEqual([3, 3, 2, 2]);
    expect(admissionShardCaps(2000, 8)).toEqual(Array(8).fill(250));
    expect(admissionShardCaps(5, 5)).toEqual([1, 1, 1, 1, 1]);
    for (const [limit, shards] of [
      [7, 3],
      [200, 4],
      [50, 8],
    ] as const) {
      expect(admissionShardCaps(limit, shards).reduce((a, b) => a + b, 0)).toBe(limit);
    }
  });

  it('refuses shards above the limit and non-positive values', () => {
    expect(() => admissionShardCaps(3, 4)).toThrow('from 1 to the limit (3), got 4');
    expect(() => admissionShardCaps(0, 1)).toThrow('positive integer, got 0');
    expect(() => admissionShardCaps(4, 0)).toThrow('got 0');
  });

  it("tries the orderId's own shard first, then the following ones, wrapping, each with its cap", () => {
    const orderId = 'order-42';
    const first = Number(dueShardFor(orderId, 4));
    const order = admissionSlotOrder(orderId, 10, 4);
    expect(order.map((slot) => slot.key)).toEqual(
      [0, 1, 2, 3].map((offset) => `shard#${(first + offset) % 4}`),
    );
    const caps = admissionShardCaps(10, 4);
    for (const slot of order) expect(slot.cap).toBe(caps[Number(slot.key.slice(6))]);
  });

  it("splits a client's cap over the shards, leaving shards at 0 when the cap is below their count", () => {
    expect(clientShardCaps(10, 4)).toEqual([3, 3, 2, 2]);
    expect(clientShardCaps(3, 4)).toEqual([1, 1, 1, 0]);
    expect(() => clientShardCaps(0, 4)).toThrow("a client's admission cap must be a positive integer, got 0");
  });

  it("carries the client's counter beside each shard, and leaves out the shards where its cap is 0", () => {
    const orderId = 'order-42';
    const plain = admissionSlotOrder(orderId, 10, 4);
    const withClient = admissionSlotOrder(orderId, 10, 4, { clientId: 'web-shop', cap: 3 });
    const caps = clientShardCaps(3, 4);
    expect(withClient).toEqual(
      plain
        .filter((slot) => caps[Number(slot.key.slice(6))] !== 0)
        .map((slot) => ({
          ...slot,
          client: { key: `client#web-shop#${slot.key}`, cap: caps[Number(slot.key.slice(6))] },
        })),
    );
    expect(withClient).toHaveLength(3);
  });

  it('spreads first choices over every shard (no hot key)', () => {
    const firsts = new Map<string, number>();
    for (let index = 0; index < 400; index += 1) {
      const key = admissionSlotOrder(`order-${index}`, 200, 4)[0]?.key ?? '';
      firsts.set(key, (firsts.get(key) ?? 0) + 1);
    }
    expect([...firsts.keys()].sort()).toEqual(['shard#0', 'shard#1', 'shard#2', 'shard#3']);
    for (const count of firsts.values()) expect(count).toBeGreaterThan(60);
  });
});

describe('Retry-After from the drain', () => {
  const now = 1_000_000;

  it('is the maximum without an observed interval (no release yet, or only one)', () => {
    expect(retryAfterSeconds(undefined, now)).toBe(RETRY_AFTER_MAX_SECONDS);
    expect(retryAfterSeconds({ lastReleaseAt: now - 10, version: 1 }, now)).toBe(RETRY_AFTER_MAX_SECONDS);
  });

  it('is one release interval, rounded up to whole seconds', () => {
    expect(retryAfterSeconds({ intervalMillisEwma: 4_200, lastReleaseAt: now, version: 5 }, now)).toBe(5);
    expect(retryAfterSeconds({ intervalMillisEwma: 2_000, lastReleaseAt: now - 500, version: 5 }, now)).toBe(
      2,
    );
  });

  it('is clamped to the minimum for a fast drain and to the maximum for a slow one', () => {
    expect(retryAfterSeconds({ intervalMillisEwma: 5, lastReleaseAt: now, version: 2 }, now)).toBe(
      RETRY_AFTER_MIN_SECONDS,
    );
    expect(retryAfterSeconds({ intervalMillisEwma: 600_000, lastReleaseAt: now, version: 2 }, now)).toBe(
      RETRY_AFTER_MAX_SECONDS,
    );
  });

  it('grows with the time since the last release, so a stalled (stale) drain answers the maximum', () => {
    const fast: DrainObservation = { intervalMillisEwma: 200, lastReleaseAt: now, version: 9 };
    expect(retryAfterSeconds(fast, now + 100)).toBe(1);
    expect(retryAfterSeconds(fast, now + 7_500)).toBe(8);
    expect(retryAfterSeconds(fast, now + 10 * 60_000)).toBe(RETRY_AFTER_MAX_SECONDS);
  });
});

describe('the drain EWMA', () => {
  it('starts the clock on the first batch, takes the first interval as is, then weighs new samples by 0.3', () => {
    const first = nextDrainObservation(undefined, 3, 10_000);
    expect(first).toEqual({ lastReleaseAt: 10_000, version: 1 });
    const second = nextDrainObservation(first, 1, 14_000);
    expect(second).toEqual({ intervalMillisEwma: 4_000, lastReleaseAt: 14_000, version: 2 });
    // Four releases in 2 s: a 500 ms sample.
    const third = nextDrainObservation(second, 4, 16_000);
    expect(third.intervalMillisEwma).toBeCloseTo(0.3 * 500 + 0.7 * 4_000);
    expect(third.version).toBe(3);
  });

  it('never moves LastReleaseAt back, nor takes a negative sample, when a late batch writes after an early one', () => {
    const seen: DrainObservation = { intervalMillisEwma: 1_000, lastReleaseAt: 20_000, version: 4 };
    const late = nextDrainObservation(seen, 1, 19_000);
    expect(late.lastReleaseAt).toBe(20_000);
    expect(late.intervalMillisEwma).toBeCloseTo(700);
  });

  it('recordDrain retries a lost optimistic write on a fresh read, and drops the sample after three losses', async () => {
    let stored: DrainObservation | undefined = { intervalMillisEwma: 1_000, lastReleaseAt: 0, version: 7 };
    let losses = 1;
    const writes: (number | undefined)[] = [];
    const recorder: DrainRecorder = {
      read: async () => stored,
      write: async (next, seenVersion) => {
        writes.push(seenVersion);
        if (losses > 0) {
          losses -= 1;
          stored = { ...(stored as DrainObservation), version: (stored?.version ?? 0) + 1 };
          return 'lost';
        }
        stored = next;
        return 'applied';
      },
    };
    expect(await recordDrain(recorder, 1, 2_000)).toBe('recorded');
    expect(writes).toEqual([7, 8]);
    expect(stored?.version).toBe(9);

    losses = 3;
    expect(await recordDrain(recorder, 1, 3_000)).toBe('dropped');
  });
});

describe('reconcileAdmission', () => {
  const slot = (orderId: string, shardKey: string): HeldSlot => ({
    orderId,
    shardKey,
    processState: 'Processed',
  });

  it('queries every shard page by page, releases what it finds, and counts releases, losses and errors apart', async () => {
    const pages: Record<string, HeldSlot[][]> = {
      'shard#0': [[slot('a', 'shard#0'), slot('b', 'shard#0')], [slot('c', 'shard#0')]],
      'shard#1': [[slot('d', 'shard#1')]],
    };
    const queries: [string, string, number][] = [];
    const index: HeldSlotIndex = {
      queryTerminalHeld: async (shardKey, updatedBefore, limit, cursor) => {
        queries.push([shardKey, updatedBefore, limit]);
        const at = Number((cursor as { page?: number } | undefined)?.page ?? 0);
        const shardPages = pages[shardKey] ?? [];
        return {
          slots: shardPages[at] ?? [],
          ...(at + 1 < shardPages.length && { next: { page: at + 1 } }),
        };
      },
    };
    const releaser: SlotReleaser = {
      release: async ({ orderId }) => {
        if (orderId === 'b') return 'not-held';
        if (orderId === 'c') throw new Error('throttled');
        return 'released';
      },
    };
    const summary = await reconcileAdmission(
      {
        index,
        releaser,
        clock: { now: () => Date.parse('2030-01-01T00:01:00.000Z') },
        shardKeys: ['shard#0', 'shard#1'],
        graceSeconds: 60,
        pageSize: 2,
        log: silentLog,
      },
      { remainingMillis: () => 10_000 },
    );
    expect(summary).toEqual({
      examined: 4,
      released: 2,
      alreadyReleased: 1,
      errors: 1,
      stoppedByBudget: false,
    });
    expect(queries).toEqual([
      ['shard#0', '2030-01-01T00:00:00.000Z', 2],
      ['shard#0', '2030-01-01T00:00:00.000Z', 2],
      ['shard#1', '2030-01-01T00:00:00.000Z', 2],
    ]);
  });

  it('stops before a page when its budget is spent', async () => {
    const summary = await reconcileAdmission(
      {
        index: { queryTerminalHeld: async () => ({ slots: [] }) },
        releaser: { release: async () => 'released' },
        clock: { now: () => 0 },
        shardKeys: ['shard#0'],
        graceSeconds: 1,
        pageSize: 10,
        log: silentLog,
      },
      { remainingMillis: () => 0 },
    );
    expect(summary.stoppedByBudget).toBe(true);
  });
});

describe('stream records and settings', () => {
  const record = (image: Record<string, { S: string }>): DynamoDBRecord => ({
    eventName: 'MODIFY',
    dynamodb: { NewImage: image, SequenceNumber: '1' },
  });

  it('reads the held slot of a terminal new image, and nothing from a non-terminal or released one', () => {
    const base = { OrderID: { S: 'o-1' }, AdmissionShard: { S: 'shard#2' } };
    expect(heldSlotOf(record({ ...base, ProcessState: { S: 'Error' } }))).toEqual({
      orderId: 'o-1',
      shardKey: 'shard#2',
      processState: 'Error',
    });
    expect(
      heldSlotOf(
        record({
          ...base,
          AdmissionClientShard: { S: 'client#web-shop#shard#2' },
          ProcessState: { S: 'Error' },
        }),
      ),
    ).toEqual({
      orderId: 'o-1',
      shardKey: 'shard#2',
      clientShardKey: 'client#web-shop#shard#2',
      processState: 'Error',
    });
    expect(heldSlotOf(record({ ...base, ProcessState: { S: 'Processing' } }))).toBeUndefined();
    expect(heldSlotOf(record({ OrderID: { S: 'o-1' }, ProcessState: { S: 'Processed' } }))).toBeUndefined();
  });

  it('parses ADMISSION_SETTINGS and names what is wrong', () => {
    expect(parseAdmissionSettings('{"limit":4,"shards":2,"reconcileGraceSeconds":5}')).toEqual({
      limit: 4,
      shards: 2,
      reconcileGraceSeconds: 5,
    });
    expect(() => parseAdmissionSettings('nope')).toThrow('ADMISSION_SETTINGS is not valid JSON');
    expect(() => parseAdmissionSettings('{"limit":4,"shards":5,"reconcileGraceSeconds":5}')).toThrow(
      'to the limit (4), got 5',
    );
    expect(() => parseAdmissionSettings('{"limit":4,"shards":2}')).toThrow('reconcileGraceSeconds');
    const withCaps = '{"limit":4,"shards":2,"reconcileGraceSeconds":5,"clientCaps":';
    expect(parseAdmissionSettings(`${withCaps}{"web-shop":2}}`)).toMatchObject({
      clientCaps: { 'web-shop': 2 },
    });
    expect(() => parseAdmissionSettings(`${withCaps}{"web-shop":5}}`)).toThrow(
      'clientCaps.web-shop must be an integer from 1 to the limit (4), got 5',
    );
    expect(() => parseAdmissionSettings(`${withCaps}[2]}`)).toThrow('clientCaps must be an object');
  });
});
