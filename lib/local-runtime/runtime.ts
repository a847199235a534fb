/**
 * The embedded local runtime: runs a synthesized cloud assembly (the same Lambda bundles and state
 * machine definitions `cdk deploy` uploads) on local emulators. One composition point: it reads the
 * template, starts emulators and servers, provisions tables and queues, runs functions in worker
 * threads and wires every event source the template declares. Anything it cannot run is named.
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { CreateQueueCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type RestApiMethod, type RestApiServer, type RestApiSpec, startRestApiServer } from './api-gateway';
import { startAwsJsonServer, startUnsupportedServiceServer } from './aws-json-server';
import {
  type AssemblyStack,
  type CfnResource,
  createStackResolver,
  readCloudAssembly,
  type StackResolver,
} from './cloud-assembly';
import {
  applyTimeToLive,
  type DynamoDbStreamConsumer,
  dynamoDbStreamConsumers,
  isDynamoDbStreamMapping,
  LocalTableStreams,
  type StreamConsumerWiring,
  streamSpecification,
} from './dynamodb';
import { startDynamoDbEmulator, startSqsEmulator } from './emulators';
import { type EventRule, LocalEventBridge, parseRateExpression, type RuleTarget } from './eventbridge';
import { type FaultHooks, replicaSuffix, startInterceptingProxy } from './fault-hooks';
import { type FunctionUrlServer, startFunctionUrlServer } from './function-urls';
import { type LambdaFunctionSpec, LambdaHost } from './lambda-host';
import { DELIVERABLE_PROTOCOLS, LocalSns } from './sns';
import { SqsEventSource } from './sqs-event-source';
import { StateLog } from './state-log';
import {
  type LocalSfnEvent,
  type LocalStepFunctions,
  type PutEventsOutcome,
  startLocalStepFunctions,
} from './stepfunctions';
import { DEFAULT_TARGET_FILE, type LocalTarget, writeTarget } from './target';

export interface LocalRuntimeOptions {
  /** The cloud assembly directory (cdk.out) to run. */
  readonly assemblyDir: string;
  /** Port of the first REST API. @default 3000 (0 picks a free port) */
  readonly port?: number;
  /** Persist DynamoDB tables here (DynamoDB Local -dbPath). @default - in memory */
  readonly dataDir?: string;
  /** Receives the runtime's own log lines. @default console.log */
  readonly log?: (line: string) => void;
  /** Where to write the target description. @default '.local/target.json'; null writes none */
  readonly targetFile?: string | null;
  /** Append each function's stdout/stderr to `<dir>/<function name>.log`. @default - discarded */
  readonly functionLogDir?: string;
  /** Log order transitions by polling the table named by the StateTableName output. @default true */
  readonly stateLog?: boolean;
  /** @default 'us-east-1' */
  readonly region?: string;
  /** Sandboxes per function without reserved concurrency. @default 4 */
  readonly defaultFunctionConcurrency?: number;
  /** Delays before retrying failed asynchronous invocations. @default [60000, 120000] (Lambda's) */
  readonly asyncRetryDelaysMillis?: readonly number[];
  /**
   * Fault hooks for resilience testing (see fault-hooks.ts): interceptors, sandbox kills, duplicate
   * deliveries, function copies, clock offsets. @default - none (the runtime behaves as without them)
   */
  readonly faults?: FaultHooks;
}

export interface LocalRuntime {
  readonly target: LocalTarget;
  /** Resources the runtime does not run, with the reason (also printed at start). */
  readonly unsupported: readonly UnsupportedResource[];
  /** Types listed as "not emulated (no effect locally)". */
  readonly inert: readonly string[];
  /** Milliseconds from the call to ready. */
  readonly startupMillis: number;
  /** Stops every server, poller, timer and worker; resolves when all ports are released. */
  stop(): Promise<void>;
}

export interface UnsupportedResource {
  readonly stackName: string;
  readonly logicalId: string;
  readonly type: string;
  readonly reason: string;
}

export const LOCAL_ACCOUNT_ID = '000000000000';
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;
const DEFAULT_FUNCTION_CONCURRENCY = 4;

/** Types that only matter on AWS (permissions, encryption, observability): listed, not run. */
const INERT_TYPE_PATTERNS: readonly RegExp[] = [
  /^AWS::IAM::/,
  /^AWS::KMS::/,
  /^AWS::Logs::/,
  /^AWS::CloudWatch::/,
  /^AWS::CDK::Metadata$/,
  /^AWS::Lambda::Permission$/,
  /^AWS::SQS::QueuePolicy$/,
  /^AWS::SNS::TopicPolicy$/,
  /^AWS::Events::EventBusPolicy$/,
  /^AWS::ApiGateway::Account$/,
  /^AWS::ApiGateway::Deployment$/,
  /^AWS::ApiGateway::Model$/,
  /^AWS::XRay::/,
];

/** Why some types that have an effect on AWS are not run, when there is more to say. */
const NOT_RUN_REASONS: Readonly<Record<string, string>> = {
  'AWS::ApiGateway::UsagePlan': 'usage plan throttling and quotas are not enforced locally',
  'AWS::ApiGateway::UsagePlanKey': 'usage plans are not enforced locally (API keys are)',
  'AWS::Lambda::Alias': 'aliases are not emulated (every invocation runs $LATEST)',
  'AWS::Lambda::Version': 'versions are not emulated (every invocation runs $LATEST)',
  'AWS::Lambda::LayerVersion': 'layers are not emulated',
};

/** Types the runtime runs (individual resources may still be named when a feature is missing). */
const RUN_TYPES: readonly string[] = [
  'AWS::DynamoDB::Table',
  'AWS::SQS::Queue',
  'AWS::Lambda::Function',
  'AWS::Lambda::EventSourceMapping',
  'AWS::Lambda::Url',
  'AWS::Lambda::EventInvokeConfig',
  'AWS::Events::EventBus',
  'AWS::Events::Rule',
  'AWS::Scheduler::Schedule',
  'AWS::SNS::Topic',
  'AWS::SNS::Subscription',
  'AWS::StepFunctions::StateMachine',
  'AWS::ApiGateway::RestApi',
  'AWS::ApiGateway::Resource',
  'AWS::ApiGateway::Method',
  'AWS::ApiGateway::Stage',
  'AWS::ApiGateway::ApiKey',
  'AWS::Pipes::Pipe',
];

