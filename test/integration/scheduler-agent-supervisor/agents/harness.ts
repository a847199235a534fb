/**
 * Shared wiring of the agent integration tests: DynamoDB Local (idempotency table + ledger), the remote
 * service handler served over HTTP as a function URL, and a scripted Step Functions endpoint for
 * the task callbacks. Handlers are loaded after the environment is set, the way Lambda loads them.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { readLedger } from '../../../../lambdas/fakes/adapters/ledger';
import { FakesEnvKey, LedgerAttr } from '../../../../lambdas/fakes/contracts';
import {
  type AgentRequest,
  EnvKey,
  operationKey,
  STATE_SCHEMA_VERSION,
  StateAttr,
  StepAttr,
  StepStatus,
  stepDefinition,
  type WorkflowTimings,
} from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import { PowertoolsEnvKey } from '../../../../lambdas/shared/env';
import { IDEMPOTENCY_TABLE_KEY } from '../../../../lambdas/shared/idempotency';
import { loadConfig } from '../../../../lib/scheduler-agent-supervisor/config';
import {
  type AwsJsonEndpoint,
  type RecordedCall,
  startAwsJsonEndpoint,
} from '../../../support/aws-json-endpoint';
import {
  dynamoClient,
  type RunningEmulator,
  startDynamoDbLocal,
  useEmulatorEndpoints,
} from '../../../support/emulators';
import {
  type FunctionUrlServer,
  type FunctionUrlServerOptions,
  fakeLambdaContext,
  startFunctionUrlServer,
} from '../../../support/function-url-server';

export const IDEMPOTENCY_TABLE = 'agent-idempotency';
export const LEDGER_TABLE = 'remote-ledger';
/** The state store, as far as agents use it: each order's record holds its retry budget and calls. */
export const STATE_TABLE = 'agent-state';
/** The deployment's retry budget in these tests (RETRY_BUDGET): what a schema-2 record is held to. */
export const TEST_RETRY_BUDGET = loadConfig('local').retryBudget.callsPerOperation;

/** The client `invoke` seeds state records with (set by startAgentHarness). */
let seedClient: DynamoDBClient | undefined;

/** Local-profile timings with a short back-off so retry tests stay fast. */
export const TEST_TIMINGS: WorkflowTimings = {
  ...loadConfig('local').timings,
  agentBackoffBaseMillis: 20,
  agentBackoffCapMillis: 100,
};

export type AgentHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export interface AgentHarness {
  readonly dynamo: DynamoDBClient;
  readonly sfn: AwsJsonEndpoint;
  readonly remote: FunctionUrlServer;
  readonly logs: CapturedStdout;
  /** Loads a fresh copy of the agent handler module for the given environment. */
  loadAgent(env: { step: string; auth: 'iam' | 'none'; endpointUrl?: string }): Promise<AgentHandler>;
  stop(): Promise<void>;
}

export async function startAgentHarness(options: {
  readonly stallMillis: number;
  /** How long a SLOW order's calls are held. @default 300 */
  readonly slowMillis?: number;
  readonly server?: FunctionUrlServerOptions;
}): Promise<AgentHarness> {
  const logs = captureStdout();
  const dynamoDbLocal: RunningEmulator = await startDynamoDbLocal();
  const sfn = await startAwsJsonEndpoint();
  const dynamo = dynamoClient(dynamoDbLocal.endpoint);
  await createTables(dynamo);
  seedClient = dynamo;
  useEmulatorEndpoints({ dynamodb: dynamoDbLocal.endpoint, sfn: sfn.endpoint });
  Object.assign(process.env, {
    [FakesEnvKey.LedgerTableName]: LEDGER_TABLE,
    [FakesEnvKey.StallMillis]: String(options.stallMillis),
    [FakesEnvKey.SlowMillis]: String(options.slowMillis ?? 300),
    [EnvKey.IdempotencyTableName]: IDEMPOTENCY_TABLE,
    [EnvKey.WorkflowTimings]: JSON.stringify(TEST_TIMINGS),
    [EnvKey.StateTableName]: STATE_TABLE,
    [EnvKey.RetryBudget]: String(TEST_RETRY_BUDGET),
    [PowertoolsEnvKey.ServiceName]: 'agents-integration-test',
    [PowertoolsEnvKey.MetricsNamespace]: 'OrderProcessingTest',
    [PowertoolsEnvKey.TraceEnabled]: 'false',
  });
  const remoteService = await import('../../../../lambdas/fakes/handlers/remote-service');
  const remote = await startFunctionUrlServer(remoteService.handler, {
    functionName: 'remote-service',
    ...options.server,
  });
  return {
    dynamo,
    sfn,
    remote,
    logs,
    async loadAgent({ step, auth, endpointUrl }) {
      process.env[EnvKey.StepName] = step;
      process.env[EnvKey.RemoteAuth] = auth;
      process.env[EnvKey.RemoteEndpointUrl] = endpointUrl ?? remote.url;
      let handler: AgentHandler | undefined;
      await jest.isolateModulesAsync(async () => {
        handler = (await import('../../../../lambdas/scheduler-agent-supervisor/handlers/agent')).handler;
      });
      if (!handler) throw new Error('agent handler did not load');
      return handler;
    },
    async stop() {
      await remote.settled();
      await Promise.all([remote.stop(), sfn.stop(), dynamoDbLocal.stop()]);
      logs.restore();
    },
  };
}

