/**
 * Persistence of the SQS service: an append-only journal of JSON lines under the data directory.
 * Every change of state is one record, applied in memory and appended in the same step; a restart
 * replays the journal, then rewrites it as a snapshot of what is still alive (compaction), so it
 * grows with activity only until the next start or compaction. Writes are not fsynced: a killed
 * process loses nothing (the OS holds the bytes), a power cut may lose the last records.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { DeduplicationEntry, StoredMessage } from './queue';

export type JournalRecord =
  | {
      readonly op: 'createQueue';
      readonly accountId: string;
      readonly name: string;
      readonly attributes: Record<string, string>;
      readonly createdAt: number;
      readonly modifiedAt: number;
      readonly tags: Record<string, string>;
      readonly lastPurgeAt?: number;
    }
  | {
      readonly op: 'setAttributes';
      readonly key: string;
      readonly attributes: Record<string, string>;
      readonly at: number;
    }
  | { readonly op: 'setTags'; readonly key: string; readonly tags: Record<string, string> }
  | { readonly op: 'deleteQueue'; readonly key: string }
  | { readonly op: 'send'; readonly key: string; readonly message: StoredMessage }
  | {
      readonly op: 'deduplicate';
      readonly key: string;
      readonly scope: string;
      readonly entry: DeduplicationEntry;
    }
  | {
      readonly op: 'receive';
      readonly key: string;
      readonly messageId: string;
      readonly receipt: string;
      readonly at: number;
      readonly visibleAt: number;
    }
  | {
      readonly op: 'changeVisibility';
      readonly key: string;
      readonly messageId: string;
      readonly visibleAt: number;
    }
  | { readonly op: 'delete'; readonly key: string; readonly messageId: string }
  | { readonly op: 'purge'; readonly key: string; readonly at: number }
  | {
      readonly op: 'moveToDeadLetterQueue';
      readonly key: string;
      readonly messageId: string;
      readonly targetKey: string;
      readonly sourceArn: string;
      readonly at: number;
    }
  | { readonly op: 'sequence'; readonly next: string };

const JOURNAL_FILE = 'journal.jsonl';

export class Journal {
  private descriptor: number;
  /** Records appended since the last compaction. */
  appended = 0;

  private constructor(private readonly directory: string) {
    this.descriptor = openSync(join(directory, JOURNAL_FILE), 'a');
  }

  /** Opens (creating) the journal in `directory` and returns it with the records it already holds. */
  static open(directory: string): { journal: Journal; records: JournalRecord[] } {
    mkdirSync(directory, { recursive: true });
    const path = join(directory, JOURNAL_FILE);
    const records: JournalRecord[] = [];
    if (existsSync(path)) {
      const lines = readFileSync(path, 'utf8').split('\n');
      for (const [index, line] of lines.entries()) {
        if (line.trim() === '') continue;
        try {
          records.push(JSON.parse(line) as JournalRecord);
        } catch (error) {
          // Only the last line can be torn (a process killed mid-write); anything else is corruption.
          if (index < lines.length - 2) {
            throw new Error(
              `SQS journal ${path} is corrupt at line ${index + 1}: ${(error as Error).message}`,
            );
          }
        }
      }
    }
    return { journal: new Journal(directory), records };
  }

  append(record: JournalRecord): void {
    writeSync(this.descriptor, `${JSON.stringify(record)}\n`);
    this.appended += 1;
  }

  /** Replaces the journal by `records` (a snapshot), atomically: a crash leaves the old or the new one. */
  rewrite(records: readonly JournalRecord[]): void {
    const path = join(this.directory, JOURNAL_FILE);
    const temporary = `${path}.tmp`;
    const descriptor = openSync(temporary, 'w');
    try {
      writeSync(descriptor, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    } finally {
      closeSync(descriptor);
    }
    closeSync(this.descriptor);
    renameSync(temporary, path);
    this.descriptor = openSync(path, 'a');
    this.appended = 0;
  }

  close(): void {
    closeSync(this.descriptor);
  }
}