interface Stoppable {
  stop(): Promise<void>;
}

function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  return undefined;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function arnName(arn: string): string {
  return arn.slice(Math.max(arn.lastIndexOf(':'), arn.lastIndexOf('/')) + 1);
}

/** Where the Node.js Lambda runtime's own AWS SDK v3 comes from locally (bundles mark it external). */
function runtimeModulesDirectory(): string {
  const sdkEntry = require.resolve('@aws-sdk/client-dynamodb');
  const marker = `${join('node_modules', '@aws-sdk')}`;
  return sdkEntry.slice(0, sdkEntry.indexOf(marker) + 'node_modules'.length);
}

export async function startLocalRuntime(options: LocalRuntimeOptions): Promise<LocalRuntime> {
  const started = Date.now();
  const log = options.log ?? ((line: string) => console.log(line));
  const region = options.region ?? 'us-east-1';
  const accountId = LOCAL_ACCOUNT_ID;
  const assemblyDir = resolvePath(options.assemblyDir);
  const assembly = readCloudAssembly(assemblyDir);
  // Stopped in this order: what produces work, then the functions, then what they talk to.
  const producers: Stoppable[] = [];
  let functions: Stoppable | undefined;
  const backends: Stoppable[] = [];
  const unsupported: UnsupportedResource[] = [];
  const inertTypes = new Set<string>();
  const problem = (message: string) => log(`! ${message}`);
  const cleanups: Array<() => void> = [];

  const stopAll = async () => {
    const stopEach = (items: readonly Stoppable[]) =>
      Promise.all(
        items.map((item) => item.stop().catch((error: Error) => problem(`while stopping: ${error.message}`))),
      );
    await stopEach(producers.splice(0));
    if (functions) await stopEach([functions]);
    functions = undefined;
    await stopEach(backends.splice(0));
    for (const cleanup of cleanups.splice(0)) cleanup();
  };

  try {
    // 1. Emulators and local endpoints (their URLs feed the resolution of the template).
    const [dynamoServer, sqsServer, unsupportedServer] = await Promise.all([
      startDynamoDbEmulator(options.dataDir ? join(options.dataDir, 'dynamodb') : undefined),
      startSqsEmulator({ region, accountId }),
      startUnsupportedServiceServer(),
    ]);
    backends.push(dynamoServer, sqsServer, unsupportedServer);
    // A fresh credentials object per client: the SDK annotates the object it is given.
    const clientConfig = () => ({ region, credentials: { ...LOCAL_CREDENTIALS } });
    const dynamodb = new DynamoDBClient({ ...clientConfig(), endpoint: dynamoServer.endpoint });
    const sqs = new SQSClient({ ...clientConfig(), endpoint: sqsServer.endpoint });
    cleanups.push(
      () => dynamodb.destroy(),
      () => sqs.destroy(),
    );
    // DynamoDB Streams: the same emulator serves the Streams API; stream ARNs are known per table.
    const streams = new DynamoDBStreamsClient({ ...clientConfig(), endpoint: dynamoServer.endpoint });
    const tableStreams = new LocalTableStreams(dynamodb);
    cleanups.push(() => streams.destroy());

    const lambdaHost = new LambdaHost({
      asyncRetryDelaysMillis: options.asyncRetryDelaysMillis,
      onInvocation: options.faults?.onInvocation,
      onOutput: functionOutputSink(options.functionLogDir),
      onError: (spec, error) =>
        problem(`function ${spec.logicalId} failed: ${error.errorType}: ${error.errorMessage}`),
    });
    functions = lambdaHost;

    // Fault hook functionReplicas: extra copies of a function, fed by the same event sources and rules.
    const replicasByArn = new Map<string, LambdaFunctionSpec[]>();
    const replicasOf = (spec: LambdaFunctionSpec): LambdaFunctionSpec[] => {
      const count = options.faults?.functionReplicas?.[spec.logicalId] ?? 0;
      const copies = Array.from({ length: count }, (_, index): LambdaFunctionSpec => {
        const suffix = replicaSuffix(index + 1);
        const logicalId = `${spec.logicalId}${suffix}`;
        const functionName = `${spec.functionName}-${suffix}`;
        const clockOffsetMillis = options.faults?.clockOffsetMillis?.[logicalId] ?? spec.clockOffsetMillis;
        return {
          ...spec,
          logicalId,
          functionName,
          functionArn: `${spec.functionArn}-${suffix}`,
          replicaOf: spec.logicalId,
          environment: { ...spec.environment, AWS_LAMBDA_FUNCTION_NAME: functionName },
          ...(clockOffsetMillis ? { clockOffsetMillis } : {}),
        };
      });
      if (copies.length > 0) replicasByArn.set(spec.functionArn, copies);
      return copies;
    };
    const ruleReplicas = (rule: EventRule): EventRule[] => {
      const copies: EventRule[] = [];
      for (let replica = 1; ; replica += 1) {
        const targets = rule.targets.flatMap((target) => {
          const copy = replicasByArn.get(target.arn)?.[replica - 1];
          return copy ? [{ ...target, arn: copy.functionArn }] : [];
        });
        if (targets.length === 0) return copies;
        const suffix = replicaSuffix(replica);
        copies.push({
          ...rule,
          logicalId: `${rule.logicalId}${suffix}`,
          name: `${rule.name}-${suffix}`,
          targets,
        });
      }
    };

    const queueUrlsByArn = new Map<string, string>();
    const sns = new LocalSns(
      {
        sendToQueue: async (queueArn, body) => {
          await sqs.send(new SendMessageCommand({ QueueUrl: queueUrlFor(queueArn), MessageBody: body }));
        },
        invokeAsync: (functionArn, event) => lambdaHost.invokeAsync(functionArn, event),
      },
      region,
    );
    const queueUrlFor = (queueArn: string): string => {
      const url = queueUrlsByArn.get(queueArn);
      if (!url) throw new Error(`No local queue with ARN ${queueArn}`);
      return url;
    };
    let stepFunctions: LocalStepFunctions | undefined;
    let sfnClient: SFNClient | undefined;

    const deliverToTarget = async (target: RuleTarget, input: string): Promise<void> => {
      const service = target.arn.split(':')[2];
      if (service === 'sqs') {
        await sqs.send(
          new SendMessageCommand({
            QueueUrl: queueUrlFor(target.arn),
            MessageBody: input,
            ...(target.messageGroupId ? { MessageGroupId: target.messageGroupId } : {}),
          }),
        );
      } else if (service === 'sns') {
        await sns.publish(target.arn, input);
      } else if (service === 'lambda') {
        lambdaHost.invokeAsync(target.arn, JSON.parse(input) as unknown);
      } else if (service === 'states' && sfnClient) {
        await sfnClient.send(new StartExecutionCommand({ stateMachineArn: target.arn, input }));
      } else {
        throw new Error(`target ${target.arn} is not a kind of target the local runtime delivers to`);
      }
    };

    const eventBridge = new LocalEventBridge({
      region,
      accountId,
      deliver: deliverToTarget,
      onProblem: problem,
    });
    const eventsServer = await startAwsJsonServer('EventBridge', {
      PutEvents: (body) => eventBridge.putEvents((body.Entries ?? []) as Record<string, unknown>[]),
    });
    backends.push(eventsServer);

    const hasStateMachines = assembly.stacks.some((stack) =>
      Object.values(stack.template.Resources ?? {}).some(
        (r) => r.Type === 'AWS::StepFunctions::StateMachine',
      ),
    );
    if (hasStateMachines) {
      stepFunctions = await startLocalStepFunctions({
        region,
        accountId,
        dynamodb,
        sqs,
        putEvents: async (entries) =>
          (await eventBridge.putEvents(
            entries as unknown as Record<string, unknown>[],
          )) as unknown as PutEventsOutcome,
        invokeLambda: async (functionName, payload) => {
          const result = await lambdaHost.invoke(functionName, payload);
          return result.ok
            ? { payload: result.payload, executedVersion: '$LATEST' }
            : { payload: result.error, functionError: 'Unhandled', executedVersion: '$LATEST' };
        },
      });
      producers.push(stepFunctions);
      stepFunctions.events.on('event', (event: LocalSfnEvent) => {
        if (event.type === 'ExecutionFailed' || event.type === 'ExecutionTimedOut') {
          log(
            `execution ${arnName(event.executionArn)} ${event.type === 'ExecutionFailed' ? 'failed' : 'timed out'}: ${event.error}${event.cause ? ` (${event.cause.slice(0, 200)})` : ''}`,
          );
        }
      });
      sfnClient = new SFNClient({ ...clientConfig(), endpoint: stepFunctions.endpoint });
      cleanups.push(() => sfnClient?.destroy());
    }

    const endpoints = {
      dynamodb: dynamoServer.endpoint,
      sqs: sqsServer.endpoint,
      sfn: stepFunctions?.endpoint ?? unsupportedServer.endpoint,
      events: eventsServer.endpoint,
    };
    const functionEnvironmentBase: Record<string, string> = {
      AWS_REGION: region,
      AWS_DEFAULT_REGION: region,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      // Every service without an emulator answers with an error naming it: nothing reaches AWS.
      AWS_ENDPOINT_URL: unsupportedServer.endpoint,
      AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
      // DynamoDB Local serves the Streams API on the same endpoint.
      AWS_ENDPOINT_URL_DYNAMODB_STREAMS: endpoints.dynamodb,
      AWS_ENDPOINT_URL_SQS: endpoints.sqs,
      AWS_ENDPOINT_URL_SFN: await startProxyIfIntercepted(
        endpoints.sfn,
        options.faults?.stepFunctionsApi,
        problem,
        producers,
      ),
      AWS_ENDPOINT_URL_EVENTBRIDGE: endpoints.events,
      AWS_NODEJS_CONNECTION_REUSE_ENABLED: '1',
      AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
      AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000',
      NODE_PATH: runtimeModulesDirectory(),
    };

    // 2. HTTP front doors listen first: their URLs appear in environment variables and outputs.
    const functionUrlServers = new Map<string, FunctionUrlServer>();
    /** Fault hook: the URL a function URL is known by, when a proxy stands in front of it. */
    const functionUrlProxies = new Map<string, string>();
    const restApiServers = new Map<string, RestApiServer>();
    let firstApi = true;
    for (const stack of assembly.stacks) {
      for (const [logicalId, resource] of Object.entries(stack.template.Resources ?? {})) {
        const key = `${stack.stackName}/${logicalId}`;
        if (resource.Type === 'AWS::Lambda::Url') {
          const server = await startFunctionUrlServer(problem);
          producers.push(server);
          functionUrlServers.set(key, server);
          const proxied = await startProxyIfIntercepted(
            server.endpoint,
            options.faults?.functionUrl,
            problem,
            producers,
          );
          if (proxied !== server.endpoint) functionUrlProxies.set(key, `${proxied}/`);
        } else if (resource.Type === 'AWS::ApiGateway::RestApi') {
          const server = await startRestApiServer({
            port: firstApi ? (options.port ?? 3000) : 0,
            invoke: (arn, event) => lambdaHost.invoke(arn, event),
            onProblem: problem,
          });
          firstApi = false;
          producers.push(server);
          restApiServers.set(key, server);
        }
      }
    }

    const resolvers = assembly.stacks.map((stack) =>
      createStackResolver(stack, {
        region,
        accountId,
        sqsEndpoint: sqsServer.endpoint,
        restApiBaseUrl: (logicalId) => requireServer(restApiServers, stack, logicalId).baseUrl,
        functionUrl: (logicalId) =>
          functionUrlProxies.get(`${stack.stackName}/${logicalId}`) ??
          requireServer(functionUrlServers, stack, logicalId).url,
        tableStreamArn: (logicalId) => tableStreams.streamArn(stack.stackName, logicalId),
      }),
    );

    // 3. Provision and wire every resource.
    const apiKeys: string[] = [];
    const schedules: Array<{ resolver: StackResolver; logicalId: string }> = [];
    const eventSources: SqsEventSource[] = [];
    // DynamoDB stream consumers (lib/local-runtime/dynamodb): mappings on streams and pipes.
    const streamConsumers: DynamoDbStreamConsumer[] = [];
    const sendToDestination = async (arn: string, message: string) => {
      if (arn.split(':')[2] === 'sns') await sns.publish(arn, message);
      else await sqs.send(new SendMessageCommand({ QueueUrl: queueUrlFor(arn), MessageBody: message }));
    };
    const streamWiring: StreamConsumerWiring = {
      region,
      accountId,
      streams,
      tableStreams,
      functionArn: (reference) => lambdaHost.find(reference)?.functionArn,
      invoke: (reference, event) => lambdaHost.invoke(reference, event),
      sendToDestination,
      targets: {
        sendMessage: async (queueArn, body, { messageGroupId, messageDeduplicationId }) => {
          await sqs.send(
            new SendMessageCommand({
              QueueUrl: queueUrlFor(queueArn),
              MessageBody: body,
              MessageGroupId: messageGroupId,
              MessageDeduplicationId: messageDeduplicationId,
            }),
          );
        },
        publish: async (topicArn, message) => {
          await sns.publish(topicArn, message);
        },
        putEvents: (entries) => eventBridge.putEvents(entries),
        invoke: (functionArn, event) => lambdaHost.invoke(functionArn, event),
        invokeAsync: (functionArn, event) => lambdaHost.invokeAsync(functionArn, event),
        startExecution: async (stateMachineArn, input) => {
          if (!sfnClient) throw new Error('Step Functions is not available');
          await sfnClient.send(new StartExecutionCommand({ stateMachineArn, input }));
        },
      },
      isLocalDestination: (arn) => {
        const service = arn.split(':')[2];
        if (service === 'sqs') return queueUrlsByArn.has(arn);
        if (service === 'sns') return sns.has(arn);
        if (service === 'lambda') return lambdaHost.find(arn) !== undefined;
        if (service === 'states') return stepFunctions !== undefined;
        return service === 'events';
      },
      onProblem: problem,
      ...(options.dataDir ? { checkpointDirectory: join(options.dataDir, 'stream-checkpoints') } : {}),
    };
    for (const resolver of resolvers) {
      const stack = resolver.stack;
      const resources = Object.entries(stack.template.Resources ?? {}).filter(([logicalId]) =>
        resolver.isCreated(logicalId),
      );
      const named = (logicalId: string, type: string, reason: string) =>
        unsupported.push({ stackName: stack.stackName, logicalId, type, reason });
      const ofType = (type: string) => resources.filter(([, resource]) => resource.Type === type);

      for (const [logicalId, resource] of resources) {
        if (INERT_TYPE_PATTERNS.some((pattern) => pattern.test(resource.Type))) inertTypes.add(resource.Type);
        else if (!RUN_TYPES.includes(resource.Type)) {
          named(logicalId, resource.Type, NOT_RUN_REASONS[resource.Type] ?? 'resource type not emulated');
        }
      }

      for (const [logicalId] of ofType('AWS::DynamoDB::Table')) {
        await createTable(dynamodb, resolver, logicalId);
        const wanted = streamSpecification(resolver.properties(logicalId));
        await tableStreams.register(stack.stackName, logicalId, resolver.physicalName(logicalId), wanted);
      }

      // Dead-letter queues first: a redrive policy must name an existing queue.
      const queues = ofType('AWS::SQS::Queue').sort(
        ([, left], [, right]) =>
          Number(left.Properties?.RedrivePolicy !== undefined) -
          Number(right.Properties?.RedrivePolicy !== undefined),
      );
      for (const [logicalId] of queues) {
        const url = await createQueue(sqs, resolver, logicalId);
        queueUrlsByArn.set(String(resolver.context.getAtt(logicalId, 'Arn')), url);
      }

      const retriesByFunction = new Map<string, number>();
      for (const [logicalId] of ofType('AWS::Lambda::EventInvokeConfig')) {
        const properties = resolver.properties(logicalId);
        const retries = asNumber(properties.MaximumRetryAttempts);
        if (retries !== undefined) retriesByFunction.set(arnName(String(properties.FunctionName)), retries);
      }

      for (const [logicalId, resource] of ofType('AWS::Lambda::Function')) {
        const spec = functionSpec(resolver, logicalId, resource, assemblyDir, {
          baseEnvironment: functionEnvironmentBase,
          defaultConcurrency: options.defaultFunctionConcurrency ?? DEFAULT_FUNCTION_CONCURRENCY,
          retriesByFunction,
          cleanups,
          clockOffsetMillis: options.faults?.clockOffsetMillis?.[logicalId],
        });
        if (typeof spec === 'string') named(logicalId, resource.Type, spec);
        else {
          lambdaHost.register(spec);
          for (const replica of replicasOf(spec)) lambdaHost.register(replica);
        }
      }

      for (const [logicalId, resource] of ofType('AWS::Lambda::Url')) {
        const properties = resolver.properties(logicalId);
        const functionArn = String(resolver.context.getAtt(logicalId, 'FunctionArn'));
        const server = requireServer(functionUrlServers, stack, logicalId);
        if (properties.InvokeMode === 'RESPONSE_STREAM') {
          named(logicalId, resource.Type, 'InvokeMode RESPONSE_STREAM is not supported (BUFFERED only)');
        } else if (!lambdaHost.find(functionArn)) {
          named(logicalId, resource.Type, `its function ${functionArn} does not run locally`);
        } else {
          server.serve(
            {
              logicalId,
              functionArn,
              authType: properties.AuthType === 'AWS_IAM' ? 'AWS_IAM' : 'NONE',
              accountId,
            },
            (arn, event) => lambdaHost.invoke(arn, event),
          );
        }
      }

      for (const [logicalId, resource] of ofType('AWS::Lambda::EventSourceMapping')) {
        const properties = resolver.properties(logicalId);
        const sourceArn = asString(properties.EventSourceArn) ?? '';
        const functionReference = String(properties.FunctionName);
        const fn = lambdaHost.find(functionReference);
        if (properties.Enabled === false) continue;
        if (isDynamoDbStreamMapping(properties)) continue; // wired with the stream consumers below
        if (!sourceArn.startsWith('arn:aws:sqs:') || !queueUrlsByArn.has(sourceArn)) {
          named(
            logicalId,
            resource.Type,
            `event source ${sourceArn || '(none)'} is not an SQS queue of this app`,
          );
          continue;
        }
        if (!fn) {
          named(logicalId, resource.Type, `its function ${functionReference} does not run locally`);
          continue;
        }
        const responseTypes = Array.isArray(properties.FunctionResponseTypes)
          ? properties.FunctionResponseTypes
          : [];
        const scaling = asNumber(asRecord(properties.ScalingConfig).MaximumConcurrency);
        const consumers = [fn, ...(replicasByArn.get(fn.functionArn) ?? [])];
        for (const [replica, consumer] of consumers.entries()) {
          const mappingLogicalId = replica === 0 ? logicalId : `${logicalId}${replicaSuffix(replica)}`;
          const duplicateDelivery = options.faults?.duplicateDelivery;
          eventSources.push(
            new SqsEventSource(
              {
                logicalId: mappingLogicalId,
                queueUrl: queueUrlFor(sourceArn),
                queueArn: sourceArn,
                functionReference: consumer.functionArn,
                batchSize: asNumber(properties.BatchSize) ?? 10,
                maximumBatchingWindowSeconds: asNumber(properties.MaximumBatchingWindowInSeconds) ?? 0,
                reportBatchItemFailures: responseTypes.includes('ReportBatchItemFailures'),
                concurrency: Math.min(consumer.maxConcurrency, scaling ?? consumer.maxConcurrency),
                region,
              },
              {
                sqs,
                invoke: (reference, event) => lambdaHost.invoke(reference, event),
                onProblem: problem,
                ...(duplicateDelivery
                  ? {
                      duplicateDelivery: (message) =>
                        duplicateDelivery({
                          mappingLogicalId,
                          functionLogicalId: consumer.logicalId,
                          message,
                        }),
                    }
                  : {}),
              },
            ),
          );
        }
      }

      for (const [logicalId] of ofType('AWS::SNS::Topic')) {
        const topicArn = String(resolver.context.ref(logicalId));
        sns.addTopic(topicArn);
        const inline = resolver.properties(logicalId).Subscription;
        for (const [index, subscription] of (Array.isArray(inline) ? inline : []).entries()) {
          subscribe(sns, topicArn, `${logicalId}[${index}]`, asRecord(subscription), named);
        }
      }
      for (const [logicalId] of ofType('AWS::SNS::Subscription')) {
        const properties = resolver.properties(logicalId);
        subscribe(sns, String(properties.TopicArn), logicalId, properties, named);
      }

      for (const [logicalId] of ofType('AWS::Events::EventBus')) {
        eventBridge.addBus(resolver.physicalName(logicalId));
      }
      for (const [logicalId, resource] of ofType('AWS::Events::Rule')) {
        const rule = eventRule(resolver, logicalId, named);
        if (rule) {
          eventBridge.addRule(rule);
          for (const copy of ruleReplicas(rule)) eventBridge.addRule(copy);
          if (rule.rateMillis !== undefined) schedules.push({ resolver, logicalId });
          for (const target of rule.targets) {
            if (!['sqs', 'sns', 'lambda', 'states'].includes(target.arn.split(':')[2] ?? '')) {
              named(logicalId, resource.Type, `target ${target.id} (${target.arn}) is not delivered locally`);
            }
          }
        }
      }
      for (const [logicalId, resource] of ofType('AWS::Scheduler::Schedule')) {
        const properties = resolver.properties(logicalId);
        const target = asRecord(properties.Target);
        try {
          if (properties.State === 'DISABLED') continue;
          eventBridge.addRule({
            logicalId,
            name: resolver.physicalName(logicalId),
            arn: `arn:aws:scheduler:${region}:${accountId}:schedule/default/${resolver.physicalName(logicalId)}`,
            busName: 'default',
            rateMillis: parseRateExpression(String(properties.ScheduleExpression)),
            targets: [{ id: 'Target', arn: String(target.Arn), input: asString(target.Input) ?? '{}' }],
          });
        } catch (error) {
          named(logicalId, resource.Type, (error as Error).message);
        }
      }

      for (const [logicalId, resource] of ofType('AWS::StepFunctions::StateMachine')) {
        if (!stepFunctions) {
          named(logicalId, resource.Type, 'Step Functions is not available');
          continue;
        }
        const properties = resolver.properties(logicalId);
        const definition =
          asString(properties.DefinitionString) ??
          (properties.Definition !== undefined ? JSON.stringify(properties.Definition) : undefined);
        if (definition === undefined) {
          named(
            logicalId,
            resource.Type,
            'no DefinitionString or Definition (S3 definitions are not supported)',
          );
          continue;
        }
        const substituted = substituteDefinition(definition, asRecord(properties.DefinitionSubstitutions));
        try {
          const registered = stepFunctions.registerStateMachine(
            String(resolver.context.ref(logicalId)),
            resolver.physicalName(logicalId),
            substituted,
            {
              roleArn: asString(properties.RoleArn),
              type: properties.StateMachineType === 'EXPRESS' ? 'EXPRESS' : 'STANDARD',
            },
          );
          for (const warning of registered.warnings) named(logicalId, resource.Type, warning);
        } catch (error) {
          named(logicalId, resource.Type, (error as Error).message);
        }
      }

      // Last: a stream consumer may deliver to any queue, topic, function, bus or state machine above.
      streamConsumers.push(...dynamoDbStreamConsumers(resolver, named, streamWiring));

      for (const [logicalId] of ofType('AWS::ApiGateway::ApiKey')) {
        const properties = resolver.properties(logicalId);
        if (properties.Enabled === false) continue;
        apiKeys.push(
          asString(properties.Value) ?? `local-${resolver.physicalName(logicalId)}-key-0123456789`,
        );
      }
      for (const [logicalId] of ofType('AWS::ApiGateway::RestApi')) {
        const api = restApiSpec(resolver, logicalId, apiKeys, { region, accountId }, named);
        requireServer(restApiServers, stack, logicalId).serve(api);
      }
    }

    assertHookedFunctionsExist(options.faults, lambdaHost);

    // 4. Start event sources, schedules and the transition log; describe the target.
    const outputs: Record<string, string> = {};
    for (const resolver of resolvers) Object.assign(outputs, resolver.outputs());
    const firstApiServer = [...restApiServers.values()][0];
    const firstStage = resolvers
      .flatMap((resolver) =>
        Object.entries(resolver.stack.template.Resources ?? {})
          .filter(
            ([logicalId, resource]) =>
              resource.Type === 'AWS::ApiGateway::Stage' && resolver.isCreated(logicalId),
          )
          .map(([logicalId]) => String(resolver.properties(logicalId).StageName)),
      )
      .at(0);
    const apiUrl =
      outputs.ApiUrl ??
      (firstApiServer && firstStage ? `${firstApiServer.baseUrl}/${firstStage}/` : undefined);
    const target: LocalTarget = {
      kind: 'local',
      region,
      accountId,
      credentials: { ...LOCAL_CREDENTIALS },
      endpoints,
      ...(apiUrl ? { apiUrl } : {}),
      ...(apiKeys[0] ? { apiKey: apiKeys[0] } : {}),
      outputs,
      pid: process.pid,
      startedAt: new Date().toISOString(),
    };

    for (const source of eventSources) {
      source.start();
      producers.push(source);
    }
    // Stream consumers start positioned (LATEST means after this point), before the runtime is ready.
    producers.push(...streamConsumers);
    await Promise.all(streamConsumers.map((consumer) => consumer.start()));
    producers.push(eventBridge);
    eventBridge.startSchedules();

    if (options.stateLog !== false && outputs.StateTableName) {
      const stateLog = new StateLog({ dynamodb, tableName: outputs.StateTableName, write: log });
      stateLog.start();
      producers.push(stateLog);
    }

    const targetFile = options.targetFile === undefined ? DEFAULT_TARGET_FILE : options.targetFile;
    if (targetFile !== null) {
      writeTarget(targetFile, target);
      cleanups.push(() => rmSync(targetFile, { force: true }));
    }

    for (const item of unsupported) {
      log(`not run locally: ${item.logicalId} (${item.type}) in ${item.stackName}: ${item.reason}`);
    }
    if (inertTypes.size > 0) {
      log(`not emulated (no effect locally): ${[...inertTypes].sort().join(', ')}`);
    }
    if (!options.dataDir) {
      log('data: in memory (use --data DIR to keep DynamoDB tables between runs)');
    } else {
      log(
        `data: DynamoDB tables persist in ${options.dataDir}; SQS queues are in memory only (local-aws-sqs has no ` +
          'persistence), accepted orders survive because the state table is durable and the supervisor re-queues ' +
          'Pending and expired records',
      );
    }
    return {
      target,
      unsupported,
      inert: [...inertTypes].sort(),
      startupMillis: Date.now() - started,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * Fault hook: an intercepting proxy in front of an endpoint when an interceptor is given (stopped
 * with the other producers), else the endpoint itself.
 */
async function startProxyIfIntercepted(
  endpoint: string,
  interceptor: FaultHooks['functionUrl'],
  onProblem: (message: string) => void,
  producers: Stoppable[],
): Promise<string> {
  if (!interceptor) return endpoint;
  const proxy = await startInterceptingProxy(endpoint, interceptor, onProblem);
  producers.push(proxy);
  return proxy.endpoint;
}

/** Fault hooks naming functions must name functions that exist: a typo would silently test nothing. */
function assertHookedFunctionsExist(faults: FaultHooks | undefined, lambdaHost: LambdaHost): void {
  const named = [
    ...Object.keys(faults?.functionReplicas ?? {}).map((id) => ['functionReplicas', id] as const),
    ...Object.keys(faults?.clockOffsetMillis ?? {}).map((id) => ['clockOffsetMillis', id] as const),
  ];
  for (const [hook, logicalId] of named) {
    if (!lambdaHost.find(logicalId)) {
      throw new Error(`faults.${hook} names ${logicalId}, which is not a function the runtime runs`);
    }
  }
}

function requireServer<T>(servers: Map<string, T>, stack: AssemblyStack, logicalId: string): T {
  const server = servers.get(`${stack.stackName}/${logicalId}`);
  if (!server) throw new Error(`No local server for ${logicalId} in ${stack.stackName}`);
  return server;
}

function functionOutputSink(
  directory: string | undefined,
): ((spec: LambdaFunctionSpec, text: string) => void) | undefined {
  if (!directory) return undefined;
  mkdirSync(directory, { recursive: true });
  return (spec, text) => appendFileSync(join(directory, `${spec.functionName}.log`), text);
}

type Named = (logicalId: string, type: string, reason: string) => void;

async function createTable(dynamodb: DynamoDBClient, resolver: StackResolver, logicalId: string) {
  const properties = resolver.properties(logicalId);
  const payPerRequest = properties.BillingMode === 'PAY_PER_REQUEST';
  const index = (definition: unknown) => {
    const { IndexName, KeySchema, Projection, ProvisionedThroughput } = asRecord(definition);
    return {
      IndexName,
      KeySchema,
      Projection,
      ...(payPerRequest
        ? {}
        : {
            ProvisionedThroughput: ProvisionedThroughput ?? { ReadCapacityUnits: 5, WriteCapacityUnits: 5 },
          }),
    };
  };
  const stream = streamSpecification(properties);
  const input = {
    TableName: resolver.physicalName(logicalId),
    ...(stream ? { StreamSpecification: stream } : {}),
    KeySchema: properties.KeySchema,
    AttributeDefinitions: properties.AttributeDefinitions,
    ...(payPerRequest
      ? { BillingMode: 'PAY_PER_REQUEST' }
      : {
          ProvisionedThroughput: properties.ProvisionedThroughput ?? {
            ReadCapacityUnits: 5,
            WriteCapacityUnits: 5,
          },
        }),
    ...(Array.isArray(properties.GlobalSecondaryIndexes)
      ? { GlobalSecondaryIndexes: properties.GlobalSecondaryIndexes.map(index) }
      : {}),
    ...(Array.isArray(properties.LocalSecondaryIndexes)
      ? {
          LocalSecondaryIndexes: properties.LocalSecondaryIndexes.map((definition) => {
            const { ProvisionedThroughput: _ignored, ...rest } = index(definition) as Record<string, unknown>;
            return rest;
          }),
        }
      : {}),
  } as CreateTableCommandInput;
  try {
    await dynamodb.send(new CreateTableCommand(input));
  } catch (error) {
    // A persisted data directory already holds the table from an earlier run.
    if (!(error instanceof ResourceInUseException)) {
      throw new Error(`Cannot create table ${logicalId}: ${(error as Error).message}`);
    }
  }
  await applyTimeToLive(dynamodb, String(input.TableName), properties);
}

const QUEUE_ATTRIBUTES = [
  'DelaySeconds',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'VisibilityTimeout',
  'FifoQueue',
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'FifoThroughputLimit',
] as const;

async function createQueue(sqs: SQSClient, resolver: StackResolver, logicalId: string): Promise<string> {
  const properties = resolver.properties(logicalId);
  const attributes: Record<string, string> = {};
  for (const name of QUEUE_ATTRIBUTES) {
    if (properties[name] !== undefined) attributes[name] = String(properties[name]);
  }
  if (properties.RedrivePolicy !== undefined) {
    attributes.RedrivePolicy =
      typeof properties.RedrivePolicy === 'string'
        ? properties.RedrivePolicy
        : JSON.stringify(properties.RedrivePolicy);
  }
  const queueName = resolver.physicalName(logicalId);
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({ QueueName: queueName, Attributes: attributes }),
  );
  const expected = String(resolver.context.ref(logicalId));
  if (QueueUrl !== expected) {
    throw new Error(
      `Queue ${logicalId}: the emulator answered URL ${QueueUrl}, the runtime expected ${expected}`,
    );
  }
  return expected;
}

function functionSpec(
  resolver: StackResolver,
  logicalId: string,
  resource: CfnResource,
  assemblyDir: string,
  settings: {
    baseEnvironment: Readonly<Record<string, string>>;
    defaultConcurrency: number;
    retriesByFunction: ReadonlyMap<string, number>;
    cleanups: Array<() => void>;
    clockOffsetMillis?: number;
  },
): LambdaFunctionSpec | string {
  const properties = resolver.properties(logicalId);
  const runtime = asString(properties.Runtime) ?? '';
  if (properties.PackageType === 'Image') return 'container image functions are not supported';
  if (!runtime.startsWith('nodejs')) return `runtime ${runtime || '(none)'} is not supported (Node.js only)`;
  if (Array.isArray(properties.Layers) && properties.Layers.length > 0)
    return 'Lambda layers are not supported';
  const handler = asString(properties.Handler);
  if (!handler) return 'no Handler';
  const code = asRecord(properties.Code);
  // The CLI records the asset path in metadata; in-process synthesis leaves only the asset manifest.
  const assetPath = asString(resource.Metadata?.['aws:asset:path']);
  const fromManifest = resolver.stack.fileAssets.get(asString(code.S3Key) ?? '');
  let codeDirectory: string;
  if (assetPath || fromManifest) {
    codeDirectory = assetPath ? resolvePath(assemblyDir, assetPath) : (fromManifest as string);
    if (!existsSync(codeDirectory)) return `its asset ${codeDirectory} is missing (synthesize again)`;
  } else if (typeof code.ZipFile === 'string') {
    codeDirectory = mkdtempSync(join(tmpdir(), `local-runtime-${logicalId}-`));
    writeFileSync(join(codeDirectory, `${handler.slice(0, handler.lastIndexOf('.'))}.js`), code.ZipFile);
    settings.cleanups.push(() => rmSync(codeDirectory, { recursive: true, force: true }));
  } else {
    return 'its code is neither a local asset nor inline (ZipFile)';
  }
  const functionName = resolver.physicalName(logicalId);
  const timeoutSeconds = asNumber(properties.Timeout) ?? 3;
  const memorySizeMb = asNumber(properties.MemorySize) ?? 128;
  const reserved = asNumber(properties.ReservedConcurrentExecutions);
  if (reserved === 0) return 'reserved concurrency 0: the function is throttled';
  const variables = asRecord(asRecord(properties.Environment).Variables);
  const environment: Record<string, string> = {};
  for (const [key, value] of Object.entries(variables)) environment[key] = String(value);
  Object.assign(environment, settings.baseEnvironment, {
    AWS_LAMBDA_FUNCTION_NAME: functionName,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(memorySizeMb),
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${functionName}`,
    AWS_LAMBDA_LOG_STREAM_NAME: 'local/[$LATEST]local',
    AWS_EXECUTION_ENV: `AWS_Lambda_${runtime}`,
    LAMBDA_TASK_ROOT: codeDirectory,
    _HANDLER: handler,
  });
  return {
    logicalId,
    functionName,
    functionArn: String(resolver.context.getAtt(logicalId, 'Arn')),
    codeDirectory,
    handler,
    environment,
    timeoutSeconds,
    memorySizeMb,
    maxConcurrency: reserved ?? settings.defaultConcurrency,
    asyncRetryAttempts: settings.retriesByFunction.get(functionName) ?? 2,
    ...(settings.clockOffsetMillis ? { clockOffsetMillis: settings.clockOffsetMillis } : {}),
  };
}

function subscribe(
  sns: LocalSns,
  topicArn: string,
  logicalId: string,
  properties: Record<string, unknown>,
  named: Named,
): void {
  const protocol = String(properties.Protocol);
  if (!DELIVERABLE_PROTOCOLS.includes(protocol)) {
    named(logicalId, 'AWS::SNS::Subscription', `protocol ${protocol} is not delivered locally`);
    return;
  }
  if (properties.FilterPolicy !== undefined) {
    named(
      logicalId,
      'AWS::SNS::Subscription',
      'filter policies are not applied locally (every message is delivered)',
    );
  }
  sns.subscribe(topicArn, {
    logicalId,
    protocol,
    endpoint: String(properties.Endpoint),
    rawMessageDelivery: properties.RawMessageDelivery === true || properties.RawMessageDelivery === 'true',
  });
}

function eventRule(resolver: StackResolver, logicalId: string, named: Named): EventRule | undefined {
  const properties = resolver.properties(logicalId);
  if (properties.State === 'DISABLED') return undefined;
  const busReference = asString(properties.EventBusName) ?? 'default';
  const targets: RuleTarget[] = (Array.isArray(properties.Targets) ? properties.Targets : []).map((raw) => {
    const target = asRecord(raw);
    return {
      id: String(target.Id),
      arn: String(target.Arn),
      ...(asString(target.Input) !== undefined ? { input: asString(target.Input) } : {}),
      ...(asString(target.InputPath) !== undefined ? { inputPath: asString(target.InputPath) } : {}),
      ...(target.InputTransformer
        ? { inputTransformer: target.InputTransformer as RuleTarget['inputTransformer'] }
        : {}),
      ...(asString(asRecord(target.SqsParameters).MessageGroupId)
        ? { messageGroupId: asString(asRecord(target.SqsParameters).MessageGroupId) }
        : {}),
    };
  });
  let rateMillis: number | undefined;
  if (properties.ScheduleExpression !== undefined) {
    try {
      rateMillis = parseRateExpression(String(properties.ScheduleExpression));
    } catch (error) {
      named(logicalId, 'AWS::Events::Rule', (error as Error).message);
      return undefined;
    }
  }
  return {
    logicalId,
    name: resolver.physicalName(logicalId),
    arn: String(resolver.context.getAtt(logicalId, 'Arn')),
    busName: busReference.startsWith('arn:') ? arnName(busReference) : busReference,
    pattern: properties.EventPattern,
    rateMillis,
    targets,
  };
}

/** DefinitionSubstitutions: ${name} placeholders in the definition string. */
function substituteDefinition(definition: string, substitutions: Record<string, unknown>): string {
  return definition.replace(/\$\{([A-Za-z0-9_]+)\}/g, (whole, name: string) =>
    name in substitutions ? String(substitutions[name]) : whole,
  );
}

function restApiSpec(
  resolver: StackResolver,
  restApiLogicalId: string,
  apiKeys: readonly string[],
  where: { region: string; accountId: string },
  named: Named,
): RestApiSpec {
  const resources = resolver.stack.template.Resources ?? {};
  const apiId = resolver.physicalName(restApiLogicalId);
  const rootId = String(resolver.context.getAtt(restApiLogicalId, 'RootResourceId'));
  const belongsToApi = (properties: Record<string, unknown>) => properties.RestApiId === apiId;
  const parents = new Map<string, { parentId: string; pathPart: string }>();
  for (const [logicalId, resource] of Object.entries(resources)) {
    if (resource.Type !== 'AWS::ApiGateway::Resource' || !resolver.isCreated(logicalId)) continue;
    const properties = resolver.properties(logicalId);
    if (!belongsToApi(properties)) continue;
    parents.set(resolver.physicalName(logicalId), {
      parentId: String(properties.ParentId),
      pathPart: String(properties.PathPart),
    });
  }
  const pathOf = (resourceId: string, depth = 0): string => {
    if (resourceId === rootId) return '/';
    const node = parents.get(resourceId);
    if (!node || depth > 50) throw new Error(`API ${restApiLogicalId}: unknown resource id ${resourceId}`);
    const parentPath = pathOf(node.parentId, depth + 1);
    return `${parentPath === '/' ? '' : parentPath}/${node.pathPart}`;
  };
  const methods: RestApiMethod[] = [];
  for (const [logicalId, resource] of Object.entries(resources)) {
    if (resource.Type !== 'AWS::ApiGateway::Method' || !resolver.isCreated(logicalId)) continue;
    const properties = resolver.properties(logicalId);
    if (!belongsToApi(properties)) continue;
    const resourceId = String(properties.ResourceId);
    const integration = asRecord(properties.Integration);
    const authorization = asString(properties.AuthorizationType) ?? 'NONE';
    if (authorization === 'CUSTOM' || authorization === 'COGNITO_USER_POOLS') {
      named(
        logicalId,
        resource.Type,
        `authorizer ${authorization} is not emulated: the method is served without it`,
      );
    }
    const base = {
      logicalId,
      resourcePath: pathOf(resourceId),
      resourceId,
      httpMethod: String(properties.HttpMethod).toUpperCase(),
      apiKeyRequired: properties.ApiKeyRequired === true,
    };
    if (integration.Type === 'AWS_PROXY') {
      const functionArn = /functions\/(arn:[^/]+)\/invocations/.exec(String(integration.Uri))?.[1];
      if (!functionArn) {
        named(
          logicalId,
          resource.Type,
          `AWS_PROXY integration ${String(integration.Uri)} is not a Lambda function`,
        );
        continue;
      }
      methods.push({ ...base, integration: { type: 'lambda-proxy', functionArn } });
    } else if (integration.Type === 'MOCK') {
      const first = asRecord(
        (Array.isArray(integration.IntegrationResponses) ? integration.IntegrationResponses : [])[0],
      );
      const headers: Record<string, string> = {};
      for (const [key, value] of Object.entries(asRecord(first.ResponseParameters))) {
        const header = /^method\.response\.header\.(.+)$/.exec(key)?.[1];
        if (header) headers[header] = String(value).replace(/^'(.*)'$/, '$1');
      }
      methods.push({
        ...base,
        integration: { type: 'mock', statusCode: Number(first.StatusCode ?? 200), headers },
      });
    } else {
      named(logicalId, resource.Type, `integration type ${String(integration.Type)} is not emulated`);
    }
  }
  const stageNames: string[] = [];
  for (const [logicalId, resource] of Object.entries(resources)) {
    if (!resolver.isCreated(logicalId)) continue;
    if (resource.Type === 'AWS::ApiGateway::Stage' || resource.Type === 'AWS::ApiGateway::Deployment') {
      const properties = resolver.properties(logicalId);
      if (belongsToApi(properties) && typeof properties.StageName === 'string')
        stageNames.push(properties.StageName);
    }
  }
  return { logicalId: restApiLogicalId, apiId, stageNames, methods, apiKeys, ...where };
}
