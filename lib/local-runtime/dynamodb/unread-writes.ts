/**
 * On a virtual clock, when the records a stream consumer reads were written, by the runtime's clock.
 * DynamoDB Local stamps a record's ApproximateCreationDateTime with the machine's time (to the
 * minute), another clock than the runtime's, so a record's age (Lambda's IteratorAge,
 * MaximumRecordAgeInSeconds) cannot be read from it; the DynamoDB gateway tells of each write to a
 * table as it is answered (table-write-signal.ts), and the reader matches those times to the records
 * it reads, in order. A write is not a record one for one (a transaction or batch is one write of
 * several records, DynamoDB Local's own TTL deletions are none): such records are dated by a younger
 * write or by the read. The one way to date a record older than it is, a write that made no record
 * followed by reads that fill a whole batch, lasts until the next read that does not: that one
 * settles every write told before it.
 */
export class UnreadWrites {
  /** Runtime times of the writes told and not yet matched to a record read, oldest first. */
  private readonly times: number[] = [];

  /** A write to the table was answered at `at`. */
  noted(at: number): void {
    this.times.push(at);
  }

  /** How many writes are told and unmatched: what a read about to start can hold. */
  get count(): number {
    return this.times.length;
  }

  /**
   * The write time of each of `records` records one read returned (stream order), the read having
   * started when `known` writes were unmatched, asked for at most `limit` records, and answered at
   * `readAt`. A full read (`limit` records) may have left later records unread: its records are the
   * oldest writes, matched from the first. A shorter one read every record written before it: its
   * last record is the last write told before it, matched from the last, and every write told before
   * it is settled (one without a record of its own, such as a write inside a transaction, is dropped).
   * A record with no write to match is as old as the oldest write told before the read (a younger
   * record than that in a short read), else as the read.
   */
  match(records: number, known: number, limit: number, readAt: number): number[] {
    const told = this.times.slice(0, Math.min(known, this.times.length));
    const times = new Array<number>(records);
    if (records >= limit) {
      const matched = Math.min(records, told.length);
      for (let index = 0; index < records; index += 1)
        times[index] = index < matched ? (told[index] ?? readAt) : readAt;
      this.times.splice(0, matched);
      return times;
    }
    for (let index = records - 1, write = told.length - 1; index >= 0; index -= 1, write -= 1) {
      times[index] = write >= 0 ? (told[write] ?? readAt) : (told[0] ?? readAt);
    }
    this.times.splice(0, told.length);
    return times;
  }
}
