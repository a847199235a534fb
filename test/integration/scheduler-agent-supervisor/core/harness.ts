/**
 * Integration harness for the order handlers: real DynamoDB Local and the runtime's SQS service, the real AWS SDK,
 * AWS-JSON endpoint doubles for Step Functions and EventBridge, and the real handler modules loaded
 * fresh (after their environment is set) for each configuration under test.
 */
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, GetItemCommand } from '@aws-sdk/client-dynamodb';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type {
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  Context,
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
  EventBridgeEvent,
  SQSBatchResponse,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';
import { stateRecordToItem } from '../../../../lambdas/scheduler-agent-supervisor/adapters/state-record-item';
import {
  ADMISSION_INDEX,
  AdmissionCounterAttr,
  type AdmissionSettings,
  ALERT_OUTBOX_INDEX,
  AlertArchiveAttr,
  DUE_INDEX,
  EnvKey,
  OrderAttr,
  STATE_INDEX,
  StateAttr,
  type WorkflowTimings,
} from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import type { ReconcileSummary } from '../../../../lambdas/scheduler-agent-supervisor/domain/admission';
import type { StateRecord } from '../../../../lambdas/scheduler-agent-supervisor/domain/state-record';
import type { SupervisorRunSummary } from '../../../../lambdas/scheduler-agent-supervisor/domain/supervisor';
import { PowertoolsEnvKey } from '../../../../lambdas/shared/env';
import {
  type AwsJsonEndpoint,
  type Responder,
  startAwsJsonEndpoint,
} from '../../../support/aws-json-endpoint';
import {
  dynamoClient,
  type RunningEmulator,
  sqsClient,
  startDynamoDbLocal,
  startLocalSqs,
  TEST_REGION,
  tableStreamRecords,
  useEmulatorEndpoints,
} from '../../../support/emulators';

/** Valid timings with short windows; tests override what they exercise. */
/** The deployment's retry budget in these tests (RETRY_BUDGET): what each new record is written with. */
export const TEST_RETRY_BUDGET = 36;

export const BASE_TIMINGS: WorkflowTimings = {
  stepTimeoutSeconds: 6,
  stepHeartbeatSeconds: 3,
  stepDeadlineSlackSeconds: 2,
  startGraceSeconds: 1,
  maxFailures: 3,
  maxCompensationFailures: 3,
  retryBackoffSeconds: 0,
  extendedBackoffAfter: 2,
  extendedBackoffSeconds: 3,
  agentMaxCallAttempts: 4,
  agentBackoffBaseMillis: 50,
  agentBackoffCapMillis: 500,
  supervisorRateSeconds: 60,
  supervisorSweepsPerRun: 1,
  supervisorPageSize: 50,
  supervisorBudgetSeconds: 20,
};

/** Admission settings of the tests that do not exercise the limit: far more slots than they use. */
export const ADMISSION: AdmissionSettings = { limit: 1000, shards: 4, reconcileGraceSeconds: 60 };

export interface ObservedCall {
  readonly operation: string;
  readonly body: Record<string, unknown>;
}

/** A DynamoDB error to answer with instead of forwarding, e.g. ResourceNotFoundException. */
export interface InjectedError {
  readonly errorType: string;
  readonly message: string;
}

export type ForwardHook = (
  call: ObservedCall,
) => Promise<InjectedError | undefined> | InjectedError | undefined;

/**
 * A pass-through HTTP proxy in front of DynamoDB Local that records every DynamoDB operation the code
 * under test sends, and can pause a request (a hook) to force an interleaving deterministically.
 */
export interface RecordingProxy {
  readonly endpoint: string;
  readonly calls: ObservedCall[];
  callsTo(operation: string): ObservedCall[];
  /**
   * Runs before each request is forwarded; the request waits for it. A returned reply is sent
   * instead of forwarding (to inject a DynamoDB error). Reset with `undefined`.
   */
  beforeForward(hook: ForwardHook | undefined): void;
  stop(): Promise<void>;
}

async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const targetUrl = new URL(target);
  const calls: ObservedCall[] = [];
  let hook: ForwardHook | undefined;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks);
      const targetHeader = String(req.headers['x-amz-target'] ?? '');
      const call: ObservedCall = {
        operation: targetHeader.slice(targetHeader.lastIndexOf('.') + 1),
        body: raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {},
      };
      calls.push(call);
      let injected: InjectedError | undefined;
      try {
        injected = await hook?.(call);
      } catch {
        // A failing hook must not hang the request; the test's own assertions report the problem.
      }
      if (injected) {
        res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(
          JSON.stringify({
            __type: `com.amazonaws.dynamodb.v20120810#${injected.errorType}`,
            message: injected.message,
          }),
        );
        return;
      }
      const forward = httpRequest(
        {
          host: targetUrl.hostname,
          port: targetUrl.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (upstream) => {
          res.writeHead(upstream.statusCode ?? 500, upstream.headers);
          upstream.pipe(res);
        },
      );
      forward.on('error', (error) => {
        res.writeHead(502);
        res.end(String(error));
      });
      forward.end(raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    callsTo: (operation) => calls.filter((call) => call.operation === operation),
    beforeForward: (next) => {
      hook = next;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface CoreWorld {
  readonly dynamo: RecordingProxy;
  readonly sqsEndpoint: string;
  readonly sfn: AwsJsonEndpoint;
  readonly events: AwsJsonEndpoint;
  /** The test's own clients, straight to the emulators (not through the recording proxy). */
  readonly doc: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  stop(): Promise<void>;
}

/**
 * This test file's world, started before its tests and stopped after them (one beforeAll and one
 * afterAll hook). The object is filled in by that beforeAll: read it inside hooks and tests only, as
 * a `let` the hook had set.
 */
export function useCoreWorld(): CoreWorld {
  const world = {} as CoreWorld;
  beforeAll(async () => {
    Object.assign(world, await startCoreWorld());
  });
  afterAll(async () => {
    await world.stop();
  });
  return world;
}

/** Starts the emulators and points every SDK client the handlers create at them. */
async function startCoreWorld(): Promise<CoreWorld> {
  const [dynamoDbLocal, localSqs, sfn, events] = await Promise.all([
    startDynamoDbLocal(),
    startLocalSqs(),
    startAwsJsonEndpoint(),
    startAwsJsonEndpoint(),
  ]);
  const dynamo = await startRecordingProxy(dynamoDbLocal.endpoint);
  useEmulatorEndpoints({
    dynamodb: dynamo.endpoint,
    sqs: localSqs.endpoint,
    sfn: sfn.endpoint,
    events: events.endpoint,
  });
  // Handlers log and emit metrics through Powertools; tests read outcomes from the stores instead.
  process.env.POWERTOOLS_LOG_LEVEL = process.env.CORE_TEST_LOG_LEVEL ?? 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  const emulators: RunningEmulator[] = [dynamoDbLocal, localSqs];
  return {
    dynamo,
    sqsEndpoint: localSqs.endpoint,
    sfn,
    events,
    doc: DynamoDBDocumentClient.from(dynamoClient(dynamoDbLocal.endpoint)),
    sqs: sqsClient(localSqs.endpoint),
    stop: async () => {
      await dynamo.stop();
      await Promise.all([...emulators.map((emulator) => emulator.stop()), sfn.stop(), events.stop()]);
    },
  };
}

export interface CoreResources {
  readonly stateTable: string;
  readonly ordersTable: string;
  readonly admissionTable: string;
  readonly startQueueUrl: string;
  readonly conflictQueueUrl: string;
  readonly busName: string;
  readonly stateMachineArn: string;
}

let resourceCounter = 0;

/** Fresh tables and queues (same key schema as the contracts), so each test starts empty. */
export async function createResources(
  world: CoreWorld,
  options: {
    /** Give the state table its stream (NEW_AND_OLD_IMAGES), as the stack does. @default false */
    stateStream?: boolean;
  } = {},
): Promise<CoreResources> {
  resourceCounter += 1;
  const suffix = `${resourceCounter}-${randomUUID().slice(0, 8)}`;
  const stateTable = `state-${suffix}`;
  const ordersTable = `orders-${suffix}`;
  const admissionTable = `admission-${suffix}`;
  const client = world.doc;
  await client.send(
    new CreateTableCommand({
      TableName: stateTable,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: StateAttr.OrderId, AttributeType: 'S' },
        { AttributeName: DUE_INDEX.partitionKey, AttributeType: 'S' },
        { AttributeName: DUE_INDEX.sortKey, AttributeType: 'N' },
        { AttributeName: ADMISSION_INDEX.partitionKey, AttributeType: 'S' },
        { AttributeName: ADMISSION_INDEX.sortKey, AttributeType: 'S' },
        { AttributeName: STATE_INDEX.partitionKey, AttributeType: 'S' },
        { AttributeName: ALERT_OUTBOX_INDEX.partitionKey, AttributeType: 'S' },
        { AttributeName: ALERT_OUTBOX_INDEX.sortKey, AttributeType: 'S' },
      ],
      KeySchema: [{ AttributeName: StateAttr.OrderId, KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [
        {
          IndexName: DUE_INDEX.name,
          KeySchema: [
            { AttributeName: DUE_INDEX.partitionKey, KeyType: 'HASH' },
            { AttributeName: DUE_INDEX.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
        {
          IndexName: ADMISSION_INDEX.name,
          KeySchema: [
            { AttributeName: ADMISSION_INDEX.partitionKey, KeyType: 'HASH' },
            { AttributeName: ADMISSION_INDEX.sortKey, KeyType: 'RANGE' },
          ],
          Projection: {
            ProjectionType: 'INCLUDE',
            NonKeyAttributes: [...ADMISSION_INDEX.projectedAttributes],
          },
        },
        {
          // The operators' index (the supervisor's gauges read it); its sort key is
          // ADMISSION_INDEX's too (UpdatedAt), defined once above.
          IndexName: STATE_INDEX.name,
          KeySchema: [
            { AttributeName: STATE_INDEX.partitionKey, KeyType: 'HASH' },
            { AttributeName: STATE_INDEX.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...STATE_INDEX.projectedAttributes] },
        },
        {
          IndexName: ALERT_OUTBOX_INDEX.name,
          KeySchema: [
            { AttributeName: ALERT_OUTBOX_INDEX.partitionKey, KeyType: 'HASH' },
            { AttributeName: ALERT_OUTBOX_INDEX.sortKey, KeyType: 'RANGE' },
          ],
          Projection: {
            ProjectionType: 'INCLUDE',
            NonKeyAttributes: [...ALERT_OUTBOX_INDEX.projectedAttributes],
          },
        },
      ],
      ...(options.stateStream && {
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      }),
    }),
  );
  await client.send(
    new CreateTableCommand({
      TableName: admissionTable,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: AdmissionCounterAttr.Pk, AttributeType: 'S' }],
      KeySchema: [{ AttributeName: AdmissionCounterAttr.Pk, KeyType: 'HASH' }],
    }),
  );
  await client.send(
    new CreateTableCommand({
      TableName: ordersTable,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: OrderAttr.OrderId, AttributeType: 'S' }],
      KeySchema: [{ AttributeName: OrderAttr.OrderId, KeyType: 'HASH' }],
    }),
  );
  const [start, conflict] = await Promise.all([
    world.sqs.send(new CreateQueueCommand({ QueueName: `start-${suffix}` })),
    world.sqs.send(new CreateQueueCommand({ QueueName: `conflict-${suffix}` })),
  ]);
  if (!start.QueueUrl || !conflict.QueueUrl) {
    throw new Error('the SQS service returned no queue URL');
  }
  return {
    stateTable,
    ordersTable,
    admissionTable,
    startQueueUrl: start.QueueUrl,
    conflictQueueUrl: conflict.QueueUrl,
    busName: `alerts-${suffix}`,
    stateMachineArn: `arn:aws:states:${TEST_REGION}:000000000000:stateMachine:scheduler-${suffix}`,
  };
}

/** A fresh alert archive table (the alert-archiver's, keyed as the stack keys it): its name. */
export async function createAlertArchiveTable(world: CoreWorld): Promise<string> {
  const tableName = `alert-archive-${randomUUID().slice(0, 8)}`;
  await world.doc.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: AlertArchiveAttr.OrderId, AttributeType: 'S' },
        { AttributeName: AlertArchiveAttr.AlertKey, AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: AlertArchiveAttr.OrderId, KeyType: 'HASH' },
        { AttributeName: AlertArchiveAttr.AlertKey, KeyType: 'RANGE' },
      ],
    }),
  );
  return tableName;
}

