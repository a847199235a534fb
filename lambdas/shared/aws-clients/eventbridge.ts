import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { type ClientTracer, SDK_MAX_ATTEMPTS } from './options';

export function createEventBridgeClient(tracer: ClientTracer): EventBridgeClient {
  return tracer.captureAWSv3Client(new EventBridgeClient({ maxAttempts: SDK_MAX_ATTEMPTS }));
}
