/**
 * The DynamoDB capacity meter's arithmetic: what each call used, table by table, from its request
 * and DynamoDB Local's answer (with AWS's minimums where DynamoDB Local reports less), for the
 * gateway (gateway.ts) to tell the runtime's meter (../metering.ts) when the runtime meters. The
 * gateway sends each data-plane call on with ReturnConsumedCapacity INDEXES (unless the caller asked
 * for capacity itself) and gives the caller DynamoDB Local's answer without it. INDEXES gives each
 * index's share of the units too: DynamoDB Local follows AWS's rules for them (an INCLUDE or
 * KEYS_ONLY index is written only when a write adds, removes or changes a key or a projected
 * attribute of its entry, twice when its key changes; nothing when a value is set to what it was),
 * as test/integration/local-runtime/dynamodb/index-capacity.test.ts shows.
 *
 * The caller is the first segment of the request path: each function's AWS_ENDPOINT_URL_DYNAMODB is
 * `<gateway>/<function name>` (the SDK keeps an endpoint's path), Step Functions' client uses
 * STEP_FUNCTIONS_CALLER.
 */
import type { DynamoDbRequestRecord } from '../metering';

/** The caller of a request made to the meter's root (no caller segment). */
export const UNNAMED_CALLER = '(unnamed)';

const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);
const PARTIQL = new Set(['ExecuteStatement', 'BatchExecuteStatement', 'ExecuteTransaction']);
/** Single-table reads whose reported 0 units stand for AWS's minimum of one read. */
const SINGLE_TABLE_READS = new Set(['GetItem', 'Query', 'Scan']);
const SINGLE_ITEM_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

type Json = Record<string, unknown>;

/** Whether DynamoDB accepts ReturnConsumedCapacity on the operation (the ones that use capacity). */
export function isMeteredOperation(operation: string): boolean {
  return READS.has(operation) || WRITES.has(operation) || PARTIQL.has(operation);
}

/** Whether a PartiQL request only reads (every statement a SELECT). */
function partiqlReadsOnly(request: Json): boolean {
  const statements = Array.isArray(request.Statements)
    ? request.Statements
    : Array.isArray(request.TransactStatements)
      ? request.TransactStatements
      : [request];
  return statements.every((statement) =>
    /^\s*select\b/i.test(String((statement as Json | null)?.Statement ?? '')),
  );
}

function errorName(response: Json): string {
  const type = String(response.__type ?? '');
  return type.slice(type.lastIndexOf('#') + 1);
}

/** The tables a transaction names (Put, Update, Delete and ConditionCheck items). */
function transactionTables(request: Json): string[] {
  const items = Array.isArray(request.TransactItems) ? (request.TransactItems as Json[]) : [];
  const names = items.flatMap((item) =>
    Object.values(item ?? {}).map((action) => String((action as Json | null)?.TableName ?? '')),
  );
  return [...new Set(names.filter((name) => name !== ''))];
}

/**
 * The units one call used, table by table, from its request and DynamoDB Local's answer; undefined
 * for an answer that used no capacity AWS bills (another error, a control-plane call).
 */
export function capacityOfCall(
  operation: string,
  request: Json,
  status: number,
  response: Json,
): DynamoDbRequestRecord['tables'] | undefined {
  if (!isMeteredOperation(operation)) return undefined;
  if (status !== 200) {
    const error = errorName(response);
    if (error === 'ConditionalCheckFailedException' && SINGLE_ITEM_WRITES.has(operation)) {
      return [
        { tableName: String(request.TableName), readUnits: 0, writeUnits: 0, conditionalCheckFailed: true },
      ];
    }
    if (error === 'TransactionCanceledException' && operation === 'TransactWriteItems') {
      return transactionTables(request).map((tableName) => ({
        tableName,
        readUnits: 0,
        writeUnits: 0,
        transactionCancelled: true,
      }));
    }
    return undefined;
  }
  const reported = response.ConsumedCapacity;
  const entries = (Array.isArray(reported) ? reported : reported === undefined ? [] : [reported]) as Json[];
  const reads = READS.has(operation) || (PARTIQL.has(operation) && partiqlReadsOnly(request));
  const unitsOf = (capacity: Json) => {
    const units = Number(capacity.CapacityUnits ?? 0);
    return {
      readUnits:
        capacity.ReadCapacityUnits === undefined ? (reads ? units : 0) : Number(capacity.ReadCapacityUnits),
      writeUnits:
        capacity.WriteCapacityUnits === undefined ? (reads ? 0 : units) : Number(capacity.WriteCapacityUnits),
    };
  };
  const tables = entries.map((entry) => {
    const indexes = Object.entries({
      ...((entry.GlobalSecondaryIndexes as Json | undefined) ?? {}),
      ...((entry.LocalSecondaryIndexes as Json | undefined) ?? {}),
    }).map(([name, capacity]) => [name, unitsOf(capacity as Json)] as const);
    return {
      tableName: String(entry.TableName),
      ...unitsOf(entry),
      ...(indexes.length > 0 && { indexes: Object.fromEntries(indexes) }),
    };
  });
  if (SINGLE_TABLE_READS.has(operation)) {
    const tableName = String(request.TableName);
    const reportedUnits = tables.reduce((sum, table) => sum + table.readUnits, 0);
    if (reportedUnits === 0) {
      // AWS charges a read at least one 4 KB unit; DynamoDB Local reports 0 when nothing was found.
      const minimumReadUnits = request.ConsistentRead === true ? 1 : 0.5;
      return [{ tableName, readUnits: 0, writeUnits: 0, minimumReadUnits }];
    }
  }
  return tables;
}

/** What the meter records of one call made on `path` (its caller), or undefined as capacityOfCall. */
export function meteredRequest(
  operation: string,
  request: Json,
  status: number,
  response: Json,
  path: string,
): DynamoDbRequestRecord | undefined {
  const tables = capacityOfCall(operation, request, status, response);
  if (!tables) return undefined;
  return { operation, caller: callerOfPath(path), writesItems: WRITES.has(operation), tables };
}

/** The caller named by a request path `/<caller>/...`, or UNNAMED_CALLER. */
export function callerOfPath(path: string): string {
  const segment = path.split('?')[0]?.split('/')[1] ?? '';
  return segment === '' ? UNNAMED_CALLER : decodeURIComponent(segment);
}
