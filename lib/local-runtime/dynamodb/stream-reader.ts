/**
 * The stream-reading core shared by Lambda event source mappings and EventBridge Pipes on a
 * DynamoDB stream, run the way Lambda's stream pollers run: one reader per shard, parents before
 * children, records in order, one batch in flight per shard. A batch is BatchSize records or what
 * arrived within MaximumBatchingWindowInSeconds. A failed batch is retried (it blocks its shard)
 * until it succeeds, its records are older than MaximumRecordAgeInSeconds, or it has been retried
 * MaximumRetryAttempts times; then it is discarded (the consumer sends its failure record) and the
 * shard moves on. With bisection a failing batch is split in two, which costs no retry; a partial
 * failure resumes at the first failed record.
 */

import {
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type GetShardIteratorCommandInput,
  type Shard,
  type _Record as StreamRecord,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import { type ClockTimer, type RuntimeClock, WallClock } from '../clock';
import { StreamCheckpoints } from './stream-checkpoints';
import type { DiscardCondition } from './stream-records';
import { tableOfStreamArn } from './tables';
import { UnreadWrites } from './unread-writes';

/** DynamoDB Streams keep records for 24 hours: "until the record expires" means this. */
export const STREAM_RETENTION_SECONDS = 24 * 60 * 60;
/** GetRecords returns at most 1000 records. */
const MAX_RECORDS_PER_READ = 1000;
/** Lambda polls each shard about four times a second when it is idle. */
const MIN_POLL_MILLIS = 50;
const MAX_POLL_MILLIS = 250;
const DISCOVERY_INTERVAL_MILLIS = 2_000;
/**
 * On a virtual clock with `writes`, an idle shard waits for a write instead of polling, and polls at
 * least this often of the machine's time for what no write announces: DynamoDB Local's own TTL
 * deletions, which it makes on the machine's time too. A timer of the virtual clock would be a jump
 * every few seconds of it, each costing real time while nothing happens (measured with the whole app
 * idle: the shards' wake-ups were half of the clock's real time).
 */
const IDLE_POLL_ON_WRITES_MILLIS = 5_000;
/**
 * And lists the stream's shards this often, of the machine's time too (a parent read to its end lists
 * them at once, so a child shard is not waited for; DynamoDB Local rolls its shards on its own time).
 */
const DISCOVERY_ON_WRITES_MILLIS = 60_000;
/**
 * On a seeded clock neither: what the machine's time would start could not be replayed. An idle
 * shard waits for a write alone, and the shards are listed on the clock (DynamoDB Local's TTL
 * deletions are not read then: a seeded clock starts ahead of the machine's time, so none is due).
 */
const WAIT_FOR_A_WRITE_MILLIS = 2 ** 31 - 1;
/** DynamoDB Local stamps ApproximateCreationDateTime to the minute; a record is at most this much younger. */
const CREATION_TIME_GRANULARITY_MILLIS = 60_000;

export type StartingPosition = 'TRIM_HORIZON' | 'LATEST';

export interface StreamReaderSpec {
  /** Names the consumer in problems. */
  readonly logicalId: string;
  readonly streamArn: string;
  readonly startingPosition: StartingPosition;
  readonly batchSize: number;
  readonly maximumBatchingWindowSeconds: number;
  /** Retries of a failing batch before it is discarded; -1 retries until its records expire. */
  readonly maximumRetryAttempts: number;
  /** Records older than this are discarded instead of delivered; -1 means the stream's retention. */
  readonly maximumRecordAgeSeconds: number;
  /** Split a batch that failed (not a partial failure) in two and retry the halves. */
  readonly bisectBatchOnError: boolean;
  /** Records it rejects are skipped as if processed (FilterCriteria). @default - every record */
  readonly filter?: (record: StreamRecord) => boolean;
  /** Delay before the n-th retry (1-based) of a failing batch. @default 100 ms doubling to 5 s */
  readonly retryDelayMillis?: (retry: number) => number;
  /**
   * Keep each shard's checkpoint in this file, so that a consumer started again on the same data
   * resumes where it stopped (as a mapping on AWS does) instead of at its starting position.
   * @default - checkpoints live in memory only
   */
  readonly checkpointFile?: string;
}

/**
 * What became of a delivered batch. On failure, every record from index `retryFrom` on is retried
 * (0: the whole batch); `bisectable` says whether bisection applies (a failed invocation, not a
 * reported partial failure). `detail` is kept for the failure record if the batch is discarded.
 */
export type BatchOutcome<Detail> =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly retryFrom: number;
      readonly bisectable: boolean;
      readonly detail?: Detail;
    };

