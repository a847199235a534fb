/**
 * Where a table's write units go: per writer (the function or Step Functions that made the
 * requests) and, for each, the item's own share and each secondary index's, from the meter's
 * writesByCaller (ReturnConsumedCapacity INDEXES: DynamoDB Local charges an index as AWS does,
 * test/integration/local-runtime/dynamodb/index-capacity.test.ts). A figure divides by its orders
 * to say what one update of each writer costs, and which index makes it cost that.
 */
import type { TableUsage } from '../../local-runtime';

/** The item's own share of the units, beside the indexes' names. */
export const TABLE_SHARE = 'table';

/** One writer's writes, per unit of work (e.g. per order). */
export interface WriterWrites {
  /** The writer: a function's logical id without its hash, or the meter's caller name. */
  readonly writer: string;
  readonly requests: number;
  readonly writeUnits: number;
  /** TABLE_SHARE and each index written, with its units. */
  readonly byShare: Readonly<Record<string, number>>;
}

export interface TableWrites {
  readonly writeUnits: number;
  /** TABLE_SHARE and each index of the table (0 where nothing was written to it). */
  readonly byShare: Readonly<Record<string, number>>;
  /** Largest first; writers that wrote nothing in the window left out. */
  readonly byWriter: readonly WriterWrites[];
}

/** A logical id without the hash the CDK appends (8 hex digits, upper case). */
export function withoutHash(logicalId: string): string {
  return logicalId.replace(/[0-9A-F]{8}$/, '');
}

/**
 * A table's writes divided by `per` (orders), by writer and share. `writerOf` names a caller
 * (physical function name) by its logical id; a caller it does not know keeps its own name.
 */
export function tableWrites(
  table: TableUsage,
  per: number,
  writerOf: (caller: string) => string | undefined,
): TableWrites {
  const indexes = Object.keys(table.byIndex).sort();
  const byWriter = new Map<
    string,
    { requests: number; writeUnits: number; byShare: Record<string, number> }
  >();
  for (const [caller, writes] of Object.entries(table.writesByCaller)) {
    const writer = writerOf(caller) ?? caller;
    const sum = byWriter.get(writer) ?? { requests: 0, writeUnits: 0, byShare: { [TABLE_SHARE]: 0 } };
    byWriter.set(writer, sum);
    sum.requests += writes.requests / per;
    sum.writeUnits += writes.writeUnits / per;
    let onIndexes = 0;
    for (const [index, units] of Object.entries(writes.byIndex)) {
      sum.byShare[index] = (sum.byShare[index] ?? 0) + units / per;
      onIndexes += units;
    }
    sum.byShare[TABLE_SHARE] = (sum.byShare[TABLE_SHARE] ?? 0) + (writes.writeUnits - onIndexes) / per;
  }
  const onIndexes = indexes.reduce((sum, index) => sum + (table.byIndex[index]?.writeUnits ?? 0), 0);
  return {
    writeUnits: table.writeUnits / per,
    byShare: {
      [TABLE_SHARE]: (table.writeUnits - onIndexes) / per,
      ...Object.fromEntries(indexes.map((index) => [index, (table.byIndex[index]?.writeUnits ?? 0) / per])),
    },
    byWriter: [...byWriter]
      .filter(([, sum]) => sum.requests > 0)
      .map(([writer, sum]) => ({ writer, ...sum }))
      .sort((a, b) => b.writeUnits - a.writeUnits || a.writer.localeCompare(b.writer)),
  };
}