/** A queue URL on the emulator that does not exist: sending to it fails like an unavailable queue. */
export function missingQueueUrl(world: CoreWorld): string {
  return `${world.sqsEndpoint}/000000000000/missing-${randomUUID().slice(0, 8)}`;
}

export interface HandlerSettings {
  readonly timings?: Partial<WorkflowTimings>;
  readonly dueShardCount?: number;
  /** @default ADMISSION — room for every test that does not exercise the limit */
  readonly admission?: Partial<AdmissionSettings>;
  readonly env?: Partial<Record<EnvKey, string>>;
}

/** The clients the handlers know in these tests (two, so ownership can be tested). */
export const TEST_CLIENTS = {
  first: { clientId: 'web-shop', apiKeyId: 'key-web-shop' },
  second: { clientId: 'call-center', apiKeyId: 'key-call-center' },
} as const;

/** EnvKey.ClientRegistry of the test clients, their reply queues on `sqsEndpoint` (not created). */
export function testClientRegistry(replyQueueUrls: Partial<Record<string, string>> = {}): string {
  return JSON.stringify(
    Object.values(TEST_CLIENTS).map((client) => ({
      ...client,
      replyQueueUrl:
        replyQueueUrls[client.clientId] ?? `http://localhost/000000000000/${client.clientId}.fifo`,
    })),
  );
}

