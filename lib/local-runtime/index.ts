/**
 * The embedded local runtime (npm start): runs the app's synthesized cloud assembly on local
 * emulators. See runtime.ts for what it runs and README "Local runtime" for usage.
 */

export type {
  FaultHooks,
  HttpInterceptor,
  InterceptedReply,
  InterceptedRequest,
  SqsDelivery,
} from './fault-hooks';
export type { InvocationResult, InvocationStart, LambdaFunctionSpec } from './lambda-host';
export {
  type LocalRuntime,
  type LocalRuntimeOptions,
  startLocalRuntime,
  type UnsupportedResource,
} from './runtime';
export { PROJECT_ROOT, type SynthesizeOptions, synthesizeLocalAssembly } from './synthesize';
export { DEFAULT_TARGET_FILE, type LocalTarget, readTarget } from './target';