export interface DiscardedBatch<Detail> {
  readonly condition: DiscardCondition;
  readonly records: readonly StreamRecord[];
  readonly shardId: string;
  readonly streamArn: string;
  /** Deliveries that included these records (Lambda's approximateInvokeCount). */
  readonly deliveries: number;
  /** The detail of the last failed delivery, if there was one. */
  readonly lastFailure?: Detail;
}

export interface StreamReaderDependencies<Detail> {
  readonly streams: DynamoDBStreamsClient;
  /**
   * Hands one batch (in stream order, never empty) to the consumer, with its iterator age: how long
   * ago its last record was written (Lambda's IteratorAge). A throw is retried, uncounted.
   */
  readonly deliver: (
    records: readonly StreamRecord[],
    shardId: string,
    batch: { readonly iteratorAgeMillis: number },
  ) => Promise<BatchOutcome<Detail>>;
  /** Sends the failure record of given-up records. A throw is retried until it succeeds. */
  readonly discard: (batch: DiscardedBatch<Detail>) => Promise<void>;
  readonly onProblem: (message: string) => void;
  /** Its windows, back-offs and dates run on it. @default - the wall clock */
  readonly clock?: RuntimeClock;
  /**
   * Tells of writes to the tables (the DynamoDB gateway's): on a virtual clock an idle shard waits
   * for one (or IDLE_POLL_ON_WRITES_MILLIS of the machine's time) instead of polling every
   * 50-250 ms, each poll a jump of the clock that costs real time while nothing happens.
   * @default - polls as Lambda does
   */
  readonly writes?: TableWrites;
}

/** Writes to DynamoDB tables as they are answered (a listener is called after each to its table). */
export interface TableWrites {
  /** Listens to the writes to one table (by name). Returns the unsubscribe function. */
  subscribe(table: string, listener: () => void): () => void;
}

interface ShardState {
  readonly shard: Shard;
  /** Where reading starts: the initial position, or after the last record read (after a lost iterator). */
  start:
    | { readonly type: StartingPosition }
    | { readonly type: 'AFTER_SEQUENCE_NUMBER'; sequenceNumber: string };
  started: boolean;
  finished: boolean;
}

interface PendingBatch {
  records: StreamRecord[];
  retries: number;
  deliveries: number;
}

const defaultRetryDelay = (retry: number) => Math.min(5_000, 100 * 2 ** (retry - 1));

export class DynamoDbStreamReader<Detail> {
  private readonly abort = new AbortController();
  private readonly shards = new Map<string, ShardState>();
  private readonly running = new Set<Promise<void>>();
  private readonly firstReadAt = new WeakMap<StreamRecord, number>();
  /** With `writes`: each record's write time by the runtime's clock (unread-writes.ts). */
  private readonly writtenAt = new WeakMap<StreamRecord, number>();
  private readonly unreadWrites = new UnreadWrites();
  private discovery: Promise<void> | undefined;
  private discoveryTimer: ClockTimer | undefined;
  private readonly checkpoints: StreamCheckpoints;
  private readonly clock: RuntimeClock;
  /** Writes seen so far (with `writes`), and the idle shards they wake (on a virtual clock). */
  private writesSeen = 0;
  private readonly wakers = new Set<() => void>();
  private readonly unsubscribe: (() => void) | undefined;
  /** On a virtual clock with `writes`, an idle shard waits for a write instead of polling. */
  private readonly waitsForWrites: boolean;
  /** What an idle shard on a virtual clock polls by, for what no write announces (see IDLE_POLL_ON_WRITES_MILLIS). */
  private readonly machineClock = new WallClock();

