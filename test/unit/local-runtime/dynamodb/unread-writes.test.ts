/**
 * Matching the writes told to a stream consumer with the records it reads (unread-writes.ts): a full
 * read takes the oldest writes, a short one the last ones and settles the rest, and what has no write
 * to match errs younger, never older.
 */
import { UnreadWrites } from '../../../../lib/local-runtime/dynamodb/unread-writes';

function told(...times: number[]): UnreadWrites {
  const writes = new UnreadWrites();
  for (const time of times) writes.noted(time);
  return writes;
}

describe('UnreadWrites', () => {
  it('gives a full read the oldest writes, and keeps the later ones for the next read', () => {
    const writes = told(10, 20, 30, 40);
    expect(writes.match(2, 4, 2, 50)).toEqual([10, 20]);
    expect(writes.count).toBe(2);
    expect(writes.match(2, 2, 10, 60)).toEqual([30, 40]);
    expect(writes.count).toBe(0);
  });

  it('matches a short read from its last record and drops the writes that made no record of their own', () => {
    const writes = told(10, 20, 30);
    // Three writes told, two records: the youngest records are the last writes.
    expect(writes.match(2, 3, 10, 50)).toEqual([20, 30]);
    expect(writes.count).toBe(0);
  });

  it('dates records without a write of their own (a transaction, a TTL deletion) no older than the oldest write told', () => {
    expect(told(10, 20).match(4, 2, 10, 50)).toEqual([10, 10, 10, 20]);
    expect(told().match(2, 0, 10, 50)).toEqual([50, 50]);
    expect(told(10).match(3, 1, 3, 50)).toEqual([10, 50, 50]);
  });

  it('leaves writes told during a read to the next one', () => {
    const writes = told(10);
    writes.noted(15); // told while the read was under way: not `known` to it
    expect(writes.match(1, 1, 10, 20)).toEqual([10]);
    expect(writes.count).toBe(1);
    expect(writes.match(1, 1, 10, 30)).toEqual([15]);
  });

  it('settles every write told before an empty read', () => {
    const writes = told(10, 20);
    expect(writes.match(0, 2, 10, 30)).toEqual([]);
    expect(writes.count).toBe(0);
  });
});
