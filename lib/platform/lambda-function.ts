import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { AssetHashType, Duration, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { PowertoolsEnvKey } from '../../lambdas/shared/env';
import { DataSettings } from './data-settings';
import { HandlerBundles } from './handler-bundles';
import { ScopedRole } from './scoped-role';

/** Repository root: handler entries are resolved from here, not from the caller's cwd. */
const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

/** `wing/handlers/name`: kebab-case segments, no `..`, no extension. */
const HANDLER_PATTERN = /^[a-z0-9][a-z0-9-]*(\/[a-z0-9][a-z0-9-]*)*$/;

function handlerEntry(handler: string): string {
  return path.join(PROJECT_ROOT, 'lambdas', `${handler}.ts`);
}

/** Variables this construct owns; callers may not override them. */
const MANAGED_ENVIRONMENT_KEYS: readonly string[] = [
  PowertoolsEnvKey.ServiceName,
  PowertoolsEnvKey.MetricsNamespace,
  PowertoolsEnvKey.TraceEnabled,
  'NODE_OPTIONS',
];

/**
 * Below this, the first (cold) invocation of a bundled handler that creates SDK clients and
 * Powertools utilities at module load can time out before it does any work.
 */
const MIN_TIMEOUT_SECONDS = 3;
/** Lambda's own limits. */
const MAX_TIMEOUT_SECONDS = 900;
const MIN_MEMORY_MB = 128;
const MAX_MEMORY_MB = 10_240;
/**
 * CPU scales with memory: a long-running function starved at the minimum memory spends its
 * timeout on CPU, not on I/O. Functions allowed to run longer than this need more than the minimum.
 */
const LONG_RUNNING_SECONDS = 60;

export interface LambdaFunctionProps {
  /**
   * Handler module under `lambdas/`, without extension, exporting `handler`
   * (e.g. `scheduler-agent-supervisor/handlers/submit-order`).
   */
  readonly handler: string;
  /** What the function does, shown in the console. */
  readonly description: string;
  /** POWERTOOLS_SERVICE_NAME: the `service` key of every log line and metric. */
  readonly serviceName: string;
  /** POWERTOOLS_METRICS_NAMESPACE: the CloudWatch namespace of the function's custom metrics (one per wing). */
  readonly metricsNamespace: string;
  /**
   * Handler-specific environment (EnvKey names). Keys managed by this construct are rejected.
   * @default - none
   */
  readonly environment?: Readonly<Record<string, string>>;
  /** @default Duration.seconds(10) */
  readonly timeout?: Duration;
  /** @default 256 */
  readonly memorySize?: number;
  /** @default - no reservation (account concurrency) */
  readonly reservedConcurrentExecutions?: number;
}

/**
 * THE Lambda function of this application: every runtime default lives here (Node.js 22 on
 * Graviton, active tracing where the stack's DataSettings trace (else none, and
 * POWERTOOLS_TRACE_ENABLED=false so the handler loads no X-Ray SDK), an explicit log group with
 * retention, a role with no managed policy,
 * one local esbuild build of all handlers with source maps, Powertools environment), so no handler
 * differs from another by accident.
 */
export class LambdaFunction extends Construct {
  readonly function: lambda.Function;
  readonly logGroup: logs.LogGroup;
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: LambdaFunctionProps) {
    super(scope, id);
    const timeout = props.timeout ?? Duration.seconds(10);
    const memorySize = props.memorySize ?? 256;
    validateProps(this.node.path, props, timeout, memorySize);
    const { tracing } = DataSettings.of(this);

    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      retention: DataSettings.of(this).logRetention,
      removalPolicy: DataSettings.of(this).removalPolicy,
    });

    // An explicit role instead of AWSLambdaBasicExecutionRole: it may write to its own log group only.
    // A ScopedRole: active tracing's X-Ray statement (no resource-level permissions) goes to a
    // policy of its own, acknowledged there only; any other wildcard on this role fails cdk-nag.
    this.role = new ScopedRole(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${props.handler}`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new lambda.Function(this, 'Function', {
      // Bundled with every other handler in one esbuild build (HandlerBundles, options in
      // handler-bundling.ts) instead of NodejsFunction's esbuild process per function; CDK hashes
      // and stages the output as it did NodejsFunction's.
      code: lambda.Code.fromAsset(path.dirname(handlerEntry(props.handler)), {
        assetHashType: AssetHashType.OUTPUT,
        bundling: {
          image: lambda.Runtime.NODEJS_22_X.bundlingImage,
          local: HandlerBundles.of(PROJECT_ROOT).localBundling(props.handler),
        },
      }),
      handler: 'index.handler',
      description: props.description,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      // Without tracing the function gets no X-Ray permission either (the CDK adds it with ACTIVE).
      tracing: tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      memorySize,
      timeout,
      role: this.role,
      logGroup: this.logGroup,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      environment: {
        ...props.environment,
        [PowertoolsEnvKey.ServiceName]: props.serviceName,
        [PowertoolsEnvKey.MetricsNamespace]: props.metricsNamespace,
        ...(tracing ? {} : { [PowertoolsEnvKey.TraceEnabled]: 'false' }),
        NODE_OPTIONS: '--enable-source-maps',
      },
    });

    Validations.of(this.function).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'The project targets nodejs22.x (the runtime its handlers are built and tested for).',
    });
  }
}

function validateProps(
  where: string,
  props: LambdaFunctionProps,
  timeout: Duration,
  memorySize: number,
): void {
  const problems: string[] = [];
  if (!HANDLER_PATTERN.test(props.handler)) {
    problems.push(
      `handler '${props.handler}' must be a path of kebab-case names under lambdas/ without extension`,
    );
  } else if (!existsSync(handlerEntry(props.handler))) {
    problems.push(`handler '${props.handler}' names no file: ${handlerEntry(props.handler)} does not exist`);
  }
  if (!/^[A-Za-z0-9._/#:-]{1,255}$/.test(props.metricsNamespace)) {
    problems.push(`metricsNamespace '${props.metricsNamespace}' is not a CloudWatch namespace`);
  }
  const seconds = timeout.toSeconds();
  if (!Number.isInteger(seconds) || seconds < MIN_TIMEOUT_SECONDS || seconds > MAX_TIMEOUT_SECONDS) {
    problems.push(
      `timeout must be a whole number of seconds from ${MIN_TIMEOUT_SECONDS} to ${MAX_TIMEOUT_SECONDS}, got ${seconds}`,
    );
  }
  if (!Number.isInteger(memorySize) || memorySize < MIN_MEMORY_MB || memorySize > MAX_MEMORY_MB) {
    problems.push(
      `memorySize must be an integer from ${MIN_MEMORY_MB} to ${MAX_MEMORY_MB} MB, got ${memorySize}`,
    );
  } else if (seconds > LONG_RUNNING_SECONDS && memorySize <= MIN_MEMORY_MB) {
    problems.push(
      `memorySize ${memorySize} MB is too small for a ${seconds} s timeout: functions running longer than ${LONG_RUNNING_SECONDS} s need more than ${MIN_MEMORY_MB} MB (CPU scales with memory)`,
    );
  }
  const overridden = Object.keys(props.environment ?? {}).filter((key) =>
    MANAGED_ENVIRONMENT_KEYS.includes(key),
  );
  if (overridden.length > 0) {
    problems.push(`environment may not set ${overridden.join(', ')} (managed by LambdaFunction)`);
  }
  if (props.reservedConcurrentExecutions !== undefined) {
    const reserved = props.reservedConcurrentExecutions;
    if (!Number.isInteger(reserved) || reserved < 1) {
      problems.push(`reservedConcurrentExecutions must be a positive integer, got ${reserved}`);
    }
  }
  if (problems.length > 0) {
    throw new Error(`LambdaFunction ${where}: ${problems.join('; ')}`);
  }
}
