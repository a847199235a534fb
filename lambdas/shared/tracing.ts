/**
 * The tracer of a handler module, and the X-Ray machinery loaded only where it is used.
 *
 * Powertools' Tracer imports the X-Ray SDK (aws-xray-sdk-core, its context store and patchers) at
 * load, whether tracing is on or not: about a tenth of a function's cold init (bench figure
 * `functions` times each function both ways). So the Tracer is required only where tracing is on, decided by Powertools' own rule
 * (tracingEnabledIn); where it is off (the local profile, whose functions set
 * POWERTOOLS_TRACE_ENABLED=false because the local runtime has no X-Ray; tests that import
 * handlers directly), the module gets an untraced tracer that touches no X-Ray API, exactly as
 * Powertools' Tracer does when disabled: clients are returned uninstrumented, annotations and
 * errors go nowhere, work runs outside any subsegment.
 */
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { PowertoolsEnvKey } from './env';

/** What the handlers use of a tracer (observability's helpers and the SDK client factories). */
export type HandlerTracer = Pick<
  Tracer,
  | 'isTracingEnabled'
  | 'captureAWSv3Client'
  | 'putAnnotation'
  | 'annotateColdStart'
  | 'addServiceNameAnnotation'
  | 'addErrorAsMetadata'
> & {
  readonly provider: Pick<Tracer['provider'], 'captureAsyncFunc'>;
};

/** Powertools' Tracer turns itself off under Amplify's mock runtime as well. */
const AMPLIFY_MOCK_EXECUTION_ENV = 'AWS_Lambda_amplify-mock';

/**
 * Powertools' rule (Tracer.setTracingEnabled, 2.x): on in a Lambda execution environment
 * (AWS_EXECUTION_ENV set, not Amplify's mock, not SAM CLI's AWS_SAM_LOCAL) unless
 * POWERTOOLS_TRACE_ENABLED is `false` (any case, trimmed). A unit test holds it to the Tracer's own
 * answer, so a Powertools upgrade that changes the rule fails there.
 */
export function tracingEnabledIn(env: NodeJS.ProcessEnv): boolean {
  const value = (key: string) => (env[key] ?? '').trim();
  if (value(PowertoolsEnvKey.TraceEnabled).toLowerCase() === 'false') return false;
  const executionEnv = value('AWS_EXECUTION_ENV');
  return executionEnv !== '' && executionEnv !== AMPLIFY_MOCK_EXECUTION_ENV && value('AWS_SAM_LOCAL') === '';
}

/**
 * Powertools' Tracer where tracing is on (it then reads the same environment, patches http/https
 * and fetch, and instruments the clients), the untraced tracer where it is off.
 */
export function createTracer(serviceName: string, env: NodeJS.ProcessEnv = process.env): HandlerTracer {
  if (!tracingEnabledIn(env)) return UNTRACED;
  // A require, not an import: esbuild keeps a bundled module that is required inside a function
  // unevaluated until the call, so the X-Ray SDK is compiled and run only on this path.
  const { Tracer: PowertoolsTracer } =
    require('@aws-lambda-powertools/tracer') as typeof import('@aws-lambda-powertools/tracer');
  return new PowertoolsTracer({ serviceName });
}

/** Powertools' disabled Tracer, method for method, without loading it. */
const UNTRACED: HandlerTracer = {
  isTracingEnabled: () => false,
  captureAWSv3Client: (client) => client,
  putAnnotation: () => undefined,
  annotateColdStart: () => undefined,
  addServiceNameAnnotation: () => undefined,
  addErrorAsMetadata: () => undefined,
  provider: { captureAsyncFunc: (_name, work) => work() },
};
