/**
 * Lambda functions: the host running each function's bundled asset in worker-thread sandboxes,
 * one spec per AWS::Lambda::Function (environment resolved locally, reserved concurrency, timeout,
 * EventInvokeConfig retries), asynchronous deliveries to function ARNs, and the fault hooks that
 * act on functions (extra copies, clock offsets).
 *
 * Who may invoke a function is IAM's question, asked here for every caller: each function's
 * permissions (AWS::Lambda::Permission) are its resource-based policy (../lambda/permissions.ts),
 * and authorizeServiceInvoke (a service delivering on a resource's behalf: API Gateway, SNS,
 * EventBridge), authorizeInvoke (a caller with credentials: a state machine's role) and
 * authorizeUrlInvoke (a function URL's caller) evaluate it with the caller's identity policies.
 * A function's output reaches CloudWatch Logs, and so its Embedded Metric Format lines become
 * metrics, only if its role may write its log group, as on AWS.
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { replicaSuffix } from '../fault-hooks';
import { accountOfArn } from '../iam/arn';
import type { Verdict } from '../iam/authorizer';
import { type CompiledPolicy, compilePolicy } from '../iam/policy-document';
import { PolicyDocumentError } from '../iam/policy-document-error';
import { type Principal, roleSessionPrincipal, servicePrincipal } from '../iam/principals';
import { LambdaAccessDeniedError } from '../lambda/errors';
import { type InvocationResult, type LambdaFunctionSpec, LambdaHost } from '../lambda/host';
import { permissionStatement } from '../lambda/permissions';
import type { ListenContext, Provisioner, RuntimeContext, StackContext } from '../provisioning';
import { arnName, asNumber, asRecord, asString } from './values';

const FUNCTION = 'AWS::Lambda::Function';
const PERMISSION = 'AWS::Lambda::Permission';
/** The log stream every local sandbox writes (AWS_LAMBDA_LOG_STREAM_NAME). */
const LOG_STREAM_NAME = 'local/[$LATEST]local';

/** A delivery by a service on a resource's behalf (API Gateway's method, SNS's topic, a rule). */
export interface ServiceInvokeRequest {
  /** The service principal, e.g. `apigateway.amazonaws.com`. */
  readonly service: string;
  readonly functionArn: string;
  /** The resource the service acts for (`aws:SourceArn`). @default - none */
  readonly sourceArn?: string;
  /** `aws:SourceAccount`. @default - the account of sourceArn */
  readonly sourceAccount?: string;
}

/** Hears of an invocation's end: its function, result and duration in milliseconds. */
export type InvocationEndListener = (
  spec: LambdaFunctionSpec,
  result: InvocationResult,
  durationMillis: number,
) => void;
/** Hears of a batch a stream event source mapping sends a function: the age of its last record. */
export type IteratorAgeListener = (functionName: string, iteratorAgeMillis: number) => void;
const EVENT_INVOKE_CONFIG = 'AWS::Lambda::EventInvokeConfig';
const DEFAULT_FUNCTION_CONCURRENCY = 4;

