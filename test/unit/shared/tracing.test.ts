/**
 * The handler tracer: Powertools' Tracer, and with it the X-Ray SDK, loaded only where tracing is
 * on, by a rule that must stay Powertools' own. That traces are still sent where it is on is
 * observability.test.ts's "with tracing on" (a UDP socket playing the X-Ray daemon).
 */
import { Tracer } from '@aws-lambda-powertools/tracer';
import { PowertoolsEnvKey } from '../../../lambdas/shared/env';
import type * as TracingModule from '../../../lambdas/shared/tracing';
import { tracingEnabledIn } from '../../../lambdas/shared/tracing';

const savedEnv = { ...process.env };
afterEach(() => {
  process.env = { ...savedEnv };
  jest.dontMock('@aws-lambda-powertools/tracer');
});

const LAMBDA = 'AWS_Lambda_nodejs22.x';
const ENVIRONMENTS: readonly [string, Record<string, string | undefined>][] = [
  ['a Lambda execution environment', { AWS_EXECUTION_ENV: LAMBDA }],
  ['POWERTOOLS_TRACE_ENABLED=false', { AWS_EXECUTION_ENV: LAMBDA, [PowertoolsEnvKey.TraceEnabled]: 'false' }],
  [
    'POWERTOOLS_TRACE_ENABLED= FALSE ',
    { AWS_EXECUTION_ENV: LAMBDA, [PowertoolsEnvKey.TraceEnabled]: ' FALSE ' },
  ],
  ['POWERTOOLS_TRACE_ENABLED=true', { AWS_EXECUTION_ENV: LAMBDA, [PowertoolsEnvKey.TraceEnabled]: 'true' }],
  [
    'POWERTOOLS_TRACE_ENABLED=0 (not false)',
    { AWS_EXECUTION_ENV: LAMBDA, [PowertoolsEnvKey.TraceEnabled]: '0' },
  ],
  ['no AWS_EXECUTION_ENV (a test process)', { AWS_EXECUTION_ENV: undefined }],
  ['an empty AWS_EXECUTION_ENV', { AWS_EXECUTION_ENV: ' ' }],
  ["Amplify's mock runtime", { AWS_EXECUTION_ENV: 'AWS_Lambda_amplify-mock' }],
  ['SAM CLI', { AWS_EXECUTION_ENV: LAMBDA, AWS_SAM_LOCAL: 'true' }],
];

/** `env` over a process environment without any of the variables the rule reads. */
function environment(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = { ...savedEnv, POWERTOOLS_SERVICE_NAME: 'tracing-test' };
  for (const key of [PowertoolsEnvKey.TraceEnabled, 'AWS_EXECUTION_ENV', 'AWS_SAM_LOCAL']) delete result[key];
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete result[key];
    else result[key] = value;
  }
  return result;
}

describe('tracingEnabledIn', () => {
  it.each(ENVIRONMENTS)("answers as Powertools' Tracer does: %s", (_name, env) => {
    process.env = environment(env);
    const powertools = new Tracer().isTracingEnabled();
    expect(tracingEnabledIn(process.env)).toBe(powertools);
  });

  it('is on in a Lambda execution environment and off with POWERTOOLS_TRACE_ENABLED=false', () => {
    // The table above compares two answers; this pins what they must both be for the profiles.
    expect(tracingEnabledIn(environment({ AWS_EXECUTION_ENV: LAMBDA }))).toBe(true);
    expect(
      tracingEnabledIn(environment({ AWS_EXECUTION_ENV: LAMBDA, [PowertoolsEnvKey.TraceEnabled]: 'false' })),
    ).toBe(false);
  });
});

describe('createTracer', () => {
  /** The module, loaded fresh with `env`, where requiring Powertools' Tracer fails loudly. */
  function loadWithoutTracer(env: Record<string, string | undefined>): typeof TracingModule {
    process.env = environment(env);
    let loaded: typeof TracingModule | undefined;
    jest.isolateModules(() => {
      jest.doMock('@aws-lambda-powertools/tracer', () => {
        throw new Error("Powertools' Tracer (and the X-Ray SDK) was loaded");
      });
      loaded = require('../../../lambdas/shared/tracing');
    });
    if (!loaded) throw new Error('tracing module did not load');
    return loaded;
  }

  it('does not load the X-Ray machinery where tracing is off, and traces nothing', async () => {
    const { createTracer } = loadWithoutTracer({
      AWS_EXECUTION_ENV: LAMBDA,
      [PowertoolsEnvKey.TraceEnabled]: 'false',
    });
    const tracer = createTracer('tracing-test');
    expect(tracer.isTracingEnabled()).toBe(false);
    const client = { send: () => 'sent' };
    expect(tracer.captureAWSv3Client(client)).toBe(client);
    await expect(tracer.provider.captureAsyncFunc('### work', async () => 'done')).resolves.toBe('done');
    expect(() => {
      tracer.putAnnotation('orderId', 'o-1');
      tracer.annotateColdStart();
      tracer.addServiceNameAnnotation();
      tracer.addErrorAsMetadata(new Error('boom'));
    }).not.toThrow();
  });

  it("loads Powertools' Tracer where tracing is on", () => {
    const { createTracer } = loadWithoutTracer({ AWS_EXECUTION_ENV: LAMBDA });
    expect(() => createTracer('tracing-test')).toThrow("Powertools' Tracer (and the X-Ray SDK) was loaded");
  });

  it('decides by the environment it is given', () => {
    const { createTracer } = loadWithoutTracer({ AWS_EXECUTION_ENV: LAMBDA });
    const off = environment({ AWS_EXECUTION_ENV: LAMBDA, [PowertoolsEnvKey.TraceEnabled]: 'false' });
    expect(createTracer('tracing-test', off).isTracingEnabled()).toBe(false);
  });
});
