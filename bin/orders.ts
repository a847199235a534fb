#!/usr/bin/env node
/**
 * Reads the state store of a running local runtime (found through its target description), and
 * drives the operator routes (signed with SigV4: the local operator identity of target.json, or on
 * AWS, with --api <ApiUrl output>, the standard AWS credential chain).
 *
 *   npm run orders -- list [--state Error] [--workflow-version N] [--target FILE]
 *   npm run orders -- show ORDER_ID [--target FILE]
 *   npm run orders -- ops list [--state Error] [--limit N] [--cursor C]   [--target FILE | --api URL]
 *   npm run orders -- ops show ORDER_ID                                    [--target FILE | --api URL]
 *   npm run orders -- ops retry ORDER_ID --reason "..."                    [--target FILE | --api URL]
 *   npm run orders -- ops cancel ORDER_ID --reason "..."                   [--target FILE | --api URL]
 *   npm run orders -- metrics [--minutes N]                                [--target FILE | --aws]
 *
 * Without --target: $LOCAL_TARGET, else .local/target.json (lib/local-runtime/target.ts).
 */
import { resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import {
  METRICS_NAMESPACE,
  OperatorAction,
  OrderMetric,
  ProcessState,
  STEP_NAMES,
  StateAttr,
  StepAttr,
} from '../lambdas/scheduler-agent-supervisor/contracts';
import { metricsMinutes } from '../lib/harness/metrics-minutes';
import { awsEndpoint, type OperatorClient as Client, OperatorClient } from '../lib/harness/operator-client';
import { printMetricsReport } from '../lib/harness/print-metrics-report';
import { formatTable } from '../lib/harness/text-table';
import { defaultTargetFile, type LocalTarget, outputsOfStack, readTarget } from '../lib/local-runtime';
import { STACK_NAME } from '../lib/scheduler-agent-supervisor/stack';

// This machine's tools run on Node 20 while the deployed Lambdas run on nodejs22.x; the SDK's
// Node 20 end-of-support notice says nothing actionable here, so local tools silence it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const USAGE = [
  'Usage: npm run orders -- list [--state <ProcessState>] [--workflow-version N] | show <orderId>   [--target FILE]',
  '       npm run orders -- ops list [--state <ProcessState>] [--limit N] [--cursor C] | ops show <orderId>',
  '                             | ops retry <orderId> --reason "..." | ops cancel <orderId> --reason "..."',
  '                             [--target FILE | --api <ApiUrl output> (AWS: the standard credential chain)]',
  '       npm run orders -- metrics [--minutes N]   [--target FILE | --aws (the standard credential chain and region)]',
].join('\n');
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

/** Short marks of every StepStatus (an unknown one is shown as stored). */
const STEP_MARK: Readonly<Record<string, string>> = {
  NotStarted: '-',
  Running: 'running',
  Completed: 'done',
  TimedOut: 'timed-out?',
  Failed: 'failed',
  Compensating: 'undoing',
  Compensated: 'undone',
  CompensationFailed: 'undo-refused',
};

function stepSummary(item: Item): string {
  const steps = (item[StateAttr.Steps] ?? {}) as Record<string, Item>;
  const mark = STEP_MARK;
  // In the workflow's order, not the map's: the record stores steps as a map.
  const position = (name: string) => STEP_NAMES.indexOf(name as (typeof STEP_NAMES)[number]);
  return Object.entries(steps)
    .sort(([a], [b]) => position(a) - position(b))
    .map(([name, step]) => `${name}:${mark[String(step[StepAttr.Status])] ?? String(step[StepAttr.Status])}`)
    .join(' ');
}

