/**
 * SDK client factories for every handler. Each handler module calls these once at load time,
 * so clients (and their connection pools) are reused across invocations. Region, credentials and
 * endpoints come from the standard AWS_* environment variables, which is also how the local runtime
 * and the tests point the very same code at emulators. Every client is captured by the module's
 * tracer, so each AWS call shows as a subsegment of the work that made it (a no-op where tracing
 * is off).
 */
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * SDK-level attempts per call (first call included). The order's end-to-end retry budget is owned
 * by the scheduler and supervisor; SDK retries only smooth over throttling and dropped connections,
 * so they stay at the SDK's standard 3.
 */
export const SDK_MAX_ATTEMPTS = 3;

/** What instruments a client: the module's Powertools Tracer. */
export type ClientTracer = Pick<Tracer, 'captureAWSv3Client'>;

export function createDynamoDbClient(tracer: ClientTracer): DynamoDBClient {
  return tracer.captureAWSv3Client(new DynamoDBClient({ maxAttempts: SDK_MAX_ATTEMPTS }));
}

/** The document client shares the captured client's middleware stack, so its calls are traced too. */
export function createDocumentClient(tracer: ClientTracer): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(createDynamoDbClient(tracer), {
    marshallOptions: { removeUndefinedValues: true },
  });
}

export function createSqsClient(tracer: ClientTracer): SQSClient {
  return tracer.captureAWSv3Client(new SQSClient({ maxAttempts: SDK_MAX_ATTEMPTS }));
}

export function createEventBridgeClient(tracer: ClientTracer): EventBridgeClient {
  return tracer.captureAWSv3Client(new EventBridgeClient({ maxAttempts: SDK_MAX_ATTEMPTS }));
}

export function createSnsClient(tracer: ClientTracer): SNSClient {
  return tracer.captureAWSv3Client(new SNSClient({ maxAttempts: SDK_MAX_ATTEMPTS }));
}

export function createSfnClient(tracer: ClientTracer): SFNClient {
  return tracer.captureAWSv3Client(new SFNClient({ maxAttempts: SDK_MAX_ATTEMPTS }));
}
