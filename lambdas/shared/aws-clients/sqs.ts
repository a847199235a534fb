import { SQSClient } from '@aws-sdk/client-sqs';
import { type ClientTracer, SDK_MAX_ATTEMPTS } from './options';

export function createSqsClient(tracer: ClientTracer): SQSClient {
  return tracer.captureAWSv3Client(new SQSClient({ maxAttempts: SDK_MAX_ATTEMPTS }));
}
