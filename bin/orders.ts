#!/usr/bin/env node
/**
 * Reads the state store of a running local runtime (found through its target description).
 *
 *   npm run orders -- list [--state Error] [--target FILE]
 *   npm run orders -- show ORDER_ID [--target FILE]
 */
import { resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ProcessState, StateAttr, StepAttr } from '../lambdas/scheduler-agent-supervisor/contracts';
import { DEFAULT_TARGET_FILE, type LocalTarget, readTarget } from '../lib/local-runtime';
import { formatTable } from './text-table';

// This machine's tools run on Node 20 while the deployed Lambdas run on nodejs22.x; the SDK's
// Node 20 end-of-support notice says nothing actionable here, so local tools silence it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const USAGE = 'Usage: npm run orders -- list [--state <ProcessState>] | show <orderId>   [--target FILE]';
const STATES: readonly string[] = Object.values(ProcessState);

type Item = Record<string, unknown>;

function option(argv: string[], flag: string): string | undefined {
  const index = argv.indexOf(flag);
  if (index < 0) return undefined;
  const value = argv[index + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`${flag} needs a value. ${USAGE}`);
  argv.splice(index, 2);
  return value;
}

function requireOutput(target: LocalTarget, key: string): string {
  const value = target.outputs[key];
  if (!value) throw new Error(`The local target has no ${key} output (is this the order-processing app?)`);
  return value;
}

function stepSummary(item: Item): string {
  const steps = (item[StateAttr.Steps] ?? {}) as Record<string, Item>;
  const mark: Record<string, string> = { Completed: 'done', Running: 'running', NotStarted: '-' };
  return Object.entries(steps)
    .map(([name, step]) => `${name}:${mark[String(step[StepAttr.Status])] ?? String(step[StepAttr.Status])}`)
    .join(' ');
}

async function scanAll(
  documents: DynamoDBDocumentClient,
  tableName: string,
  state?: string,
): Promise<Item[]> {
  const items: Item[] = [];
  let exclusiveStartKey: Item | undefined;
  do {
    const page = await documents.send(
      new ScanCommand({
        TableName: tableName,
        ExclusiveStartKey: exclusiveStartKey,
        ...(state
          ? {
              FilterExpression: '#state = :state',
              ExpressionAttributeNames: { '#state': StateAttr.ProcessState },
              ExpressionAttributeValues: { ':state': state },
            }
          : {}),
      }),
    );
    items.push(...(page.Items ?? []));
    exclusiveStartKey = page.LastEvaluatedKey;
  } while (exclusiveStartKey);
  return items;
}

async function main(argv: string[]): Promise<void> {
  const targetFile = resolve(option(argv, '--target') ?? resolve(__dirname, '..', DEFAULT_TARGET_FILE));
  const state = option(argv, '--state');
  const [command, orderId, ...rest] = argv;
  if (rest.length > 0 || (command !== 'list' && command !== 'show')) throw new Error(USAGE);
  if (state !== undefined && !STATES.includes(state)) {
    throw new Error(`--state must be one of ${STATES.join(', ')}; got '${state}'`);
  }
  const target = readTarget(targetFile);
  const client = new DynamoDBClient({
    region: target.region,
    endpoint: target.endpoints.dynamodb,
    credentials: { ...target.credentials },
  });
  const documents = DynamoDBDocumentClient.from(client);
  const stateTable = requireOutput(target, 'StateTableName');
  try {
    if (command === 'list') {
      if (orderId !== undefined) throw new Error(USAGE);
      const items = (await scanAll(documents, stateTable, state)).sort((left, right) =>
        String(left[StateAttr.CreatedAt]).localeCompare(String(right[StateAttr.CreatedAt])),
      );
      if (items.length === 0) {
        console.log(state ? `No orders in state ${state}.` : 'No orders.');
        return;
      }
      const header = ['ORDER', 'STATE', 'ATTEMPT', 'FAILURES', 'STEPS', 'UPDATED'];
      const rows = items.map((item) => [
        String(item[StateAttr.OrderId]),
        String(item[StateAttr.ProcessState]),
        String(item[StateAttr.Attempt] ?? 0),
        String(item[StateAttr.FailureCount] ?? 0),
        stepSummary(item),
        String(item[StateAttr.UpdatedAt] ?? ''),
      ]);
      console.log(formatTable([header, ...rows]));
      console.log(`${items.length} order(s)`);
      return;
    }
    if (!orderId) throw new Error(`show needs an order id. ${USAGE}`);
    const { Item: record } = await documents.send(
      new GetCommand({ TableName: stateTable, Key: { [StateAttr.OrderId]: orderId }, ConsistentRead: true }),
    );
    if (!record) {
      process.exitCode = 1;
      console.error(`Order ${orderId} not found in ${stateTable}.`);
      return;
    }
    const ordersTable = target.outputs.OrdersTableName;
    const order = ordersTable
      ? (
          await documents.send(
            new GetCommand({ TableName: ordersTable, Key: { OrderID: orderId }, ConsistentRead: true }),
          )
        ).Item
      : undefined;
    console.log(JSON.stringify({ state: record, order: order ?? null }, null, 2));
  } finally {
    client.destroy();
  }
}

main(process.argv.slice(2)).catch((error: Error) => {
  console.error(error.message);
  process.exit(2);
});
