/**
 * What DynamoDB says a piece of work cost: an SDK middleware asks every data-plane request for its
 * consumed capacity (ReturnConsumedCapacity TOTAL) and adds up what the responses report, so a
 * figure measures the code it runs as it is (its own clients, its own requests), without a proxy and
 * without changing a line of it.
 */
import type { ConsumedCapacity, DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** Operations whose CapacityUnits are read units. */
const READ_OPERATIONS: ReadonlySet<string> = new Set([
  'GetItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'TransactGetItems',
]);
/** Operations whose CapacityUnits are write units. */
const WRITE_OPERATIONS: ReadonlySet<string> = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
]);

export interface CapacityUnits {
  readonly read: number;
  readonly write: number;
}

/**
 * The read and write units one response reports. A response states ReadCapacityUnits and
 * WriteCapacityUnits only in some cases (DynamoDB mostly gives CapacityUnits alone): where it does,
 * they are used as they are; else CapacityUnits count as what the operation is (a Query reads, an
 * UpdateItem writes, conditional or not). Batch and transaction responses list one entry per table.
 */
export function capacityUnitsOf(
  operation: string,
  consumed: ConsumedCapacity | readonly ConsumedCapacity[] | undefined,
): CapacityUnits {
  const entries: readonly ConsumedCapacity[] = consumed === undefined ? [] : [consumed].flat();
  let read = 0;
  let write = 0;
  for (const entry of entries) {
    if (entry.ReadCapacityUnits !== undefined || entry.WriteCapacityUnits !== undefined) {
      read += entry.ReadCapacityUnits ?? 0;
      write += entry.WriteCapacityUnits ?? 0;
    } else if (READ_OPERATIONS.has(operation)) {
      read += entry.CapacityUnits ?? 0;
    } else if (WRITE_OPERATIONS.has(operation)) {
      write += entry.CapacityUnits ?? 0;
    } else {
      throw new Error(`capacityUnitsOf: ${operation} is neither a read nor a write operation`);
    }
  }
  return { read, write };
}

/** One measured request: its operation and the units its response reported. */
export interface CapacityEntry extends CapacityUnits {
  readonly operation: string;
}

export interface OperationUsage {
  readonly requests: number;
  readonly readUnits: number;
  readonly writeUnits: number;
  /** Requests whose response reported no units at all (DynamoDB Local: a Query that matched nothing). */
  readonly reportedNothing: number;
}

export interface CapacityUsage {
  readonly requests: number;
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly byOperation: Readonly<Record<string, OperationUsage>>;
}

/** Totals of the measured requests, overall and per operation. */
export function summarizeCapacity(entries: readonly CapacityEntry[]): CapacityUsage {
  const byOperation: Record<string, OperationUsage> = {};
  for (const entry of entries) {
    const sum = byOperation[entry.operation] ?? {
      requests: 0,
      readUnits: 0,
      writeUnits: 0,
      reportedNothing: 0,
    };
    byOperation[entry.operation] = {
      requests: sum.requests + 1,
      readUnits: sum.readUnits + entry.read,
      writeUnits: sum.writeUnits + entry.write,
      reportedNothing: sum.reportedNothing + (entry.read === 0 && entry.write === 0 ? 1 : 0),
    };
  }
  return {
    requests: entries.length,
    readUnits: entries.reduce((sum, entry) => sum + entry.read, 0),
    writeUnits: entries.reduce((sum, entry) => sum + entry.write, 0),
    byOperation,
  };
}

const MIDDLEWARE_NAME = 'benchConsumedCapacity';

/**
 * Adds up the capacity that the requests of the clients it is attached to consume while `measure`
 * runs. Requests outside `measure` are not counted (e.g. loading the data); one measurement at a time.
 */
export class ConsumedCapacityMeter {
  private entries: CapacityEntry[] | undefined;

  /**
   * Instruments a client (and every DynamoDBDocumentClient made from it, which shares its middleware
   * stack): each read or write request asks for TOTAL consumed capacity and its answer is recorded.
   */
  attachTo(client: DynamoDBClient): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const operation = (context.commandName ?? '').replace(/Command$/, '');
        const measured = READ_OPERATIONS.has(operation) || WRITE_OPERATIONS.has(operation);
        const input = args.input as Record<string, unknown>;
        const result = await next(
          measured ? { ...args, input: { ...input, ReturnConsumedCapacity: 'TOTAL' } } : args,
        );
        if (measured && this.entries !== undefined) {
          const output = result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] };
          this.entries.push({ operation, ...capacityUnitsOf(operation, output.ConsumedCapacity) });
        }
        return result;
      },
      { step: 'initialize', name: MIDDLEWARE_NAME, override: true },
    );
  }

  /** Runs `work` and returns what its requests consumed. */
  async measure<T>(work: () => Promise<T>): Promise<{ readonly result: T; readonly usage: CapacityUsage }> {
    if (this.entries !== undefined) throw new Error('ConsumedCapacityMeter: one measurement at a time');
    const entries: CapacityEntry[] = [];
    this.entries = entries;
    try {
      const result = await work();
      return { result, usage: summarizeCapacity(entries) };
    } finally {
      this.entries = undefined;
    }
  }
}
