/**
 * What IAM checks for one DynamoDB (or DynamoDB Streams) request: each action, on which resource,
 * with which condition keys, as the Service Authorization Reference
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazondynamodb.html) and
 * the fine-grained access page
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/specifying-conditions.html) say:
 *
 * - item operations check their own action on the table; Query and Scan on the index when they
 *   name one (`table/<t>/index/<i>`); a batch checks its batch action on every table it names; a
 *   transaction checks each item's own action (PutItem, UpdateItem, DeleteItem, ConditionCheckItem,
 *   GetItem) on its table, with `dynamodb:EnclosingOperation` naming the transaction; PartiQL checks
 *   PartiQLSelect/Insert/Update/Delete on the table its statement names.
 * - `dynamodb:Attributes` is every top-level attribute the request names: the key, the item's
 *   attributes (PutItem), the projection, the update, the condition, the key condition and the
 *   filter ("These attributes can be read, written, or evaluated in a conditional write or scan
 *   filter"; "it cannot perform conditional write operations based on any other attributes").
 * - `dynamodb:Select`: reads only; the request's, else SPECIFIC_ATTRIBUTES with a projection, else
 *   ALL_PROJECTED_ATTRIBUTES on an index and ALL_ATTRIBUTES on a table (the API's defaults; "the
 *   Select parameter always has a value").
 * - `dynamodb:ReturnValues`: writes only, NONE unless asked ("always has a value"). A transaction's
 *   items (Put, Update, Delete, ConditionCheck) have no ReturnValues: theirs is
 *   ReturnValuesOnConditionCheckFailure, which the transactions page restricts with this very key
 *   ("Example 4: Prevent information from being returned on a ConditionCheck failure" allows
 *   `dynamodb:ConditionCheckItem`... only with `StringEqualsIfExists` `dynamodb:ReturnValues` NONE,
 *   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html#tx-policy-example-4).
 * - `dynamodb:LeadingKeys`: the partition key value(s) (the index's for a Query on an index).
 * - Streams: DescribeStream, GetShardIterator and GetRecords on the stream's ARN (GetRecords through
 *   the iterator, which the gateway remembers), ListStreams on `*`.
 * - Control-plane operations check `dynamodb:<Operation>` on the table (ListTables on `*`).
 *
 * Not known to AWS's pages and so not claimed here: whether ReturnValuesOnConditionCheckFailure of a
 * single PutItem, UpdateItem or DeleteItem takes part in dynamodb:ReturnValues (those requests have
 * ReturnValues, which is the key's value here).
 */
import type { RequestContext } from '../iam/policy-document';

type Json = Record<string, unknown>;

/** What the gateway knows of a table. */
export interface TableInfo {
  readonly name: string;
  readonly arn: string;
  readonly partitionKey: string;
  readonly sortKey?: string;
  /** Index name -> its partition key. */
  readonly indexPartitionKeys: Readonly<Record<string, string>>;
  /** The customer-managed key it is encrypted with (SSESpecification.KMSMasterKeyId), if any. */
  readonly kmsKey?: string;
}

/** One check: an action on a resource with its condition keys, and the table whose key it reads. */
export interface DynamoDbCheck {
  readonly action: string;
  readonly resource: string;
  readonly context: RequestContext;
  /** The table the request reaches (for its KMS key). */
  readonly table?: TableInfo;
  /** Whether the request reads (`read`) or writes (`write`) items, for the KMS key's use. */
  readonly access?: 'read' | 'write';
}

const RESERVED = new Set([
  'and',
  'or',
  'not',
  'between',
  'in',
  'set',
  'remove',
  'add',
  'delete',
  'attribute_exists',
  'attribute_not_exists',
  'attribute_type',
  'begins_with',
  'contains',
  'size',
  'if_not_exists',
  'list_append',
]);

