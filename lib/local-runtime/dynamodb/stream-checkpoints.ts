/**
 * Where each shard of a stream consumer was left (the last record processed, a closed shard read to
 * its end), kept in a file when one is given, so that a consumer started again on the same data
 * resumes where it stopped, as a mapping on AWS does (stream-reader.ts).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { _Record as StreamRecord } from '@aws-sdk/client-dynamodb-streams';

interface ShardCheckpoint {
  /** The last record processed (delivered, or given up). */
  readonly sequenceNumber?: string;
  /** A closed shard read to its end. */
  readonly finished?: boolean;
}

/** Where each shard was left, in a file when one is given (written after every step forward). */
export class StreamCheckpoints {
  private shards: Record<string, ShardCheckpoint> = {};

  constructor(
    private readonly file: string | undefined,
    private readonly streamArn: string,
    onProblem: (message: string) => void,
  ) {
    if (!file || !existsSync(file)) return;
    try {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as {
        streamArn?: string;
        shards?: Record<string, ShardCheckpoint>;
      };
      // A table created again has a new stream: the old checkpoints do not apply to it.
      if (saved.streamArn === streamArn) this.shards = saved.shards ?? {};
    } catch (error) {
      onProblem(`checkpoints ${file} are unreadable (${(error as Error).message}); starting as configured`);
    }
  }

  of(shardId: string): ShardCheckpoint | undefined {
    return this.shards[shardId];
  }

  advance(shardId: string, record: StreamRecord | undefined): void {
    const sequenceNumber = record?.dynamodb?.SequenceNumber;
    if (!sequenceNumber) return;
    this.shards[shardId] = { sequenceNumber };
    this.save();
  }

  finish(shardId: string): void {
    this.shards[shardId] = { ...this.shards[shardId], finished: true };
    this.save();
  }

  private save(): void {
    if (!this.file) return;
    mkdirSync(dirname(this.file), { recursive: true });
    // Write then rename: a runtime killed mid-write leaves the previous checkpoints, not half a file.
    const partial = `${this.file}.partial`;
    writeFileSync(partial, JSON.stringify({ streamArn: this.streamArn, shards: this.shards }));
    renameSync(partial, this.file);
  }
}