async function createTables(dynamo: DynamoDBClient): Promise<void> {
  for (const [TableName, key] of [
    [IDEMPOTENCY_TABLE, IDEMPOTENCY_TABLE_KEY],
    [LEDGER_TABLE, LedgerAttr.Pk],
    [STATE_TABLE, StateAttr.OrderId],
  ] as const) {
    await dynamo.send(
      new CreateTableCommand({
        TableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: key, AttributeType: 'S' }],
        KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
      }),
    );
  }
}

/** A valid AgentRequest for the payment step of a fresh order (unique keys per test). */
export function agentRequest(overrides: Partial<AgentRequest> & { skus?: string[] } = {}): AgentRequest {
  const { skus = ['BOOK'], ...rest } = overrides;
  const orderId = rest.orderId ?? `order-${randomUUID().slice(0, 8)}`;
  const step = rest.step ?? 'ChargePayment';
  return {
    taskToken: `token-${randomUUID()}`,
    orderId,
    step,
    action: 'perform',
    operation: step,
    instanceId: `${orderId}--attempt-1`,
    attempt: 1,
    idempotencyKey: `${orderId}:${step}`,
    deadlineEpochMillis: Date.now() + 20_000,
    taskEnteredAt: new Date().toISOString(),
    taskTimeoutSeconds: 30,
    heartbeatSeconds: 10,
    maxCallAttempts: 4,
    order: {
      customerId: 'customer-1',
      items: skus.map((sku) => ({ sku, quantity: 1 })),
      totalCents: 1999,
      currency: 'EUR',
    },
    correlationId: `corr-${orderId}`,
    ...rest,
  };
}

/**
 * The compensation of a perform request's step for the same order, as the state machine sends it:
 * the compensation's operation and key, undoing the step's key, under a new task token.
 */
export function compensationRequest(
  performed: AgentRequest,
  overrides: Partial<AgentRequest> = {},
): AgentRequest {
  const { compensation } = stepDefinition(performed.step);
  return {
    ...performed,
    taskToken: `token-${randomUUID()}`,
    action: 'compensate',
    operation: compensation.name,
    undoes: operationKey(performed.orderId, performed.step),
    idempotencyKey: operationKey(performed.orderId, compensation.name),
    deadlineEpochMillis: Date.now() + 20_000,
    taskEnteredAt: new Date().toISOString(),
    ...overrides,
  };
}

/** An SQS event as Lambda's event source mapping delivers it. */
export function sqsEvent(bodies: readonly (AgentRequest | string)[]): SQSEvent {
  return {
    Records: bodies.map((body): SQSRecord => {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      const now = String(Date.now());
      return {
        messageId: randomUUID(),
        receiptHandle: `receipt-${randomUUID()}`,
        body: text,
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: now,
          SenderId: 'states.amazonaws.com',
          ApproximateFirstReceiveTimestamp: now,
        },
        messageAttributes: {},
        md5OfBody: createHash('md5').update(text).digest('hex'),
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:agent-requests',
        awsRegion: 'us-east-1',
      };
    }),
  };
}

/**
 * Delivers the event to the agent. Every order a request names gets its state record first (unless
 * it has one), as the submission would have created it: schema 3, RetryBudget TEST_RETRY_BUDGET,
 * CallsMade empty. A test that needs another record seeds it with seedStateRecord beforehand.
 */
export async function invoke(handler: AgentHandler, event: SQSEvent): Promise<SQSBatchResponse> {
  for (const record of event.Records) {
    let orderId: unknown;
    try {
      orderId = (JSON.parse(record.body) as { orderId?: unknown }).orderId;
    } catch {
      continue;
    }
    if (typeof orderId === 'string') await seedStateRecord(orderId, {});
  }
  return handler(event, fakeLambdaContext('agent', 60_000));
}

/**
 * Puts the budget-relevant part of an order's state record unless it exists. `schema: 2` seeds a
 * record from before the budget (no RetryBudget, and CallsMade only when `callsMade` is given).
 */