async function scanAll(
  documents: DynamoDBDocumentClient,
  tableName: string,
  state?: string,
  workflowVersion?: number,
): Promise<Item[]> {
  const items: Item[] = [];
  let exclusiveStartKey: Item | undefined;
  const filters: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (state) {
    filters.push('#state = :state');
    names['#state'] = StateAttr.ProcessState;
    values[':state'] = state;
  }
  if (workflowVersion !== undefined) {
    filters.push('#version = :version');
    names['#version'] = StateAttr.WorkflowVersion;
    values[':version'] = workflowVersion;
  }
  do {
    const page = await documents.send(
      new ScanCommand({
        TableName: tableName,
        ExclusiveStartKey: exclusiveStartKey,
        ...(filters.length > 0 && {
          FilterExpression: filters.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      }),
    );
    items.push(...(page.Items ?? []));
    exclusiveStartKey = page.LastEvaluatedKey;
  } while (exclusiveStartKey);
  return items;
}

/** The operator client: on AWS with --api, else the local runtime's operator identity. */
function operatorClient(apiUrl: string | undefined, targetFile: string): Client {
  if (apiUrl !== undefined) return new OperatorClient(awsEndpoint(apiUrl));
  const target = readTarget(targetFile);
  const operator = target.identities?.operator;
  if (!operator) {
    throw new Error(`${targetFile} lists no operator identity: restart the local runtime (npm start)`);
  }
  const url = target.apis?.[STACK_NAME]?.url ?? outputsOfStack(target, STACK_NAME).outputs.ApiUrl;
  if (!url) throw new Error(`${targetFile} has no API of ${STACK_NAME}`);
  return new OperatorClient({
    apiUrl: url,
    region: target.region,
    credentials: { accessKeyId: operator.accessKeyId, secretAccessKey: operator.secretAccessKey },
  });
}

/** Prints an API answer that is not a success and sets the exit code. */
function failed(answer: { status: number; body: unknown }): boolean {
  if (answer.status >= 200 && answer.status < 300) return false;
  process.exitCode = 1;
  console.error(`HTTP ${answer.status}: ${JSON.stringify(answer.body, null, 2)}`);
  return true;
}

async function ops(argv: string[], targetFile: string, apiUrl: string | undefined): Promise<void> {
  const state = option(argv, '--state');
  const limit = option(argv, '--limit');
  const cursor = option(argv, '--cursor');
  const reason = option(argv, '--reason');
  const [command, orderId, ...rest] = argv;
  if (rest.length > 0) throw new Error(USAGE);
  const client = operatorClient(apiUrl, targetFile);
  if (command === 'list') {
    if (orderId !== undefined) throw new Error(USAGE);
    const answer = await client.list({
      state: state ?? ProcessState.Error,
      ...(limit !== undefined && { limit: Number(limit) }),
      ...(cursor !== undefined && { cursor }),
    });
    if (failed(answer)) return;
    const { items, nextCursor } = answer.body;
    if (items.length === 0) console.log(`No orders in state ${state ?? ProcessState.Error}.`);
    else {
      const header = ['ORDER', 'STATE', 'ATTEMPT', 'FAILURES', 'CLIENT', 'UPDATED'];
      const rows = items.map((row) => [
        row.orderId,
        row.processState,
        String(row.attempt),
        String(row.failureCount),
        row.clientId ?? '-',
        row.updatedAt,
      ]);
      console.log(formatTable([header, ...rows]));
    }
    if (nextCursor)
      console.log(
        `More: npm run orders -- ops list --state ${state ?? ProcessState.Error} --cursor ${nextCursor}`,
      );
    return;
  }
  if (!orderId) throw new Error(`ops ${command ?? ''} needs an order id. ${USAGE}`);
  if (command === 'show') {
    const answer = await client.show(orderId);
    if (!failed(answer)) console.log(JSON.stringify(answer.body, null, 2));
    return;
  }
  if (command !== OperatorAction.Retry && command !== OperatorAction.Cancel) throw new Error(USAGE);
  if (!reason) throw new Error(`ops ${command} needs --reason "why" (it is recorded with who did it)`);
  // The action is conditional on what the operator saw: read the order, then send that.
  const seen = await client.show(orderId);
  if (failed(seen)) return;
  const answer = await client.act(command, orderId, {
    reason,
    expectedState: seen.body.processState,
    expectedUpdatedAt: seen.body.updatedAt,
  });
  if (failed(answer)) return;
  console.log(
    `${command}: ${orderId} ${seen.body.processState} -> ${answer.body.processState} at ${answer.body.updatedAt}`,
  );
}

/** This wing's metrics (the metric contract's names) and its stack's alarms (`<stack>-…`), locally or on AWS. */
async function metrics(argv: string[], targetFile: string): Promise<void> {
  const onAws = argv.includes('--aws');
  const rest = argv.filter((argument) => argument !== '--aws');
  const minutes = metricsMinutes(option(rest, '--minutes'));
  if (rest.length > 0) throw new Error(`metrics does not take ${rest.join(' ')}. ${USAGE}`);
  await printMetricsReport(
    { targetFile, onAws },
    { namespace: METRICS_NAMESPACE, metricNames: Object.values(OrderMetric), minutes, stackName: STACK_NAME },
  );
}

async function main(argv: string[]): Promise<void> {
  const targetFile = resolve(
    option(argv, '--target') ??
      defaultTargetFile(process.env, { cwd: process.cwd(), projectRoot: resolve(__dirname, '..') }),
  );
  if (argv[0] === 'metrics') {
    await metrics(argv.slice(1), targetFile);
    return;
  }
  if (argv[0] === 'ops') {
    const apiUrl = option(argv, '--api');
    await ops(argv.slice(1), targetFile, apiUrl);
    return;
  }
  const state = option(argv, '--state');
  const versionText = option(argv, '--workflow-version');
  const workflowVersion = versionText === undefined ? undefined : Number(versionText);
  if (versionText !== undefined && !/^[1-9][0-9]*$/.test(versionText)) {
    throw new Error(`--workflow-version must be a positive integer; got '${versionText}'`);
  }
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
      const items = (await scanAll(documents, stateTable, state, workflowVersion)).sort((left, right) =>
        String(left[StateAttr.CreatedAt]).localeCompare(String(right[StateAttr.CreatedAt])),
      );
      if (items.length === 0) {
        console.log(state ? `No orders in state ${state}.` : 'No orders.');
        return;
      }
      const header = ['ORDER', 'STATE', 'VERSION', 'ATTEMPT', 'FAILURES', 'STEPS', 'UPDATED'];
      const rows = items.map((item) => [
        String(item[StateAttr.OrderId]),
        String(item[StateAttr.ProcessState]),
        String(item[StateAttr.WorkflowVersion] ?? '?'),
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
