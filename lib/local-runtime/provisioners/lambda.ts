/**
 * Lambda functions: the host running each function's bundled asset in worker-thread sandboxes,
 * one spec per AWS::Lambda::Function (environment resolved locally, reserved concurrency, timeout,
 * EventInvokeConfig retries), asynchronous deliveries to function ARNs, and the fault hooks that
 * act on functions (extra copies, clock offsets).
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { replicaSuffix } from '../fault-hooks';
import { type InvocationResult, type LambdaFunctionSpec, LambdaHost } from '../lambda-host';
import type { ListenContext, Provisioner, RuntimeContext, StackContext } from '../provisioning';
import { arnName, asNumber, asRecord, asString } from './values';

const FUNCTION = 'AWS::Lambda::Function';

/** Hears of an invocation's end: its function, result and duration in milliseconds. */
export type InvocationEndListener = (
  spec: LambdaFunctionSpec,
  result: InvocationResult,
  durationMillis: number,
) => void;
const EVENT_INVOKE_CONFIG = 'AWS::Lambda::EventInvokeConfig';
const DEFAULT_FUNCTION_CONCURRENCY = 4;

export class LambdaProvisioner implements Provisioner {
  readonly name = 'Lambda';
  readonly resourceTypes = {
    runs: [FUNCTION, EVENT_INVOKE_CONFIG],
    inert: { 'AWS::Lambda::Permission': 'invoke permissions are not enforced locally' },
    notRun: {
      'AWS::Lambda::Alias': 'aliases are not emulated (every invocation runs $LATEST)',
      'AWS::Lambda::Version': 'versions are not emulated (every invocation runs $LATEST)',
      'AWS::Lambda::LayerVersion': 'layers are not emulated',
    },
  };
  private lambdaHost: LambdaHost | undefined;
  /** Fault hook functionReplicas: the extra copies of each function, by the function's ARN. */
  private readonly replicasByArn = new Map<string, LambdaFunctionSpec[]>();
  /** Who reads the functions' output line by line (CloudWatch's EMF metrics). */
  private readonly outputLineListeners: Array<(spec: LambdaFunctionSpec, line: string) => void> = [];
  private readonly invocationEndListeners: InvocationEndListener[] = [];
  /** Each function's role and where it was declared, checked once IAM has read every stack. */
  private readonly roles: Array<{ readonly where: string; readonly roleArn: string }> = [];

  get host(): LambdaHost {
    if (!this.lambdaHost) throw new Error('The Lambda host is not started yet');
    return this.lambdaHost;
  }

  /** The extra copies of a function (fault hook functionReplicas), none without the hook. */
  replicasOf(functionArn: string): readonly LambdaFunctionSpec[] {
    return this.replicasByArn.get(functionArn) ?? [];
  }

  /** `listener` hears of every invocation's end, with its duration (AWS/Lambda metrics). */
  onInvocationEnd(listener: InvocationEndListener): void {
    this.invocationEndListeners.push(listener);
  }

  /** `listener` reads every line every function writes (register before functions run). */
  onOutputLine(listener: (spec: LambdaFunctionSpec, line: string) => void): void {
    this.outputLineListeners.push(listener);
  }

  async listen(context: ListenContext): Promise<void> {
    const listeners = this.outputLineListeners;
    const ended = this.invocationEndListeners;
    const faultObserver = context.options.faults?.onInvocation;
    const { meter } = context;
    const host = new LambdaHost({
      onInvocation: (invocation) => {
        const startedAt = performance.now();
        const finished = faultObserver?.(invocation);
        return (result) => {
          finished?.(result);
          const durationMillis = performance.now() - startedAt;
          const { spec } = invocation;
          meter?.invocationEnded(spec.functionName, spec.memorySizeMb, durationMillis);
          for (const listener of ended) listener(spec, result, durationMillis);
        };
      },
      onOutputLine: (spec, line) => {
        for (const listener of listeners) listener(spec, line);
      },
      asyncRetryDelaysMillis: context.options.asyncRetryDelaysMillis,
      onOutput: functionOutputSink(context.options.functionLogDir),
      onError: (spec, error) =>
        context.problem(`function ${spec.logicalId} failed: ${error.errorType}: ${error.errorMessage}`),
    });
    this.lambdaHost = host;
    context.stopWith(host, 'functions');
    context.deliveries.register('lambda', async (functionArn, message) => {
      host.invokeAsync(functionArn, JSON.parse(message) as unknown);
    });
  }