export function handlerEnv(resources: CoreResources, settings: HandlerSettings = {}): Record<string, string> {
  return {
    [EnvKey.StateTableName]: resources.stateTable,
    [EnvKey.OrdersTableName]: resources.ordersTable,
    [EnvKey.StartQueueUrl]: resources.startQueueUrl,
    [EnvKey.ConflictQueueUrl]: resources.conflictQueueUrl,
    [EnvKey.AlertBusName]: resources.busName,
    // These handler tests run a classic v1 deployment (version 1 records, v1's machine only).
    [EnvKey.WorkflowStateMachines]: JSON.stringify({ 1: resources.stateMachineArn }),
    [EnvKey.CurrentWorkflowVersion]: '1',
    [EnvKey.WorkflowTimings]: JSON.stringify({ ...BASE_TIMINGS, ...settings.timings }),
    [EnvKey.DueShardCount]: String(settings.dueShardCount ?? 4),
    [EnvKey.ClientRegistry]: testClientRegistry(),
    [EnvKey.AdmissionTableName]: resources.admissionTable,
    [EnvKey.AdmissionSettings]: JSON.stringify({ ...ADMISSION, ...settings.admission }),
    [EnvKey.RetryBudget]: String(TEST_RETRY_BUDGET),
    [PowertoolsEnvKey.ServiceName]: 'core-integration',
    [PowertoolsEnvKey.MetricsNamespace]: 'CoreIntegration',
    [PowertoolsEnvKey.TraceEnabled]: 'false',
    ...(settings.env as Record<string, string> | undefined),
  };
}

