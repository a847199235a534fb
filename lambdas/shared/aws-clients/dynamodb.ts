import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type ClientTracer, SDK_MAX_ATTEMPTS } from './options';

export function createDynamoDbClient(tracer: ClientTracer): DynamoDBClient {
  return tracer.captureAWSv3Client(new DynamoDBClient({ maxAttempts: SDK_MAX_ATTEMPTS }));
}

/** The document client shares the captured client's middleware stack, so its calls are traced too. */
export function createDocumentClient(tracer: ClientTracer): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(createDynamoDbClient(tracer), {
    marshallOptions: { removeUndefinedValues: true },
  });
}