export class LambdaProvisioner implements Provisioner {
  readonly name = 'Lambda';
  readonly resourceTypes = {
    runs: [FUNCTION, EVENT_INVOKE_CONFIG, PERMISSION],
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
  private readonly iteratorAgeListeners: IteratorAgeListener[] = [];
  /** Each function's role and where it was declared, checked once IAM has read every stack. */
  private readonly roles: Array<{ readonly where: string; readonly roleArn: string }> = [];
  /** Each function's permissions as statements, by the function's ARN (compiled at start). */
  private readonly permissions = new Map<string, { where: string; statements: unknown[] }>();
  /** Each function's resource-based policy, by its ARN. */
  private readonly policies = new Map<string, CompiledPolicy>();
  /** Whether each function may write its log group (asked once, at its first line), by name. */
  private readonly logWrites = new Map<string, boolean>();
  private runtime: RuntimeContext | undefined;

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

  /** `listener` hears of every batch a stream event source mapping sends (AWS/Lambda IteratorAge). */
  onIteratorAge(listener: IteratorAgeListener): void {
    this.iteratorAgeListeners.push(listener);
  }

  /** A stream event source mapping sends `functionName` a batch whose last record is this old. */
  iteratorAge(functionName: string, iteratorAgeMillis: number): void {
    for (const listener of this.iteratorAgeListeners) listener(functionName, iteratorAgeMillis);
  }

  /** `listener` reads every line every function writes (register before functions run). */
  onOutputLine(listener: (spec: LambdaFunctionSpec, line: string) => void): void {
    this.outputLineListeners.push(listener);
  }

  async listen(context: ListenContext): Promise<void> {
    this.runtime = context;
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
        // What a function's role may not write to its log group never reaches CloudWatch Logs.
        if (!this.writesLogs(spec)) return;
        for (const listener of listeners) listener(spec, line);
      },
      asyncRetryDelaysMillis: context.options.asyncRetryDelaysMillis,
      clock: context.clock,
      onOutput: functionOutputSink(context.options.functionLogDir),
      onError: (spec, error) =>
        context.problem(`function ${spec.logicalId} failed: ${error.errorType}: ${error.errorMessage}`),
    });
    this.lambdaHost = host;
    context.stopWith(host, 'functions');
    context.deliveries.register('lambda', async (functionArn, message, options) => {
      const deliveredAs = options.deliveredAs;
      if (deliveredAs) {
        const verdict =
          deliveredAs.kind === 'service'
            ? this.authorizeServiceInvoke({
                service: deliveredAs.service,
                functionArn,
                sourceArn: deliveredAs.sourceArn,
              })
            : this.authorizeInvoke(roleSessionPrincipal(deliveredAs.roleArn, 'delivery'), functionArn);
        // The delivering service sees Lambda's AccessDeniedException and treats it as a failed
        // delivery (EventBridge retries, then its dead-letter queue).
        if (!verdict.allowed) throw new LambdaAccessDeniedError(verdict.message);
      }
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

  /**
   * Every permission of the stack becomes a statement of its function's policy. In the wire phase:
   * a permission may name a function of a stack provisioned after its own.
   */
  async wire(context: StackContext): Promise<void> {
    const problems: string[] = [];
    for (const [logicalId] of context.ofType(PERMISSION)) {
      const properties = context.resolver.properties(logicalId);
      const where = `${context.stack.stackName}/${logicalId}`;
      const spec = this.host.find(String(properties.FunctionName ?? ''));
      if (!spec) {
        context.named(
          logicalId,
          PERMISSION,
          `its function ${String(properties.FunctionName)} does not run locally`,
        );
        continue;
      }
      const built = permissionStatement(logicalId, spec.functionArn, properties);
      if (!built.ok) {
        problems.push(`${where}: ${built.problem}`);
        continue;
      }
      const entry = this.permissions.get(spec.functionArn) ?? {
        where: `${context.stack.stackName}/${spec.logicalId}`,
        statements: [],
      };
      entry.statements.push(built.statement);
      this.permissions.set(spec.functionArn, entry);
    }
    if (problems.length > 0) {
      throw new Error(`Lambda permissions the local account cannot evaluate:\n  ${problems.join('\n  ')}`);
    }
  }

  async start(context: RuntimeContext): Promise<void> {
    const problems: string[] = [];
    for (const [functionArn, { where, statements }] of this.permissions) {
      try {
        this.policies.set(
          functionArn,
          compilePolicy(`${where} resource policy`, 'resource', {
            Version: '2012-10-17',
            Statement: statements,
          }),
        );
      } catch (error) {
        if (!(error instanceof PolicyDocumentError)) throw error;
        problems.push(error.message);
      }
    }
    if (problems.length > 0) {
      throw new Error(`Lambda permissions the local account cannot evaluate:\n  ${problems.join('\n  ')}`);
    }
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

  /** The function's resource-based policy (its permissions), if it has any. */
  resourcePolicyOf(functionArn: string): CompiledPolicy | undefined {
    return this.policies.get(this.unreplicated(functionArn));
  }

  /**
   * May `service` invoke the function on behalf of `sourceArn` (API Gateway for a method, SNS for a
   * topic, EventBridge for a rule)? Only the function's policy can allow a service principal
   * (https://docs.aws.amazon.com/lambda/latest/dg/permissions-function-services.html).
   */
  authorizeServiceInvoke(request: ServiceInvokeRequest): Verdict {
    const sourceAccount =
      request.sourceAccount ??
      (request.sourceArn === undefined ? undefined : accountOfArn(request.sourceArn));
    return this.authorizeFunction(
      servicePrincipal(request.service),
      request.functionArn,
      'lambda:InvokeFunction',
      {
        ...(request.sourceArn === undefined ? {} : { 'aws:sourcearn': request.sourceArn }),
        ...(sourceAccount === undefined ? {} : { 'aws:sourceaccount': sourceAccount }),
      },
    );
  }

  /**
   * May a caller with credentials (a state machine's role session, a user) invoke the function?
   * Its identity policies or the function's policy may allow it, in one account
   * (https://docs.aws.amazon.com/lambda/latest/dg/access-control-resource-based.html).
   */
  authorizeInvoke(principal: Principal, functionArn: string): Verdict {
    return this.authorizeFunction(principal, functionArn, 'lambda:InvokeFunction', {});
  }

  /**
   * May `principal` (the anonymous principal for AuthType NONE) invoke the function through its URL?
   * Lambda requires lambda:InvokeFunctionUrl (with lambda:FunctionUrlAuthType) and, for function URLs
   * created since October 2025 (every local one is created at start), lambda:InvokeFunction (with
   * lambda:InvokedViaFunctionUrl): https://docs.aws.amazon.com/lambda/latest/dg/urls-auth.html.
   */
  authorizeUrlInvoke(principal: Principal, functionArn: string, authType: 'AWS_IAM' | 'NONE'): Verdict {
    const url = this.authorizeFunction(principal, functionArn, 'lambda:InvokeFunctionUrl', {
      'lambda:functionurlauthtype': authType,
    });
    if (!url.allowed) return url;
    const invoke = this.authorizeFunction(principal, functionArn, 'lambda:InvokeFunction', {
      'lambda:invokedviafunctionurl': 'true',
    });
    if (!invoke.allowed) return invoke;
    const wouldDeny = url.wouldDeny ?? invoke.wouldDeny;
    return wouldDeny === undefined ? { allowed: true } : { allowed: true, wouldDeny };
  }

  private authorizeFunction(
    principal: Principal,
    functionArn: string,
    action: string,
    context: Record<string, string>,
  ): Verdict {
    if (!this.runtime) throw new Error('The Lambda provisioner is not listening yet');
    const resource = this.unreplicated(functionArn);
    const resourcePolicy = this.policies.get(resource);
    return this.runtime.iam.authorizer.authorize({
      principal,
      action,
      resource,
      context,
      ...(resourcePolicy ? { resourcePolicy } : {}),
    });
  }

  /** A fault hook's extra copy is its function to IAM: same ARN, same policy. */
  private unreplicated(functionArn: string): string {
    const spec = this.lambdaHost?.find(functionArn);
    const original = spec?.replicaOf === undefined ? undefined : this.lambdaHost?.find(spec.replicaOf);
    return original?.functionArn ?? spec?.functionArn ?? functionArn;
  }

  /**
   * Whether the function's output reaches CloudWatch Logs: Lambda writes it with the function's
   * role, which needs logs:CreateLogStream and logs:PutLogEvents on its log group
   * (https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs.html#monitoring-cloudwatchlogs-prereqs);
   * without them there are no logs, and so no metrics from Embedded Metric Format lines. Asked at
   * the function's first line, told once.
   */
  private writesLogs(spec: LambdaFunctionSpec): boolean {
    const known = this.logWrites.get(spec.functionName);
    if (known !== undefined) return known;
    const runtime = this.runtime;
    if (!runtime || !spec.roleArn) return true;
    const principal = roleSessionPrincipal(spec.roleArn, spec.functionName);
    const logGroupName = spec.logGroupName ?? defaultLogGroupName(spec.functionName);
    const resource = `arn:aws:logs:${runtime.region}:${runtime.accountId}:log-group:${logGroupName}:log-stream:${LOG_STREAM_NAME}`;
    const verdict = runtime.iam.authorizer.authorizeAll(
      ['logs:CreateLogStream', 'logs:PutLogEvents'].map((action) => ({ principal, action, resource })),
    );
    this.logWrites.set(spec.functionName, verdict.allowed);
    if (!verdict.allowed) {
      runtime.problem(
        `function ${spec.logicalId} writes no logs to ${logGroupName} (${verdict.message}): its output never reaches CloudWatch Logs, so its Embedded Metric Format lines make no metrics`,
      );
    }
    return verdict.allowed;
  }
}

/** The log group Lambda writes to when the function names none (LoggingConfig.LogGroup). */
function defaultLogGroupName(functionName: string): string {
  return `/aws/lambda/${functionName}`;
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
  /** LoggingConfig.LogGroup. @default - `/aws/lambda/<function name>` */
  readonly logGroupName?: string;
}): Record<string, string> {
  return {
    AWS_LAMBDA_FUNCTION_NAME: fn.functionName,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memorySizeMb),
    AWS_LAMBDA_LOG_GROUP_NAME: fn.logGroupName ?? defaultLogGroupName(fn.functionName),
    AWS_LAMBDA_LOG_STREAM_NAME: LOG_STREAM_NAME,
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
  const logGroupName = asString(asRecord(properties.LoggingConfig).LogGroup);
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
    lambdaReservedVariables({
      functionName,
      memorySizeMb,
      runtime,
      codeDirectory,
      handler,
      ...(logGroupName ? { logGroupName } : {}),
    }),
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
    ...(logGroupName ? { logGroupName } : {}),
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
