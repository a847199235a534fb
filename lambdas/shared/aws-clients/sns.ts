import { SNSClient } from '@aws-sdk/client-sns';
import { type ClientTracer, SDK_MAX_ATTEMPTS } from './options';

export function createSnsClient(tracer: ClientTracer): SNSClient {
  return tracer.captureAWSv3Client(new SNSClient({ maxAttempts: SDK_MAX_ATTEMPTS }));
}