/**
 * Loads a handler module as a fresh Lambda container would: environment first, then the module
 * (and its SDK clients) in an isolated registry, so each configuration gets its own instance.
 */
export function loadHandler<T>(modulePath: string, env: Record<string, string>): T {
  Object.assign(process.env, env);
  let loaded: T | undefined;
  jest.isolateModules(() => {
    loaded = require(modulePath) as T;
  });
  if (loaded === undefined) {
    throw new Error(`Could not load ${modulePath}`);
  }
  return loaded;
}

/** The handlers' signatures by trigger; a module loadHandler loads exports one as `handler`. */
export type ApiHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
export type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse>;
export type ArchiverHandler = (event: EventBridgeEvent<string, unknown>, context: Context) => Promise<void>;
export type SupervisorHandler = (event: unknown, context: Context) => Promise<SupervisorRunSummary>;

export const HANDLERS = {
  submitOrder: require.resolve('../../../../lambdas/scheduler-agent-supervisor/handlers/submit-order'),
  getOrder: require.resolve('../../../../lambdas/scheduler-agent-supervisor/handlers/get-order'),
  startOrder: require.resolve('../../../../lambdas/scheduler-agent-supervisor/handlers/starter'),
  supervisor: require.resolve('../../../../lambdas/scheduler-agent-supervisor/handlers/supervisor'),
  admissionRelease: require.resolve(
    '../../../../lambdas/scheduler-agent-supervisor/handlers/admission-release',
  ),
  admissionReconciler: require.resolve(
    '../../../../lambdas/scheduler-agent-supervisor/handlers/admission-reconciler',
  ),
};

