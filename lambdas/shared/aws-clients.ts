/**
 * SDK client factories for every handler. Each handler module calls these once at load time,
 * so clients (and their connection pools) are reused across invocations. Region, credentials and
 * endpoints come from the standard AWS_* environment variables, which is also how the local runtime
 * and the tests point the very same code at emulators.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * SDK-level attempts per call (first call included). The order's end-to-end retry budget is owned
 * by the scheduler and supervisor; SDK retries only smooth over throttling and dropped connections,
 * so they stay at the SDK's standard 3.
 */
export const SDK_MAX_ATTEMPTS = 3;

export function createDynamoDbClient(): DynamoDBClient {
  return new DynamoDBClient({ maxAttempts: SDK_MAX_ATTEMPTS });
}

export function createDocumentClient(): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(createDynamoDbClient(), {
    marshallOptions: { removeUndefinedValues: true },
  });
}

export function createSqsClient(): SQSClient {
  return new SQSClient({ maxAttempts: SDK_MAX_ATTEMPTS });
}

export function createEventBridgeClient(): EventBridgeClient {
  return new EventBridgeClient({ maxAttempts: SDK_MAX_ATTEMPTS });
}

export function createSfnClient(): SFNClient {
  return new SFNClient({ maxAttempts: SDK_MAX_ATTEMPTS });
}
