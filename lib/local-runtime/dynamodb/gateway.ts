/**
 * The DynamoDB gateway: the one front door of DynamoDB Local (and of its Streams API) for everyone
 * but the runtime itself: functions, Step Functions' integrations, stream readers and the local tools
 * (`endpoints.dynamodb` of target.json). For each request it does what AWS's front end does before
 * the data is touched:
 *
 * 1. authenticates the SigV4 signature against the local account's credentials (../iam): an unknown
 *    key, a wrong signature or a missing token is refused as DynamoDB refuses it;
 * 2. authorizes every action the request takes (iam-requests.ts) against the caller's identity
 *    policies, with the fine-grained keys (dynamodb:Attributes, LeadingKeys, Select, ReturnValues...),
 *    and the KMS key of a table encrypted with a customer-managed key (kms:Decrypt through DynamoDB);
 *    a denial is DynamoDB's AccessDeniedException, and DynamoDB Local never sees the request;
 * 3. when the runtime meters, counts the capacity the request used (capacity-meter.ts).
 *
 * DynamoDB Local itself listens on a port of its own that only the runtime uses (table creation,
 * time to live). The caller's path segment (`<gateway>/<function name>`) names the caller to the
 * meter only; who calls is the signature's business.
 */

import { crc32 } from 'node:zlib';
import type { RuntimeClock } from '../clock';
import type { Verdict } from '../iam/authorizer';
import { type ReceivedRequest, verifySigV4 } from '../iam/identities';
import type { Principal } from '../iam/principals';
import type { RuntimeIam } from '../iam/runtime-iam';
import type { RuntimeMeter } from '../metering';
import { type RunningServer, readBody, startLoopbackServer } from '../protocol/http-server';
import { JSON_AUTHENTICATION_ERRORS } from '../protocol/json-authentication-errors';
import { isMeteredOperation, meteredRequest } from './capacity-meter';
import {
  type DynamoDbCheck,
  type DynamoDbRequestScope,
  dynamoDbChecks,
  type TableInfo,
} from './iam-requests';

/** DynamoDB's largest request (a BatchWriteItem) is 16 MB. */
const MAX_REQUEST_BYTES = 16 * 1024 * 1024;
const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

type Json = Record<string, unknown>;

export interface DynamoDbGatewayOptions {
  /** The runtime's clock: a request holds it while it is served. @default - none (as on the wall clock) */
  readonly clock?: RuntimeClock;
  /** DynamoDB Local's endpoint. */
  readonly target: string;
  readonly iam: RuntimeIam;
  readonly region: string;
  readonly accountId: string;
  /** What the gateway knows of each table (its key, indexes and KMS key), by name. */
  tableOf(name: string): TableInfo | undefined;
  /** Counts capacity when the runtime meters. @default - no metering */
  readonly meter?: RuntimeMeter;
  readonly onProblem: (message: string) => void;
  /**
   * The access key DynamoDB Local sees on every forwarded request. DynamoDB Local does not verify
   * signatures, but without -sharedDb it keeps one database per access key: naming one key puts
   * every caller of the gateway in one account's database (a test's shared JVM). @default - the
   * caller's own (the runtime's DynamoDB Local is shared: -sharedDb)
   */
  readonly backendAccessKeyId?: string;
  /**
   * Called once DynamoDB Local has answered a write (WRITE_OPERATIONS) with success, with the
   * tables it wrote to (by name; `undefined` when the request names none the gateway could read).
   * @default - none
   */
  readonly onWrite?: (tables: readonly string[] | undefined) => void;
}

/** The operations that may change items, and so add stream records. */
const WRITE_OPERATIONS = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
  'ExecuteStatement',
  'BatchExecuteStatement',
  'ExecuteTransaction',
]);