export type ReconcilerHandler = (event: unknown, context: Context) => Promise<ReconcileSummary>;

/** The admission handlers (submission, stream release, reconciler) of one admission configuration. */
export function admissionHandlers(resources: CoreResources, admission: Partial<AdmissionSettings>) {
  const env = handlerEnv(resources, { admission });
  return {
    submit: loadHandler<{ handler: ApiHandler }>(HANDLERS.submitOrder, env).handler,
    release: loadHandler<{ handler: StreamHandler }>(HANDLERS.admissionRelease, env).handler,
    reconcile: loadHandler<{ handler: ReconcilerHandler }>(HANDLERS.admissionReconciler, env).handler,
  };
}

export function lambdaContext(remainingMillis: () => number = () => 60_000): Context {
  return {
    awsRequestId: randomUUID(),
    functionName: 'core-test',
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${TEST_REGION}:000000000000:function:core-test`,
    memoryLimitInMB: '256',
    logGroupName: '/aws/lambda/core-test',
    logStreamName: 'stream',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: remainingMillis,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export function postOrderEvent(
  body: string | null,
  options: {
    base64?: boolean;
    headers?: Record<string, string>;
    /** The key id API Gateway checked (null: none). @default the first test client's */
    apiKeyId?: string | null;
  } = {},
): APIGatewayProxyEvent {
  const requestId = randomUUID();
  return {
    body: body !== null && options.base64 ? Buffer.from(body).toString('base64') : body,
    isBase64Encoded: options.base64 === true,
    headers: { 'Content-Type': 'application/json', ...options.headers },
    multiValueHeaders: {},
    httpMethod: 'POST',
    path: '/orders',
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    resource: '/orders',
    requestContext: {
      requestId,
      path: '/test/orders',
      identity: {
        apiKeyId: options.apiKeyId === undefined ? TEST_CLIENTS.first.apiKeyId : options.apiKeyId,
      },
    } as APIGatewayProxyEvent['requestContext'],
  };
}

export function getOrderEvent(
  orderId: string | undefined,
  apiKeyId: string | null = TEST_CLIENTS.first.apiKeyId,
): APIGatewayProxyEvent {
  return {
    ...postOrderEvent(null, { apiKeyId }),
    httpMethod: 'GET',
    path: `/orders/${orderId ?? ''}`,
    resource: '/orders/{orderId}',
    pathParameters: orderId === undefined ? null : { orderId },
  };
}

export function sqsRecord(body: string, messageId: string = randomUUID()): SQSRecord {
  return {
    messageId,
    receiptHandle: `handle-${messageId}`,
    body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(Date.now()),
      SenderId: 'test',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:${TEST_REGION}:000000000000:start`,
    awsRegion: TEST_REGION,
  };
}

export function sqsEvent(records: SQSRecord[]): SQSEvent {
  return { Records: records };
}

/** Receives (and deletes) every visible message of a queue. */
export async function drainQueue(world: CoreWorld, queueUrl: string): Promise<Message[]> {
  const received: Message[] = [];
  for (;;) {
    const { Messages } = await world.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        MessageAttributeNames: ['All'],
      }),
    );
    if (!Messages || Messages.length === 0) {
      return received;
    }
    for (const message of Messages) {
      received.push(message);
      await world.sqs.send(
        new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }),
      );
    }
  }
}

export async function drainBodies<T = Record<string, unknown>>(
  world: CoreWorld,
  queueUrl: string,
): Promise<T[]> {
  return (await drainQueue(world, queueUrl)).map((message) => JSON.parse(message.Body ?? 'null') as T);
}

export async function delayedMessageCount(world: CoreWorld, queueUrl: string): Promise<number> {
  const { Attributes } = await world.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessagesDelayed'],
    }),
  );
  return Number(Attributes?.ApproximateNumberOfMessagesDelayed ?? 0);
}

export async function scanAll(world: CoreWorld, table: string): Promise<Record<string, unknown>[]> {
  const { Items } = await world.doc.send(new ScanCommand({ TableName: table, ConsistentRead: true }));
  return Items ?? [];
}

