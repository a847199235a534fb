/**
 * Reading the environment: the only channel between the CDK constructs (which set variables) and
 * the handlers (which read them). Each wing names its own variables in its contracts; the names
 * Powertools reads are here because the platform's function construct sets them for every wing.
 */

/** Powertools standard variables, set by the function construct (lib/platform/lambda-function.ts). */
export const PowertoolsEnvKey = {
  ServiceName: 'POWERTOOLS_SERVICE_NAME',
  MetricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
  /**
   * 'false' turns the Tracer off, and the X-Ray SDK is then not loaded (./tracing). Unset on AWS
   * (tracing follows Powertools' rule: on in a Lambda execution environment); 'false' in the local
   * profile's functions (the profile's `tracing`: the local runtime has no X-Ray) and in the tests
   * that import handlers directly, because a CI runner may itself set AWS_EXECUTION_ENV (ECS,
   * CodeBuild) and a test process has no Lambda trace context to attach segments to.
   */
  TraceEnabled: 'POWERTOOLS_TRACE_ENABLED',
} as const;

/** Reads a required environment variable, failing with the variable's name when it is missing. */
export function requireEnv(key: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[key];
  if (value === undefined || value === '') {
    throw new Error(`Missing required environment variable ${key}`);
  }
  return value;
}
