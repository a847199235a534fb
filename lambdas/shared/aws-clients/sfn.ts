import { SFNClient } from '@aws-sdk/client-sfn';
import { type ClientTracer, SDK_MAX_ATTEMPTS } from './options';

export function createSfnClient(tracer: ClientTracer): SFNClient {
  return tracer.captureAWSv3Client(new SFNClient({ maxAttempts: SDK_MAX_ATTEMPTS }));
}
