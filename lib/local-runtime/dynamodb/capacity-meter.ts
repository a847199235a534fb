/**
 * The DynamoDB capacity meter: a loopback proxy in front of DynamoDB Local, which the functions and
 * Step Functions' DynamoDB integration reach instead of it when the runtime meters (../metering.ts).
 * Each data-plane call is sent on with ReturnConsumedCapacity TOTAL (unless the caller asked for
 * capacity itself), the units DynamoDB Local reports are told to the meter per table, and the caller
 * gets DynamoDB Local's answer as it was, without the ConsumedCapacity it did not ask for (the
 * x-amz-crc32 checksum recomputed). Why a proxy: the functions talk to DynamoDB through their own
 * SDK clients, and this is the one place every call passes without touching a handler.
 *
 * The caller is the first segment of the request path: each function's AWS_ENDPOINT_URL_DYNAMODB is
 * `<meter>/<function name>` (the SDK keeps an endpoint's path), Step Functions' client uses
 * STEP_FUNCTIONS_CALLER; DynamoDB Local itself is always called at `/`.
 */
import { crc32 } from 'node:zlib';
import { type RunningServer, readBody, startLoopbackServer } from '../http-server';
import type { DynamoDbRequestRecord, RuntimeMeter } from '../metering';

/** The caller of a request made to the meter's root (no caller segment). */
export const UNNAMED_CALLER = '(unnamed)';

/** DynamoDB's largest request (a BatchWriteItem) is 16 MB. */
const MAX_REQUEST_BYTES = 16 * 1024 * 1024;
const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

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
  const tables = entries.map((entry) => {
    const units = Number(entry.CapacityUnits ?? 0);
    const readUnits =
      entry.ReadCapacityUnits === undefined ? (reads ? units : 0) : Number(entry.ReadCapacityUnits);
    const writeUnits =
      entry.WriteCapacityUnits === undefined ? (reads ? 0 : units) : Number(entry.WriteCapacityUnits);
    return { tableName: String(entry.TableName), readUnits, writeUnits };
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

/** The caller named by a request path `/<caller>/...`, or UNNAMED_CALLER. */
export function callerOfPath(path: string): string {
  const segment = path.split('?')[0]?.split('/')[1] ?? '';
  return segment === '' ? UNNAMED_CALLER : decodeURIComponent(segment);
}

export async function startDynamoDbCapacityMeter(options: {
  /** DynamoDB Local's endpoint. */
  readonly target: string;
  readonly meter: RuntimeMeter;
  readonly onProblem: (message: string) => void;
}): Promise<RunningServer> {
  const target = `${options.target.replace(/\/+$/, '')}/`;
  return startLoopbackServer((incoming, outgoing) => {
    void (async () => {
      const raw = await readBody(incoming, MAX_REQUEST_BYTES);
      const amzTarget = String(incoming.headers['x-amz-target'] ?? '');
      const operation = amzTarget.slice(amzTarget.lastIndexOf('.') + 1);
      let body: Buffer | string = raw;
      let request: Json | undefined;
      let askedForCapacity = true;
      if (isMeteredOperation(operation)) {
        request = JSON.parse(raw.toString('utf8')) as Json;
        const asked = request.ReturnConsumedCapacity;
        askedForCapacity = asked !== undefined && asked !== 'NONE';
        if (!askedForCapacity) body = JSON.stringify({ ...request, ReturnConsumedCapacity: 'TOTAL' });
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = String(value);
      }
      const answer = await fetch(target, { method: 'POST', headers, body });
      let text = await answer.text();
      if (request) {
        const response = JSON.parse(text) as Json;
        const tables = capacityOfCall(operation, request, answer.status, response);
        if (tables) {
          options.meter.dynamoDbRequest({ operation, caller: callerOfPath(incoming.url ?? '/'), tables });
        }
        if (!askedForCapacity && 'ConsumedCapacity' in response) {
          const { ConsumedCapacity: _added, ...asAnswered } = response;
          text = JSON.stringify(asAnswered);
        }
      }
      const replyHeaders: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        // fetch has decoded the body: its encoding and length no longer apply.
        if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') replyHeaders[name] = value;
      });
      if (replyHeaders['x-amz-crc32'] !== undefined) replyHeaders['x-amz-crc32'] = String(crc32(text));
      outgoing.writeHead(answer.status, replyHeaders);
      outgoing.end(text);
    })().catch((error: Error) => {
      options.onProblem(`DynamoDB capacity meter: ${error.message}`);
      if (outgoing.headersSent || outgoing.destroyed) return;
      outgoing.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
      outgoing.end(JSON.stringify({ __type: 'InternalServerError', message: error.message }));
    });
  });
}