  constructor(
    readonly spec: StreamReaderSpec,
    private readonly dependencies: StreamReaderDependencies<Detail>,
  ) {
    this.clock = dependencies.clock ?? new WallClock();
    this.waitsForWrites = this.clock.mode === 'virtual' && dependencies.writes !== undefined;
    this.unsubscribe = dependencies.writes?.subscribe(tableOfStream(spec.streamArn), () => {
      this.writesSeen += 1;
      this.unreadWrites.noted(this.clock.now());
      for (const wake of [...this.wakers]) wake();
    });
    this.checkpoints = new StreamCheckpoints(spec.checkpointFile, spec.streamArn, (message) =>
      this.problem(message),
    );
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  /** Resolves once every open shard is positioned (records written after that are read, even with LATEST). */
  async start(): Promise<void> {
    await this.discover(true);
    this.scheduleDiscovery();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.abort.abort();
    this.discoveryTimer?.cancel();
    await this.discovery?.catch(() => undefined);
    await Promise.allSettled([...this.running]);
  }

  private scheduleDiscovery(): void {
    if (this.stopped) return;
    const timers = this.waitsForWrites && this.clock.seed === undefined ? this.machineClock : this.clock;
    this.discoveryTimer = timers.setTimer(
      () => {
        this.discovery = this.discover(false)
          .catch((error: Error) =>
            this.problem(`cannot describe the stream: ${error.name}: ${error.message}`),
          )
          .finally(() => this.scheduleDiscovery());
      },
      this.waitsForWrites ? DISCOVERY_ON_WRITES_MILLIS : DISCOVERY_INTERVAL_MILLIS,
    );
  }

  private problem(message: string): void {
    if (!this.stopped) this.dependencies.onProblem(`stream consumer ${this.spec.logicalId}: ${message}`);
  }

  /** Lists the stream's shards and starts a reader for each whose parent is done. */
  private async discover(initial: boolean): Promise<void> {
    const shards: Shard[] = [];
    let exclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription } = await this.dependencies.streams.send(
        new DescribeStreamCommand({
          StreamArn: this.spec.streamArn,
          ExclusiveStartShardId: exclusiveStartShardId,
        }),
        { abortSignal: this.abort.signal },
      );
      shards.push(...(StreamDescription?.Shards ?? []));
      exclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
    } while (exclusiveStartShardId && !this.stopped);
    for (const shard of shards) {
      const shardId = shard.ShardId;
      if (!shardId || this.shards.has(shardId)) continue;
      const closed = shard.SequenceNumberRange?.EndingSequenceNumber !== undefined;
      // LATEST applies to the shards open when the consumer starts; later shards are read whole.
      const position: StartingPosition = initial ? this.spec.startingPosition : 'TRIM_HORIZON';
      const saved = this.checkpoints.of(shardId);
      this.shards.set(shardId, {
        shard,
        start: saved?.sequenceNumber
          ? { type: 'AFTER_SEQUENCE_NUMBER', sequenceNumber: saved.sequenceNumber }
          : { type: position },
        started: false,
        finished: saved?.finished === true || (initial && closed && position === 'LATEST' && !saved),
      });
    }
    const positioning: Promise<void>[] = [];
    for (const state of this.shards.values()) {
      const parent = state.shard.ParentShardId ? this.shards.get(state.shard.ParentShardId) : undefined;
      if (state.started || state.finished || (parent && !parent.finished)) continue;
      state.started = true;
      positioning.push(this.runShard(state));
    }
    await Promise.all(positioning);
  }

  /** Positions the shard's iterator, then reads and delivers in the background until the shard ends. */
  private async runShard(state: ShardState): Promise<void> {
    const shardId = state.shard.ShardId ?? '';
    let iterator: string | undefined;
    try {
      iterator = await this.iterator(state);
    } catch (error) {
      this.problem(`cannot read shard ${shardId}: ${(error as Error).message}`);
      state.started = false;
      return;
    }
    const reading = this.readShard(state, iterator).finally(() => this.running.delete(reading));
    this.running.add(reading);
  }

  private async iterator(state: ShardState): Promise<string | undefined> {
    const input: GetShardIteratorCommandInput = {
      StreamArn: this.spec.streamArn,
      ShardId: state.shard.ShardId,
      ShardIteratorType: state.start.type,
      ...(state.start.type === 'AFTER_SEQUENCE_NUMBER' ? { SequenceNumber: state.start.sequenceNumber } : {}),
    };
    try {
      const { ShardIterator } = await this.dependencies.streams.send(new GetShardIteratorCommand(input), {
        abortSignal: this.abort.signal,
      });
      return ShardIterator;
    } catch (error) {
      if (!(error instanceof TrimmedDataAccessException)) throw error;
      this.problem(`records after ${JSON.stringify(state.start)} in shard ${state.shard.ShardId} expired`);
      state.start = { type: 'TRIM_HORIZON' };
      return this.iterator(state);
    }
  }

  private async readShard(state: ShardState, firstIterator: string | undefined): Promise<void> {
    const shardId = state.shard.ShardId ?? '';
    let iterator = firstIterator;
    /** Whether `iterator` comes straight from GetShardIterator (not from a read's NextShardIterator). */
    let positioned = true;
    const buffer: StreamRecord[] = [];
    let pause = MIN_POLL_MILLIS;
    while (!this.stopped) {
      const batch: StreamRecord[] = [];
      let windowEnds = Number.POSITIVE_INFINITY;
      let writesBefore = this.writesSeen;
      try {
        // Fill a batch: BatchSize records, or what the batching window gathered, or the end of a closed shard.
        while (!this.stopped) {
          while (batch.length < this.spec.batchSize && buffer.length > 0) {
            const record = buffer.shift() as StreamRecord;
            if (this.spec.filter && !this.spec.filter(record)) continue;
            if (batch.length === 0) {
              windowEnds = this.clock.now() + this.spec.maximumBatchingWindowSeconds * 1000;
            }
            batch.push(record);
          }
          if (batch.length >= this.spec.batchSize || iterator === undefined) break;
          if (batch.length > 0 && this.clock.now() >= windowEnds) break;
          writesBefore = this.writesSeen;
          const knownWrites = this.unreadWrites.count;
          const limit = Math.min(MAX_RECORDS_PER_READ, this.spec.batchSize - batch.length);
          const { Records = [], NextShardIterator } = await this.dependencies.streams.send(
            new GetRecordsCommand({ ShardIterator: iterator, Limit: limit }),
            { abortSignal: this.abort.signal },
          );
          iterator = NextShardIterator;
          positioned = false;
          const now = this.clock.now();
          const written =
            this.unsubscribe && this.unreadWrites.match(Records.length, knownWrites, limit, now);
          Records.forEach((record, index) => {
            this.firstReadAt.set(record, now);
            if (written) this.writtenAt.set(record, written[index] ?? now);
          });
          buffer.push(...Records);
          const last = Records.at(-1)?.dynamodb?.SequenceNumber;
          if (last) state.start = { type: 'AFTER_SEQUENCE_NUMBER', sequenceNumber: last };
          if (Records.length > 0) {
            pause = MIN_POLL_MILLIS;
          } else if (iterator !== undefined) {
            if (batch.length === 0) await this.awaitRecords(pause, writesBefore);
            else await this.idle(Math.max(1, Math.min(pause, windowEnds - this.clock.now())));
            pause = Math.min(MAX_POLL_MILLIS, pause * 2);
          }
        }
      } catch (error) {
        if (this.stopped) return;
        // DynamoDB Local answers GetRecords on a TRIM_HORIZON iterator of a shard that has no
        // record yet with TrimmedDataAccessException; nothing was missed, so start again quietly.
        // It answers so too on the iterator a read of that empty shard handed back, once a record
        // has come: then the shard is positioned again at once, not after the next write (on a
        // seeded clock an idle shard waits for one alone: a delivery's only ingestion record was
        // never read).
        const trimmedHorizon =
          error instanceof TrimmedDataAccessException && state.start.type === 'TRIM_HORIZON';
        if (trimmedHorizon && positioned) await this.awaitRecords(pause, writesBefore);
        else if (!trimmedHorizon && !(error instanceof ExpiredIteratorException)) {
          this.problem(`reading shard ${shardId}: ${(error as Error).name}: ${(error as Error).message}`);
          await this.idle(1_000);
        }
        // Start again after the last record read; what was read but not delivered is still buffered.
        buffer.unshift(...batch);
        iterator = await this.iterator(state).catch(() => iterator);
        positioned = true;
        continue;
      }
      if (batch.length > 0) await this.process(batch, shardId);
      if (iterator === undefined && buffer.length === 0) {
        // A closed shard, read to its end: its children may start now.
        state.finished = true;
        this.checkpoints.finish(shardId);
        this.discoveryTimer?.cancel();
        this.scheduleDiscoveryNow();
        return;
      }
    }
  }

  private scheduleDiscoveryNow(): void {
    if (this.stopped) return;
    this.discovery = this.discover(false)
      .catch((error: Error) => this.problem(`cannot describe the stream: ${error.message}`))
      .finally(() => this.scheduleDiscovery());
  }

  /**
   * Estimated creation time: when its write was told (unread-writes.ts), and we read it no earlier.
   * Else DynamoDB Local's stamp, which it rounds down to the minute; but on a virtual clock that stamp
   * is the machine's time, another clock: a record is then as old as the time since it was first read.
   */
  private createdAt(record: StreamRecord): number {
    const readAt = this.firstReadAt.get(record) ?? this.clock.now();
    const written = this.writtenAt.get(record);
    if (written !== undefined) return Math.min(readAt, written);
    if (this.clock.mode === 'virtual') return readAt;
    const stamped = record.dynamodb?.ApproximateCreationDateTime?.getTime();
    return stamped === undefined ? readAt : Math.min(readAt, stamped + CREATION_TIME_GRANULARITY_MILLIS - 1);
  }

  /** Delivers one batch until it succeeds or is discarded, bisecting and resuming as configured. */
  private async process(batch: StreamRecord[], shardId: string): Promise<void> {
    const maxAgeMillis =
      (this.spec.maximumRecordAgeSeconds < 0 ? STREAM_RETENTION_SECONDS : this.spec.maximumRecordAgeSeconds) *
      1000;
    const retryDelay = this.spec.retryDelayMillis ?? defaultRetryDelay;
    // The batch and, after bisection, its halves, in stream order.
    const queue: PendingBatch[] = [{ records: batch, retries: 0, deliveries: 0 }];
    let lastFailure: Detail | undefined;
    while (queue.length > 0 && !this.stopped) {
      const pending = queue[0] as PendingBatch;
      const now = this.clock.now();
      const expired = pending.records.findIndex((record) => now - this.createdAt(record) <= maxAgeMillis);
      const expiredCount = expired === -1 ? pending.records.length : expired;
      if (expiredCount > 0) {
        await this.discard(
          pending,
          pending.records.slice(0, expiredCount),
          'RecordAgeExceeded',
          shardId,
          lastFailure,
        );
        this.checkpoints.advance(shardId, pending.records[expiredCount - 1]);
        pending.records = pending.records.slice(expiredCount);
        if (pending.records.length === 0) queue.shift();
        continue;
      }
      let outcome: BatchOutcome<Detail>;
      try {
        const last = pending.records.at(-1) as StreamRecord;
        outcome = await this.dependencies.deliver(pending.records, shardId, {
          iteratorAgeMillis: Math.max(0, this.clock.now() - this.createdAt(last)),
        });
      } catch (error) {
        // The consumer could not deliver at all (like Lambda failing to invoke): retried, not counted.
        this.problem(`delivery failed, retrying: ${(error as Error).message}`);
        await this.idle(retryDelay(1));
        continue;
      }
      pending.deliveries += 1;
      if (outcome.ok) {
        this.checkpoints.advance(shardId, pending.records.at(-1));
        queue.shift();
        continue;
      }
      lastFailure = outcome.detail;
      if (outcome.retryFrom > 0) {
        this.checkpoints.advance(shardId, pending.records[outcome.retryFrom - 1]);
        pending.records = pending.records.slice(outcome.retryFrom);
      }
      if (outcome.bisectable && this.spec.bisectBatchOnError && pending.records.length > 1) {
        const half = Math.ceil(pending.records.length / 2);
        queue.splice(
          0,
          1,
          { ...pending, records: pending.records.slice(0, half) },
          { ...pending, records: pending.records.slice(half) },
        );
        continue;
      }
      pending.retries += 1;
      if (this.spec.maximumRetryAttempts >= 0 && pending.retries > this.spec.maximumRetryAttempts) {
        await this.discard(pending, pending.records, 'RetryAttemptsExhausted', shardId, lastFailure);
        this.checkpoints.advance(shardId, pending.records.at(-1));
        queue.shift();
        continue;
      }
      await this.idle(retryDelay(pending.retries));
    }
  }

  private async discard(
    pending: PendingBatch,
    records: readonly StreamRecord[],
    condition: DiscardCondition,
    shardId: string,
    lastFailure: Detail | undefined,
  ): Promise<void> {
    const discarded: DiscardedBatch<Detail> = {
      condition,
      records,
      shardId,
      streamArn: this.spec.streamArn,
      deliveries: pending.deliveries,
      ...(lastFailure !== undefined ? { lastFailure } : {}),
    };
    for (let attempt = 1; !this.stopped; attempt += 1) {
      try {
        await this.dependencies.discard(discarded);
        return;
      } catch (error) {
        this.problem(
          `cannot send the failure record of ${records.length} records: ${(error as Error).message}`,
        );
        await this.idle(Math.min(5_000, 100 * 2 ** attempt));
      }
    }
  }

  private idle(millis: number): Promise<void> {
    return this.clock.sleep(millis, this.abort.signal);
  }

  /**
   * An idle shard's wait before it polls again: `pollMillis`, as Lambda polls; or, when writes are
   * told (a virtual clock), until the next write (none missed since `writesBefore`, read before the
   * poll that found nothing) or IDLE_POLL_ON_WRITES_MILLIS of the machine's time.
   */
  private async awaitRecords(pollMillis: number, writesBefore: number): Promise<void> {
    if (!this.waitsForWrites) return this.idle(pollMillis);
    if (this.writesSeen !== writesBefore || this.stopped) return;
    const woken = new AbortController();
    const wake = () => woken.abort();
    this.wakers.add(wake);
    this.abort.signal.addEventListener('abort', wake, { once: true });
    try {
      const millis = this.clock.seed === undefined ? IDLE_POLL_ON_WRITES_MILLIS : WAIT_FOR_A_WRITE_MILLIS;
      await this.machineClock.sleep(millis, woken.signal);
    } finally {
      this.wakers.delete(wake);
      this.abort.signal.removeEventListener('abort', wake);
    }
  }
}

/** The table a stream belongs to, by name: whose writes wake its readers. */
function tableOfStream(streamArn: string): string {
  const name = tableOfStreamArn(streamArn);
  if (name === undefined) throw new Error(`'${streamArn}' is not a DynamoDB stream ARN`);
  return name;
}