export async function stateItem(
  world: CoreWorld,
  resources: CoreResources,
  orderId: string,
): Promise<Record<string, unknown> | undefined> {
  const { Item } = await world.doc.send(
    new GetCommand({
      TableName: resources.stateTable,
      Key: { [StateAttr.OrderId]: orderId },
      ConsistentRead: true,
    }),
  );
  return Item;
}

/** The admission counters (`shard#<n>` items) as stored, by key. */
export async function admissionCounters(
  world: CoreWorld,
  resources: CoreResources,
): Promise<Record<string, { InFlight?: number; Cap?: number; Released?: number }>> {
  const items = await scanAll(world, resources.admissionTable);
  return Object.fromEntries(
    items
      .filter((item) => String(item[AdmissionCounterAttr.Pk]).startsWith('shard#'))
      .map((item) => [
        String(item[AdmissionCounterAttr.Pk]),
        item as { InFlight?: number; Cap?: number; Released?: number },
      ]),
  );
}

/**
 * Every record of the state table's stream so far (a table created with `stateStream`), as Lambda's
 * event source delivers them. Read through the recording proxy, like the handlers' own calls.
 */
export function stateStreamRecords(world: CoreWorld, resources: CoreResources): Promise<DynamoDBRecord[]> {
  return tableStreamRecords(world.dynamo.endpoint, resources.stateTable);
}

/** The stream record DynamoDB would deliver for the state record as it is now (new image, low-level form). */
export async function stateStreamEventOf(
  world: CoreWorld,
  resources: CoreResources,
  orderId: string,
  sequenceNumber: string,
): Promise<DynamoDBStreamEvent> {
  const { Item } = await world.doc.send(
    new GetItemCommand({
      TableName: resources.stateTable,
      Key: { [StateAttr.OrderId]: { S: orderId } },
      ConsistentRead: true,
    }),
  );
  if (!Item) throw new Error(`No record ${orderId}`);
  return {
    Records: [
      {
        eventID: sequenceNumber,
        eventName: 'MODIFY',
        eventSource: 'aws:dynamodb',
        awsRegion: TEST_REGION,
        dynamodb: {
          Keys: { [StateAttr.OrderId]: { S: orderId } },
          NewImage: Item as never,
          SequenceNumber: sequenceNumber,
          StreamViewType: 'NEW_AND_OLD_IMAGES',
        },
      },
    ],
  };
}

export async function putStateRecord(
  world: CoreWorld,
  resources: CoreResources,
  record: StateRecord,
): Promise<void> {
  await world.doc.send(
    new PutCommand({
      TableName: resources.stateTable,
      Item: JSON.parse(JSON.stringify(stateRecordToItem(record))) as Record<string, unknown>,
    }),
  );
}

/**
 * Makes the Step Functions double behave like StartExecution: the same name with the same input is
 * the same request (success); the same name with other input is ExecutionAlreadyExists.
 */
export function behaveLikeStepFunctions(sfn: AwsJsonEndpoint, stateMachineArn: string): void {
  sfn.respondWith(stepFunctionsResponder(stateMachineArn));
}

/** The responder behind behaveLikeStepFunctions, for tests that put faults in front of it. */
export function stepFunctionsResponder(stateMachineArn: string): Responder {
  const inputs = new Map<string, string>();
  return (call) => {
    if (call.operation !== 'StartExecution') {
      return undefined;
    }
    const name = String(call.body.name);
    const input = String(call.body.input);
    const existing = inputs.get(name);
    if (existing !== undefined && existing !== input) {
      return { error: 'ExecutionAlreadyExists', message: `Execution already exists: '${name}'` };
    }
    inputs.set(name, input);
    return {
      result: {
        executionArn: `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`,
        startDate: Date.now() / 1000,
      },
    };
  };
}

export function validOrder(
  orderId: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    orderId,
    customerId: 'customer-1',
    items: [
      { sku: 'SKU-1', quantity: 2 },
      { sku: 'SKU-2', quantity: 1 },
    ],
    totalCents: 4599,
    currency: 'EUR',
    ...overrides,
  };
}

export const sleep = (millis: number) => new Promise<void>((resolve) => setTimeout(resolve, millis));
