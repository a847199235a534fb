/**
 * Output streams read as lines (function output read for Embedded Metric Format documents).
 */

/**
 * Splits a stream's chunks into lines (a chunk may end mid-line, a line may span chunks); a line
 * longer than `maxLineBytes` is dropped, as no EMF document is that large (CloudWatch Logs caps an
 * event at 256 KiB).
 */
export class LineSplitter {
  private pending = '';
  /** The rest of a line already too long is skipped up to its end. */
  private skipping = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxLineBytes = 256 * 1024,
  ) {}

  write(chunk: string): void {
    const lines = (this.pending + chunk).split('\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines) {
      if (!this.skipping && line.length <= this.maxLineBytes) this.onLine(line);
      this.skipping = false;
    }
    if (this.pending.length > this.maxLineBytes) {
      this.pending = '';
      this.skipping = true;
    }
  }
}
