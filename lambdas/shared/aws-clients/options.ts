/**
 * What every SDK client of the handlers shares. Each client has its own module here
 * (`./dynamodb`, `./sqs`, ...) because a bundle keeps every `@aws-sdk/*` import it sees: the SDK
 * is external (the Lambda runtime ships it), so esbuild cannot prove an unused import free of side
 * effects and leaves the `require` in. One module holding all six clients made every function
 * load all six SDK packages at cold start (measured by `npm run bench -- --only functions`).
 *
 * Region, credentials and endpoints come from the standard AWS_* environment variables, which is
 * also how the local runtime and the tests point the very same code at emulators. Every client is
 * captured by the module's tracer, so each AWS call shows as a subsegment of the work that made it
 * (a no-op where tracing is off). Each handler module creates its clients once, at load time, so
 * clients (and their connection pools) are reused across invocations.
 */
import type { HandlerTracer } from '../tracing';

/**
 * SDK-level attempts per call (first call included). The order's end-to-end retry budget is owned
 * by the scheduler and supervisor; SDK retries only smooth over throttling and dropped connections,
 * so they stay at the SDK's standard 3.
 */
export const SDK_MAX_ATTEMPTS = 3;

/** What instruments a client: the module's tracer (Powertools' Tracer where tracing is on). */
export type ClientTracer = Pick<HandlerTracer, 'captureAWSv3Client'>;
