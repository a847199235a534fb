/**
 * The embedded local runtime (npm start): runs any synthesized cloud assembly on local emulators.
 * See runtime.ts and provisioners/ for what it runs, and README.md here for usage.
 */

export { readCloudAssembly } from './assembly/cloud-assembly';
export {
  PROJECT_ROOT,
  SYNTH_CACHE_DIR,
  SYNTH_CACHE_ENV,
  type SynthesisOutcome,
  type SynthesizeOptions,
  synthesizeLocalAssembly,
} from './assembly/synthesize';
export {
  ACTIVITY_HEADER,
  admitted,
  asActivity,
  CLOCK_MODES,
  CLOCK_NOW_HEADER,
  type ClockActivity,
  type ClockMode,
  clockModeOf,
  createClock,
  hashString,
  holdDuringCalls,
  mulberry32,
  type Random,
  type RuntimeClock,
  SEEDED_START_MILLIS,
  VirtualClock,
  type VirtualClockOptions,
  WallClock,
} from './clock';
export type {
  FaultHooks,
  HttpInterceptor,
  InterceptedReply,
  InterceptedRequest,
  SqsDelivery,
} from './fault-hooks';
export type { InvocationResult, InvocationStart, LambdaFunctionSpec } from './lambda/host';
export {
  type ApiUsage,
  BILLING_CHUNK_BYTES,
  type Billed,
  type BusUsage,
  billedChunks,
  type CapacityUse,
  CLOUDWATCH_ALARM_DELIVERY,
  deliveredVia,
  EVENTBRIDGE_DELIVERY,
  type FunctionUsage,
  gbSeconds,
  isCausedBy,
  type MeteredResource,
  PUBLISHED_BY_API,
  type QueueUsage,
  type RuntimeUsage,
  STEP_FUNCTIONS_CALLER,
  type StateMachineUsage,
  type TableUsage,
  type TopicUsage,
  usageSince,
} from './metering';
export { crossSiteReason, isLoopbackHost, listen as listenOnLoopback } from './protocol/http-server';
export { OPERATOR_IDENTITY } from './provisioners/api-gateway';
export { startLocalRuntime } from './runtime';
export type {
  LocalRuntime,
  LocalRuntimeObserver,
  LocalRuntimeOptions,
  LocalUserSpec,
  ObservedRuntime,
  UnsupportedResource,
} from './runtime-options';
export { DEFAULT_LOCAL_REGION } from './runtime-options';
export {
  DEFAULT_TARGET_FILE,
  defaultTargetFile,
  type LocalApi,
  type LocalServiceName,
  type LocalTarget,
  outputsOfStack,
  readTarget,
  TARGET_FILE_ENV,
} from './target';