export async function seedStateRecord(
  orderId: string,
  options: {
    readonly schema?: 2 | 3;
    readonly retryBudget?: number;
    readonly callsMade?: Readonly<Record<string, number>>;
    readonly lockedBy?: string;
    /** The record's Steps, each NotStarted, as the submission creates them. @default - no Steps */
    readonly steps?: readonly string[];
  },
): Promise<void> {
  if (!seedClient) throw new Error('startAgentHarness first');
  const schema = options.schema ?? STATE_SCHEMA_VERSION;
  const callsMade = options.callsMade ?? (schema === 2 ? undefined : {});
  try {
    await seedClient.send(
      new PutItemCommand({
        TableName: STATE_TABLE,
        Item: {
          [StateAttr.OrderId]: { S: orderId },
          [StateAttr.SchemaVersion]: { N: String(schema) },
          [StateAttr.ProcessState]: { S: 'Processing' },
          ...(options.lockedBy !== undefined && { [StateAttr.LockedBy]: { S: options.lockedBy } }),
          ...(options.steps !== undefined && {
            [StateAttr.Steps]: {
              M: Object.fromEntries(
                options.steps.map((step) => [
                  step,
                  { M: { [StepAttr.Status]: { S: StepStatus.NotStarted } } },
                ]),
              ),
            },
          }),
          ...(schema !== 2 && {
            [StateAttr.RetryBudget]: { N: String(options.retryBudget ?? TEST_RETRY_BUDGET) },
          }),
          ...(callsMade !== undefined && {
            [StateAttr.CallsMade]: {
              M: Object.fromEntries(Object.entries(callsMade).map(([op, n]) => [op, { N: String(n) }])),
            },
          }),
        },
        ConditionExpression: 'attribute_not_exists(#id)',
        ExpressionAttributeNames: { '#id': StateAttr.OrderId },
      }),
    );
  } catch (error) {
    if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
  }
}

/** An order's state record as stored (a consistent read; undefined when there is none). */
export async function stateRecordItem(dynamo: DynamoDBClient, orderId: string) {
  const got = await dynamo.send(
    new GetItemCommand({
      TableName: STATE_TABLE,
      Key: { [StateAttr.OrderId]: { S: orderId } },
      ConsistentRead: true,
    }),
  );
  return got.Item;
}

/** An order's CallsMade as stored (undefined when the record has none). */
export async function callsMade(
  dynamo: DynamoDBClient,
  orderId: string,
): Promise<Record<string, number> | undefined> {
  const map = (await stateRecordItem(dynamo, orderId))?.[StateAttr.CallsMade]?.M;
  return map === undefined
    ? undefined
    : Object.fromEntries(Object.entries(map).map(([op, value]) => [op, Number(value.N)]));
}

/** Callback calls the scheduler received for one task token. */
/** The answers (SendTaskSuccess / SendTaskFailure) a task token received, heartbeats left out. */
export function callbacksFor(sfn: AwsJsonEndpoint, taskToken: string): RecordedCall[] {
  return sfnCallsFor(sfn, taskToken).filter((call) => call.operation !== 'SendTaskHeartbeat');
}

/** Every Step Functions call made for a task token, heartbeats included, in order. */
export function sfnCallsFor(sfn: AwsJsonEndpoint, taskToken: string): RecordedCall[] {
  return sfn.calls.filter((call) => call.body.taskToken === taskToken);
}

export function remoteRequestsFor(remote: FunctionUrlServer, idempotencyKey: string) {
  return remote.requests.filter((request) => request.headers['idempotency-key'] === idempotencyKey);
}

/** The effect the ledger holds for a service and key (undefined when none). */
export async function ledgerEffect(
  dynamo: DynamoDBClient,
  service: string,
  idempotencyKey: string,
): Promise<string | undefined> {
  const got = await dynamo.send(
    new GetItemCommand({
      TableName: LEDGER_TABLE,
      Key: { [LedgerAttr.Pk]: { S: `${service}#${idempotencyKey}` } },
      ConsistentRead: true,
    }),
  );
  return got.Item?.[LedgerAttr.Result]?.M?.confirmationId?.S;
}

/** Every ledger item that records an effect for this key, on any service (closed keys and undos are none). */
export async function ledgerEffectsFor(dynamo: DynamoDBClient, idempotencyKey: string): Promise<number> {
  const { effects } = await readLedger(dynamo, LEDGER_TABLE);
  return effects.filter((effect) => effect.idempotencyKey === idempotencyKey).length;
}

export interface CapturedStdout {
  /** Structured lines (Powertools logs and EMF metrics) written since `mark`. */
  since(mark: number): Record<string, unknown>[];
  mark(): number;
  restore(): void;
}

/**
 * Captures process.stdout and process.stderr, where Powertools writes JSON logs (warn and error go
 * to stderr) and EMF metrics on Lambda, so tests can check what operators would see (and the test
 * output stays readable).
 */
export function captureStdout(): CapturedStdout {
  const lines: string[] = [];
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((stream) => stream.write);
  for (const stream of streams) {
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    }) as typeof stream.write;
  }
  return {
    mark: () => lines.length,
    since: (mark) =>
      lines.slice(mark).flatMap((line) => {
        try {
          return [JSON.parse(line) as Record<string, unknown>];
        } catch {
          return [];
        }
      }),
    restore: () => {
      streams.forEach((stream, i) => {
        const original = originals[i];
        if (original) stream.write = original;
      });
    },
  };
}

/** Sum of an EMF metric over the given lines. */
export function metricSum(lines: Record<string, unknown>[], name: string): number {
  let sum = 0;
  for (const line of lines) {
    if (!('_aws' in line) || !(name in line)) continue;
    const value = line[name];
    sum += Array.isArray(value) ? value.reduce((a: number, b: number) => a + b, 0) : Number(value);
  }
  return sum;
}

export function logMessages(lines: Record<string, unknown>[]): string[] {
  return lines.filter((line) => typeof line.message === 'string').map((line) => line.message as string);
}