  async provision(context: StackContext): Promise<void> {
    const { resolver } = context;
    const retriesByFunction = new Map<string, number>();
    for (const [logicalId] of context.ofType(EVENT_INVOKE_CONFIG)) {
      const properties = resolver.properties(logicalId);
      const retries = asNumber(properties.MaximumRetryAttempts);
      if (retries !== undefined) retriesByFunction.set(arnName(String(properties.FunctionName)), retries);
    }
    for (const [logicalId] of context.ofType(FUNCTION)) {
      const spec = functionSpec(context, logicalId, retriesByFunction);
      if (typeof spec === 'string') {
        context.named(logicalId, FUNCTION, spec);
        continue;
      }
      if (spec.roleArn)
        this.roles.push({ where: `${context.stack.stackName}/${logicalId}`, roleArn: spec.roleArn });
      const replicas = replicasOf(spec, context);
      for (const registered of [spec, ...replicas]) {
        this.host.register(registered);
        context.meter?.describeFunction(
          registered.functionName,
          { stackName: context.stack.stackName, logicalId: registered.logicalId },
          registered.memorySizeMb,
        );
      }
      if (replicas.length > 0) this.replicasByArn.set(spec.functionArn, replicas);
    }
  }

  async start(context: RuntimeContext): Promise<void> {
    // Lambda refuses to create a function whose role it cannot assume (CreateFunction:
    // InvalidParameterValueException, https://docs.aws.amazon.com/lambda/latest/api/API_CreateFunction.html).
    const untrusted = this.roles.filter(
      ({ roleArn }) => !context.iam.account.trusts(roleArn, 'lambda.amazonaws.com', context.region),
    );
    if (untrusted.length > 0) {
      throw new Error(
        untrusted
          .map(
            ({ where, roleArn }) =>
              `${where}: InvalidParameterValueException: The role defined for the function cannot be assumed by Lambda (${roleArn} ${context.iam.account.role(roleArn) ? 'does not trust lambda.amazonaws.com' : 'is not a role of the templates'})`,
          )
          .join('\n'),
      );
    }
    // Fault hooks naming functions must name functions that exist: a typo would silently test nothing.
    const faults = context.options.faults;
    const named = [
      ...Object.keys(faults?.functionReplicas ?? {}).map((id) => ['functionReplicas', id] as const),
      ...Object.keys(faults?.clockOffsetMillis ?? {}).map((id) => ['clockOffsetMillis', id] as const),
    ];
    for (const [hook, logicalId] of named) {
      if (!this.host.find(logicalId)) {
        throw new Error(`faults.${hook} names ${logicalId}, which is not a function the runtime runs`);
      }
    }
  }
}

/** Where the Node.js Lambda runtime's own AWS SDK v3 comes from locally (bundles mark it external). */
function runtimeModulesDirectory(): string {
  const sdkEntry = require.resolve('@aws-sdk/client-dynamodb');
  const marker = `${join('node_modules', '@aws-sdk')}`;
  return sdkEntry.slice(0, sdkEntry.indexOf(marker) + 'node_modules'.length);
}

/**
 * What a function's sandbox environment starts from (the host's own environment is not inherited):
 * the credentials are a session of its execution role, so every call it makes is authorized as the
 * role's (../iam).
 */
function functionBaseEnvironment(
  context: RuntimeContext,
  roleArn: string,
  functionName: string,
): Record<string, string> {
  return sandboxBaseVariables(context.region, context.iam.credentials.roleSession(roleArn, functionName));
}

/**
 * What every sandbox has besides its endpoints: region, credentials (the function's: its role's
 * session, with its token, as Lambda sets them), X-Ray, the runtime's own SDK.
 */
export function sandboxBaseVariables(
  region: string,
  credentials: {
    readonly accessKeyId: string;
    readonly secretAccessKey: string;
    readonly sessionToken?: string;
  },
): Record<string, string> {
  return {
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    ...(credentials.sessionToken === undefined ? {} : { AWS_SESSION_TOKEN: credentials.sessionToken }),
    AWS_NODEJS_CONNECTION_REUSE_ENABLED: '1',
    AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
    AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000',
    NODE_PATH: runtimeModulesDirectory(),
  };
}

function functionOutputSink(
  directory: string | undefined,
): ((spec: LambdaFunctionSpec, text: string) => void) | undefined {
  if (!directory) return undefined;
  mkdirSync(directory, { recursive: true });
  return (spec, text) => appendFileSync(join(directory, `${spec.functionName}.log`), text);
}