/** The top-level attribute names an expression mentions (`#alias` through its names map). */
export function expressionAttributes(expression: unknown, names: unknown): string[] {
  if (typeof expression !== 'string' || expression === '') return [];
  const aliases = (typeof names === 'object' && names !== null ? names : {}) as Record<string, string>;
  const found = new Set<string>();
  // Strip value placeholders and quoted text, then take the first segment of every path.
  const text = expression.replace(/:[A-Za-z0-9_]+/g, ' ').replace(/"[^"]*"|'[^']*'/g, ' ');
  const pathPattern =
    /(#[A-Za-z0-9_]+|[A-Za-z_][A-Za-z0-9_]*)((?:\.(?:#[A-Za-z0-9_]+|[A-Za-z_][A-Za-z0-9_]*)|\[\d+\])*)/g;
  for (const match of text.matchAll(pathPattern)) {
    const [, head = ''] = match;
    const before = text[(match.index ?? 0) - 1];
    if (before === '.' || /[A-Za-z0-9_]/.test(before ?? '')) continue;
    if (head.startsWith('#')) {
      const resolved = aliases[head];
      if (resolved !== undefined) found.add(resolved);
      continue;
    }
    // A function name is followed by '('.
    const after = text.slice((match.index ?? 0) + match[0].length).trimStart();
    if (RESERVED.has(head.toLowerCase()) || after.startsWith('(')) continue;
    found.add(head);
  }
  return [...found];
}

/** A DynamoDB attribute value as IAM compares it (S and N as written, B in base64). */
function scalarOf(value: unknown): string | undefined {
  const attribute = value as { S?: unknown; N?: unknown; B?: unknown } | undefined;
  if (typeof attribute?.S === 'string') return attribute.S;
  if (typeof attribute?.N === 'string') return attribute.N;
  if (typeof attribute?.B === 'string') return attribute.B;
  return undefined;
}

/** The value the key condition binds to `keyName` (`#pk = :v` or `pk = :v`). */
function keyConditionValue(request: Json, keyName: string): string | undefined {
  const expression = typeof request.KeyConditionExpression === 'string' ? request.KeyConditionExpression : '';
  const names = (request.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (request.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
  for (const match of expression.matchAll(/(#?[A-Za-z0-9_]+)\s*=\s*(:[A-Za-z0-9_]+)/g)) {
    const [, path = '', placeholder = ''] = match;
    const name = path.startsWith('#') ? names[path] : path;
    if (name === keyName) return scalarOf(values[placeholder]);
  }
  const legacy = (request.KeyConditions as Record<string, { AttributeValueList?: unknown[] }> | undefined)?.[
    keyName
  ];
  return scalarOf(legacy?.AttributeValueList?.[0]);
}

function projection(request: Json): string[] {
  const legacy = Array.isArray(request.AttributesToGet) ? (request.AttributesToGet as string[]) : [];
  return [...legacy, ...expressionAttributes(request.ProjectionExpression, request.ExpressionAttributeNames)];
}

function conditionNames(request: Json): string[] {
  const legacy = [
    ...Object.keys((request.Expected as Json | undefined) ?? {}),
    ...Object.keys((request.QueryFilter as Json | undefined) ?? {}),
    ...Object.keys((request.ScanFilter as Json | undefined) ?? {}),
    ...Object.keys((request.KeyConditions as Json | undefined) ?? {}),
  ];
  return [
    ...legacy,
    ...expressionAttributes(request.ConditionExpression, request.ExpressionAttributeNames),
    ...expressionAttributes(request.FilterExpression, request.ExpressionAttributeNames),
    ...expressionAttributes(request.KeyConditionExpression, request.ExpressionAttributeNames),
  ];
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function capacityContext(request: Json): RequestContext {
  return {
    'dynamodb:returnconsumedcapacity':
      typeof request.ReturnConsumedCapacity === 'string' ? request.ReturnConsumedCapacity : 'NONE',
  };
}

function leadingKeys(table: TableInfo, key: unknown): RequestContext {
  const value = scalarOf((key as Json | undefined)?.[table.partitionKey]);
  return value === undefined ? {} : { 'dynamodb:leadingkeys': [value] };
}

type ItemOperation = 'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'ConditionCheckItem';

/** One item operation's check (a transaction item's too, with `enclosing`). */
function itemCheck(
  operation: ItemOperation,
  request: Json,
  table: TableInfo,
  enclosing?: 'TransactWriteItems' | 'TransactGetItems',
): DynamoDbCheck {
  const key = (operation === 'PutItem' ? request.Item : request.Key) as Json | undefined;
  const attributes = unique([
    ...Object.keys(key ?? {}),
    ...projection(request),
    ...conditionNames(request),
    ...expressionAttributes(request.UpdateExpression, request.ExpressionAttributeNames),
    ...Object.keys((request.AttributeUpdates as Json | undefined) ?? {}),
  ]);
  const context: Record<string, string | readonly string[]> = {
    'dynamodb:attributes': attributes,
    ...leadingKeys(table, key),
    ...capacityContext(request),
  };
  if (operation === 'GetItem') {
    context['dynamodb:select'] = projection(request).length > 0 ? 'SPECIFIC_ATTRIBUTES' : 'ALL_ATTRIBUTES';
  } else if (enclosing) {
    const onFailure = request.ReturnValuesOnConditionCheckFailure;
    context['dynamodb:returnvalues'] = typeof onFailure === 'string' ? onFailure : 'NONE';
  } else if (operation !== 'ConditionCheckItem') {
    context['dynamodb:returnvalues'] =
      typeof request.ReturnValues === 'string' ? request.ReturnValues : 'NONE';
  }
  if (enclosing) context['dynamodb:enclosingoperation'] = enclosing;
  return {
    action: `dynamodb:${operation}`,
    resource: table.arn,
    context,
    table,
    access: operation === 'GetItem' || operation === 'ConditionCheckItem' ? 'read' : 'write',
  };
}

function readCheck(operation: 'Query' | 'Scan', request: Json, table: TableInfo): DynamoDbCheck {
  const index = typeof request.IndexName === 'string' ? request.IndexName : undefined;
  const select =
    typeof request.Select === 'string'
      ? request.Select
      : projection(request).length > 0
        ? 'SPECIFIC_ATTRIBUTES'
        : index
          ? 'ALL_PROJECTED_ATTRIBUTES'
          : 'ALL_ATTRIBUTES';
  const partitionKey = index ? table.indexPartitionKeys[index] : table.partitionKey;
  const leading =
    operation === 'Query' && partitionKey ? keyConditionValue(request, partitionKey) : undefined;
  return {
    action: `dynamodb:${operation}`,
    resource: index ? `${table.arn}/index/${index}` : table.arn,
    context: {
      'dynamodb:attributes': unique([...projection(request), ...conditionNames(request)]),
      'dynamodb:select': select,
      ...(leading === undefined ? {} : { 'dynamodb:leadingkeys': [leading] }),
      ...capacityContext(request),
    },
    table,
    access: 'read',
  };
}

/** The table a PartiQL statement names, and the action it takes. */
function partiqlCheck(
  statement: string,
  tableOf: (name: string) => TableInfo | undefined,
): DynamoDbCheck | string {
  const verb = /^\s*(select|insert|update|delete|exists)\b/i.exec(statement)?.[1]?.toLowerCase();
  const nameMatch =
    /\b(?:from|into|update)\s+"([^"]+)"/i.exec(statement) ??
    /\b(?:from|into|update)\s+([A-Za-z0-9_.-]+)/i.exec(statement);
  const name = nameMatch?.[1]?.split('.')[0];
  const table = name === undefined ? undefined : tableOf(name);
  if (!verb || !table) return `cannot tell the table of the PartiQL statement '${statement.slice(0, 80)}'`;
  const action =
    {
      select: 'PartiQLSelect',
      exists: 'PartiQLSelect',
      insert: 'PartiQLInsert',
      update: 'PartiQLUpdate',
      delete: 'PartiQLDelete',
    }[verb] ?? 'PartiQLSelect';
  return {
    action: `dynamodb:${action}`,
    resource: table.arn,
    context: {},
    table,
    access: verb === 'select' ? 'read' : 'write',
  };
}

export interface DynamoDbRequestScope {
  readonly region: string;
  readonly accountId: string;
  tableOf(name: string): TableInfo | undefined;
  /** The stream a shard iterator reads (GetRecords is authorized on that stream). */
  streamOfIterator(iterator: string): string | undefined;
}

/**
 * The checks of one request, or a problem naming why its checks cannot be told (an operation or a
 * PartiQL statement the gateway does not know: refused rather than let through unchecked). A table
 * the runtime does not know is checked by its ARN all the same (DynamoDB answers that it is not found).
 */
// long-function: a table, one case per DynamoDB operation and the checks IAM makes of it.
export function dynamoDbChecks(
  operation: string,
  request: Json,
  scope: DynamoDbRequestScope,
): DynamoDbCheck[] | string {
  const tableArn = (name: string) => `arn:aws:dynamodb:${scope.region}:${scope.accountId}:table/${name}`;
  const tableOf = (name: unknown): TableInfo => {
    const text = String(name);
    // A table named by ARN (DynamoDB accepts either) is its name after `table/`.
    const plain = text.startsWith('arn:') ? text.slice(text.indexOf(':table/') + ':table/'.length) : text;
    return (
      scope.tableOf(plain) ?? { name: plain, arn: tableArn(plain), partitionKey: '', indexPartitionKeys: {} }
    );
  };
  switch (operation) {
    case 'GetItem':
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return [itemCheck(operation, request, tableOf(request.TableName))];
    case 'Query':
    case 'Scan':
      return [readCheck(operation, request, tableOf(request.TableName))];
    case 'BatchGetItem':
      return Object.entries((request.RequestItems as Json | undefined) ?? {}).map(([name, entry]) => {
        const table = tableOf(name);
        const keys = Array.isArray((entry as Json).Keys) ? ((entry as Json).Keys as Json[]) : [];
        const leading = unique(
          keys.flatMap((key) => (leadingKeys(table, key)['dynamodb:leadingkeys'] as string[]) ?? []),
        );
        return {
          action: 'dynamodb:BatchGetItem',
          resource: table.arn,
          context: {
            'dynamodb:attributes': unique([
              ...keys.flatMap((key) => Object.keys(key)),
              ...projection(entry as Json),
            ]),
            'dynamodb:select':
              projection(entry as Json).length > 0 ? 'SPECIFIC_ATTRIBUTES' : 'ALL_ATTRIBUTES',
            'dynamodb:leadingkeys': leading,
            ...capacityContext(request),
          },
          table,
          access: 'read' as const,
        };
      });
    case 'BatchWriteItem':
      return Object.entries((request.RequestItems as Json | undefined) ?? {}).map(([name, writes]) => {
        const table = tableOf(name);
        const items = (Array.isArray(writes) ? writes : []).map(
          (write) =>
            ((write as Json).PutRequest as Json | undefined)?.Item ??
            ((write as Json).DeleteRequest as Json | undefined)?.Key,
        ) as Array<Json | undefined>;
        return {
          action: 'dynamodb:BatchWriteItem',
          resource: table.arn,
          context: {
            'dynamodb:attributes': unique(items.flatMap((item) => Object.keys(item ?? {}))),
            'dynamodb:leadingkeys': unique(
              items.flatMap((item) => (leadingKeys(table, item)['dynamodb:leadingkeys'] as string[]) ?? []),
            ),
            ...capacityContext(request),
          },
          table,
          access: 'write' as const,
        };
      });
    case 'TransactWriteItems':
    case 'TransactGetItems': {
      const items = Array.isArray(request.TransactItems) ? (request.TransactItems as Json[]) : [];
      const kinds: Readonly<Record<string, ItemOperation>> = {
        Put: 'PutItem',
        Update: 'UpdateItem',
        Delete: 'DeleteItem',
        ConditionCheck: 'ConditionCheckItem',
        Get: 'GetItem',
      };
      const checks: DynamoDbCheck[] = [];
      for (const item of items) {
        for (const [kind, body] of Object.entries(item)) {
          const itemOperation = kinds[kind];
          if (!itemOperation) return `unknown transaction item ${kind}`;
          const entry = body as Json;
          checks.push(itemCheck(itemOperation, entry, tableOf(entry.TableName), operation));
        }
      }
      return checks;
    }
    case 'ExecuteStatement':
    case 'ExecuteTransaction':
    case 'BatchExecuteStatement': {
      const statements =
        operation === 'ExecuteStatement'
          ? [request.Statement]
          : ((
              (operation === 'ExecuteTransaction' ? request.TransactStatements : request.Statements) as
                | Json[]
                | undefined
            )?.map((entry) => entry.Statement) ?? []);
      const checks: DynamoDbCheck[] = [];
      for (const statement of statements) {
        const check = partiqlCheck(String(statement ?? ''), (name) => scope.tableOf(name));
        if (typeof check === 'string') return check;
        checks.push(check);
      }
      return checks;
    }
    case 'ListTables':
    case 'ListStreams':
    case 'DescribeLimits':
    case 'DescribeEndpoints':
      return [{ action: `dynamodb:${operation}`, resource: '*', context: {} }];
    case 'DescribeStream':
    case 'GetShardIterator':
      return [{ action: `dynamodb:${operation}`, resource: String(request.StreamArn), context: {} }];
    case 'GetRecords': {
      const stream = scope.streamOfIterator(String(request.ShardIterator));
      if (!stream) return 'GetRecords with a shard iterator that names no stream';
      return [{ action: 'dynamodb:GetRecords', resource: stream, context: {}, access: 'read' }];
    }
    default:
      if (typeof request.TableName === 'string' || typeof request.ResourceArn === 'string') {
        const resource =
          typeof request.TableName === 'string'
            ? tableOf(request.TableName).arn
            : String(request.ResourceArn);
        return [{ action: `dynamodb:${operation}`, resource, context: {} }];
      }
      return `operation ${operation} is not one the local gateway can authorize`;
  }
}
