import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { App, Duration } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { Asset } from 'aws-cdk-lib/aws-s3-assets';
import { HandlerBundles } from '../../../lib/platform/handler-bundles';
import { LambdaFunction, type LambdaFunctionProps } from '../../../lib/platform/lambda-function';
import { testOutdir } from '../../support/cdk-outdir';
import { PROBE_DATA_SETTINGS, probeStack, testApp } from '../support/synth';

const valid: LambdaFunctionProps = {
  handler: 'scheduler-agent-supervisor/handlers/get-order',
  metricsNamespace: 'SchedulerAgentSupervisor',
  description: 'probe',
  serviceName: 'probe',
};

const build = (overrides: Partial<LambdaFunctionProps>) => {
  const stack = probeStack(testApp(), 'Probe', { retainData: false, logRetentionDays: 14 });
  const fn = new LambdaFunction(stack, 'Fn', { ...valid, ...overrides });
  return { stack, fn };
};

describe('LambdaFunction', () => {
  it('holds every default: runtime, arm64, tracing, log group, env, role without managed policies', () => {
    const { stack } = build({ environment: { STATE_TABLE_NAME: 't' } });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      TracingConfig: { Mode: 'Active' },
      MemorySize: 256,
      Timeout: 10,
      Handler: 'index.handler',
      Environment: {
        Variables: {
          STATE_TABLE_NAME: 't',
          POWERTOOLS_SERVICE_NAME: 'probe',
          POWERTOOLS_METRICS_NAMESPACE: 'SchedulerAgentSupervisor',
          NODE_OPTIONS: '--enable-source-maps',
        },
      },
    });
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 14 });
    const roles = Object.values(template.findResources('AWS::IAM::Role'));
    expect(roles).toHaveLength(1);
    expect(roles[0]?.Properties.ManagedPolicyArns).toBeUndefined();
  });

  it('traces nothing where the stack does not trace: no TracingConfig, no X-Ray grant, Tracer off', () => {
    const stack = probeStack(testApp(), 'Probe', { ...PROBE_DATA_SETTINGS, tracing: false });
    new LambdaFunction(stack, 'Fn', valid);
    const template = Template.fromStack(stack);
    const [fn] = Object.values(template.findResources('AWS::Lambda::Function'));
    expect(fn?.Properties.TracingConfig).toBeUndefined();
    expect(fn?.Properties.Environment.Variables).toMatchObject({ POWERTOOLS_TRACE_ENABLED: 'false' });
    const policies = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    expect(policies).not.toContain('xray:');
    // And where it traces, Powertools follows Lambda's environment: the variable is not set.
    const traced = Template.fromStack(build({}).stack);
    const [tracedFn] = Object.values(traced.findResources('AWS::Lambda::Function'));
    expect(tracedFn?.Properties.Environment.Variables.POWERTOOLS_TRACE_ENABLED).toBeUndefined();
    expect(JSON.stringify(traced.findResources('AWS::IAM::Policy'))).toContain('xray:PutTraceSegments');
  });

  it.each([
    [
      'environment overrides the Tracer switch',
      { environment: { POWERTOOLS_TRACE_ENABLED: 'true' } },
      /environment may not set POWERTOOLS_TRACE_ENABLED/,
    ],
    [
      'timeout is under 3 s',
      { timeout: Duration.seconds(2) },
      /timeout must be a whole number of seconds from 3 to 900, got 2/,
    ],
    ['timeout is over 900 s', { timeout: Duration.minutes(16) }, /timeout must be .* got 960/],
    [
      'memory is out of range',
      { memorySize: 64 },
      /memorySize must be an integer from 128 to 10240 MB, got 64/,
    ],
    [
      'a long timeout runs on minimum memory',
      { timeout: Duration.seconds(120), memorySize: 128 },
      /memorySize 128 MB is too small for a 120 s timeout/,
    ],
    [
      'environment overrides a managed key',
      { environment: { NODE_OPTIONS: '' } },
      /environment may not set NODE_OPTIONS/,
    ],
    [
      'handler is not a path under lambdas/',
      { handler: '../x' },
      /handler '..\/x' must be a path of kebab-case names under lambdas\//,
    ],
    [
      'handler names no file',
      { handler: 'scheduler-agent-supervisor/handlers/no-such-handler' },
      /handler 'scheduler-agent-supervisor\/handlers\/no-such-handler' names no file/,
    ],
    [
      'metrics namespace is not a CloudWatch namespace',
      { metricsNamespace: 'has spaces' },
      /metricsNamespace 'has spaces' is not a CloudWatch namespace/,
    ],
    [
      'reserved concurrency is zero',
      { reservedConcurrentExecutions: 0 },
      /reservedConcurrentExecutions must be a positive integer/,
    ],
  ])('fails when %s, naming the construct', (_case, overrides, message) => {
    expect(() => build(overrides)).toThrow(message);
    expect(() => build(overrides)).toThrow(/^LambdaFunction Probe\/Fn: /);
  });

  describe('bundling', () => {
    const projectRoot = resolve(__dirname, '../../..');

    it('builds nothing where the stack skips bundling', () => {
      build({});
      expect(HandlerBundles.of(projectRoot).builds).toBe(0);
    });

    it('gives each function its own handler, from one build of them all', () => {
      // Bundling on (no aws:cdk:bundling-stacks): what cdk synth and cdk deploy do.
      const app = new App({ outdir: testOutdir(), builtinCloudFormationValidation: false });
      const stack = probeStack(app, 'Probe', PROBE_DATA_SETTINGS);
      // Two handlers of one directory: CDK's asset cache must not take one for the other.
      const getOrder = new LambdaFunction(stack, 'GetOrder', valid);
      const submitOrder = new LambdaFunction(stack, 'SubmitOrder', {
        ...valid,
        handler: 'scheduler-agent-supervisor/handlers/submit-order',
      });
      const template = Template.fromStack(stack);
      const keys = Object.values(template.findResources('AWS::Lambda::Function')).map(
        (resource) => (resource.Properties.Code as { S3Key: unknown }).S3Key,
      );

      expect(new Set(keys).size).toBe(2);
      expect(HandlerBundles.of(projectRoot).builds).toBe(1);
      for (const [fn, entry] of [
        [getOrder, 'lambdas/scheduler-agent-supervisor/handlers/get-order.ts'],
        [submitOrder, 'lambdas/scheduler-agent-supervisor/handlers/submit-order.ts'],
      ] as const) {
        const asset = fn.function.node.findChild('Code') as Asset;
        const map = JSON.parse(readFileSync(join(app.outdir, asset.assetPath, 'index.js.map'), 'utf8'));
        expect(map.sources).toContain(entry);
      }
    });
  });
});
