/**
 * Writes to the tables as the DynamoDB gateway answers them, told to whoever listens: the stream
 * readers, which on a virtual clock wait for a write instead of polling (stream-reader.ts).
 */
import type { TableWrites } from './stream-reader';

export class TableWriteSignal implements TableWrites {
  private readonly listeners = new Set<() => void>();

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