class Refusal extends Error {
  constructor(
    readonly errorType: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The stream a shard iterator reads, from the iterator itself: DynamoDB Local's iterators start with
 * the stream's ARN and a `|` (the ARN the runtime publishes as the table's StreamArn), as AWS reads
 * the stream of a GetRecords from its iterator. Stateless on purpose: a map of the iterators handed
 * out refused live readers once it forgot theirs (two event sources on one table's stream).
 */
export function streamOfShardIterator(iterator: string): string | undefined {
  const arn = iterator.split('|', 1)[0] ?? '';
  return /^arn:aws:dynamodb:[^:]+:\d{12}:table\/[^/]+\/stream\/[^/|]+$/.test(arn) ? arn : undefined;
}

/**
 * A request on a table encrypted with a customer-managed key also needs the caller's kms:Decrypt
 * of that key, through DynamoDB
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/encryption.howitworks.html).
 * Which error DynamoDB answers a caller the key refuses is not documented; AccessDeniedException
 * naming the key is assumed.
 */
function authorizeTableKey(
  iam: RuntimeIam,
  principal: Principal,
  check: DynamoDbCheck,
  accountId: string,
): void {
  const key = check.table?.kmsKey;
  if (!key || !check.access) return;
  const verdict = iam.keys.authorizeUse(iam.authorizer, {
    principal,
    actions: ['kms:Decrypt'],
    keyReference: key,
    viaService: 'dynamodb',
    encryptionContext: {
      'aws:dynamodb:tableName': check.table?.name ?? '',
      'aws:dynamodb:subscriberId': accountId,
    },
  });
  if (!verdict.allowed) throw new Refusal('AccessDeniedException', verdict.message);
}

/** The tables a write request's checks write to, or `undefined` if none names its table. */
function tablesWritten(checks: readonly DynamoDbCheck[]): readonly string[] | undefined {
  const tables = new Set<string>();
  for (const check of checks) {
    if (check.access === 'write' && check.table?.name) tables.add(check.table.name);
  }
  return tables.size > 0 ? [...tables] : undefined;
}

/**
 * One request forwarded to DynamoDB Local. On a seeded clock its work there holds the clock too: a
 * caller that went away (a sandbox killed mid-call) releases its request's hold, and the next
 * request must not reach DynamoDB Local while this one is still in it (a transaction conflict, or
 * not, as the machine goes).
 */
async function askDynamoDbLocal(
  target: string,
  headers: Record<string, string>,
  body: string | Buffer,
  clock: RuntimeClock | undefined,
): Promise<{ readonly answer: Response; readonly text: string }> {
  const backend = clock?.seed === undefined ? undefined : clock.hold('dynamodb-local');
  try {
    const answer = await fetch(target, { method: 'POST', headers, body });
    return { answer, text: await answer.text() };
  } finally {
    backend?.release();
  }
}

export async function startDynamoDbGateway(options: DynamoDbGatewayOptions): Promise<RunningServer> {
  const target = `${options.target.replace(/\/+$/, '')}/`;
  const { iam } = options;
  const scope: DynamoDbRequestScope = {
    region: options.region,
    accountId: options.accountId,
    tableOf: (name) => options.tableOf(name),
    streamOfIterator: streamOfShardIterator,
  };

  // Verifies the caller and authorizes each check of the request; returns the checks.
  const authorize = async (operation: string, request: Json, received: ReceivedRequest) => {
    const verdict = await verifySigV4(received, iam.credentials, {
      region: options.region,
      service: 'dynamodb',
    });
    if (!verdict.ok) {
      const error = JSON_AUTHENTICATION_ERRORS[verdict.reason];
      throw new Refusal(error.type, error.message ?? verdict.message);
    }
    const { principal } = verdict.identity;
    const checks = dynamoDbChecks(operation, request, scope);
    if (typeof checks === 'string') throw new Refusal('ValidationException', checks);
    for (const check of checks) {
      const decided: Verdict = iam.authorizer.authorize({
        principal,
        action: check.action,
        resource: check.resource,
        context: check.context,
      });
      if (!decided.allowed) throw new Refusal('AccessDeniedException', decided.message);
      authorizeTableKey(iam, principal, check, options.accountId);
    }
    return checks;
  };

  return startLoopbackServer(
    (incoming, outgoing) => {
      void (async () => {
        const raw = await readBody(incoming, MAX_REQUEST_BYTES);
        const amzTarget = String(incoming.headers['x-amz-target'] ?? '');
        const operation = amzTarget.slice(amzTarget.lastIndexOf('.') + 1);
        const url = new URL(incoming.url ?? '/', 'http://localhost');
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(incoming.headers)) {
          if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : String(value);
        }
        let request: Json;
        try {
          request = raw.length === 0 ? {} : (JSON.parse(raw.toString('utf8')) as Json);
        } catch {
          throw new Refusal('SerializationException', 'Request body is not valid JSON');
        }
        const checks = await authorize(operation, request, {
          method: incoming.method ?? 'POST',
          rawPath: url.pathname,
          query: url.searchParams,
          headers,
          body: raw,
        });
        const metered = options.meter !== undefined && isMeteredOperation(operation);
        const askedForCapacity =
          request.ReturnConsumedCapacity !== undefined && request.ReturnConsumedCapacity !== 'NONE';
        const body =
          metered && !askedForCapacity
            ? JSON.stringify({ ...request, ReturnConsumedCapacity: 'INDEXES' })
            : raw;
        const forwarded: Record<string, string> = {};
        for (const [name, value] of Object.entries(headers))
          if (!HOP_BY_HOP.has(name)) forwarded[name] = value;
        if (options.backendAccessKeyId && forwarded.authorization) {
          forwarded.authorization = forwarded.authorization.replace(
            /Credential=[^/]+\//,
            `Credential=${options.backendAccessKeyId}/`,
          );
        }
        const { answer, text: answered } = await askDynamoDbLocal(target, forwarded, body, options.clock);
        let text = answered;
        if (answer.ok && WRITE_OPERATIONS.has(operation)) options.onWrite?.(tablesWritten(checks));
        if (metered && options.meter) {
          const response = JSON.parse(text) as Json;
          const record = meteredRequest(operation, request, answer.status, response, incoming.url ?? '/');
          if (record) options.meter.dynamoDbRequest(record);
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
        if (outgoing.headersSent || outgoing.destroyed) return;
        if (error instanceof Refusal) {
          const body = JSON.stringify({
            __type: `com.amazon.coral.service#${error.errorType}`,
            message: error.message,
          });
          outgoing.writeHead(400, {
            'content-type': 'application/x-amz-json-1.0',
            'x-amz-crc32': String(crc32(body)),
          });
          outgoing.end(body);
          return;
        }
        options.onProblem(`DynamoDB gateway: ${error.message}`);
        outgoing.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
        outgoing.end(JSON.stringify({ __type: 'InternalServerError', message: error.message }));
      });
    },
    { ...(options.clock && { clock: options.clock }) },
  );
}