/** What Lambda sets in a function's execution environment (reserved variables), as played locally. */
export function lambdaReservedVariables(fn: {
  readonly functionName: string;
  readonly memorySizeMb: number;
  /** The template's Runtime, e.g. `nodejs22.x`. */
  readonly runtime: string;
  readonly codeDirectory: string;
  /** `<file>.<export>`. */
  readonly handler: string;
}): Record<string, string> {
  return {
    AWS_LAMBDA_FUNCTION_NAME: fn.functionName,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memorySizeMb),
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.functionName}`,
    AWS_LAMBDA_LOG_STREAM_NAME: 'local/[$LATEST]local',
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    LAMBDA_TASK_ROOT: fn.codeDirectory,
    _HANDLER: fn.handler,
  };
}

/** The function's spec, or why it cannot run locally. */
function functionSpec(
  context: StackContext,
  logicalId: string,
  retriesByFunction: ReadonlyMap<string, number>,
): LambdaFunctionSpec | string {
  const { resolver } = context;
  const resource = resolver.stack.template.Resources?.[logicalId];
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
  const assetPath = asString(resource?.Metadata?.['aws:asset:path']);
  const fromManifest = resolver.stack.fileAssets.get(asString(code.S3Key) ?? '');
  let codeDirectory: string;
  if (assetPath || fromManifest) {
    codeDirectory = assetPath ? resolvePath(context.assembly.directory, assetPath) : (fromManifest as string);
    if (!existsSync(codeDirectory)) return `its asset ${codeDirectory} is missing (synthesize again)`;
  } else if (typeof code.ZipFile === 'string') {
    const inline = mkdtempSync(join(tmpdir(), `local-runtime-${logicalId}-`));
    writeFileSync(join(inline, `${handler.slice(0, handler.lastIndexOf('.'))}.js`), code.ZipFile);
    context.onStop(() => rmSync(inline, { recursive: true, force: true }));
    codeDirectory = inline;
  } else {
    return 'its code is neither a local asset nor inline (ZipFile)';
  }
  const functionName = resolver.physicalName(logicalId);
  const roleArn = asString(properties.Role);
  if (!roleArn) return 'no Role (an execution role ARN)';
  const memorySizeMb = asNumber(properties.MemorySize) ?? 128;
  const reserved = asNumber(properties.ReservedConcurrentExecutions);
  if (reserved === 0) return 'reserved concurrency 0: the function is throttled';
  const environment: Record<string, string> = {};
  for (const [key, value] of Object.entries(asRecord(asRecord(properties.Environment).Variables))) {
    environment[key] = String(value);
  }
  // Every service without a local endpoint answers with an error naming it: nothing reaches AWS.
  // A metered DynamoDB's endpoint names the function (the caller of its calls).
  Object.assign(
    environment,
    functionBaseEnvironment(context, roleArn, functionName),
    context.endpoints.functionEnvironment(functionName),
    lambdaReservedVariables({ functionName, memorySizeMb, runtime, codeDirectory, handler }),
  );
  const clockOffsetMillis = context.options.faults?.clockOffsetMillis?.[logicalId];
  return {
    logicalId,
    functionName,
    functionArn: String(resolver.context.getAtt(logicalId, 'Arn')),
    roleArn,
    codeDirectory,
    handler,
    environment,
    timeoutSeconds: asNumber(properties.Timeout) ?? 3,
    memorySizeMb,
    maxConcurrency: reserved ?? context.options.defaultFunctionConcurrency ?? DEFAULT_FUNCTION_CONCURRENCY,
    asyncRetryAttempts: retriesByFunction.get(functionName) ?? 2,
    ...(clockOffsetMillis ? { clockOffsetMillis } : {}),
  };
}

/** Fault hook functionReplicas: extra copies of a function, fed by the same event sources and rules. */
function replicasOf(spec: LambdaFunctionSpec, context: RuntimeContext): LambdaFunctionSpec[] {
  const faults = context.options.faults;
  const count = faults?.functionReplicas?.[spec.logicalId] ?? 0;
  return Array.from({ length: count }, (_, index): LambdaFunctionSpec => {
    const suffix = replicaSuffix(index + 1);
    const logicalId = `${spec.logicalId}${suffix}`;
    const functionName = `${spec.functionName}-${suffix}`;
    const clockOffsetMillis = faults?.clockOffsetMillis?.[logicalId] ?? spec.clockOffsetMillis;
    return {
      ...spec,
      logicalId,
      functionName,
      functionArn: `${spec.functionArn}-${suffix}`,
      replicaOf: spec.logicalId,
      environment: {
        ...spec.environment,
        ...(spec.roleArn ? functionBaseEnvironment(context, spec.roleArn, functionName) : {}),
        ...context.endpoints.functionEnvironment(functionName),
        AWS_LAMBDA_FUNCTION_NAME: functionName,
      },
      ...(clockOffsetMillis ? { clockOffsetMillis } : {}),
    };
  });
}
