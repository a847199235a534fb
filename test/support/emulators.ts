/**
 * Real emulators for tests: dynalite (DynamoDB) and the local runtime's SQS service, each on an ephemeral
 * loopback port, reached through the real AWS SDK v3 clients. Nothing here mocks a client.
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import {
  type RunningServer,
  startDynamoDbEmulator,
  startSqsEmulator,
} from '../../lib/local-runtime/emulators';

export const TEST_REGION = 'us-east-1';
export const TEST_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export type RunningEmulator = RunningServer;

/** Starts an in-memory dynalite, configured as the local runtime runs it (tables ready at once). */
export function startDynalite(): Promise<RunningEmulator> {
  return startDynamoDbEmulator();
}

/**
 * Starts the local runtime's SQS service (JSON protocol, as the current SDK speaks it), as the runtime
 * runs it: in memory, or journaled in `dataDirectory` to test a restart.
 */
export function startLocalSqs(options: { dataDirectory?: string } = {}): Promise<RunningEmulator> {
  return startSqsEmulator({ region: TEST_REGION, accountId: '123456789012', ...options });
}

export function dynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS });
}

export function sqsClient(endpoint: string): SQSClient {
  return new SQSClient({ endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS });
}

/**
 * Points every AWS SDK client created afterwards (including those built at module load inside
 * handlers) at the emulators, the way the local runtime and LocalStack do: standard endpoint
 * variables, no local-only code path in the handlers.
 */
export function useEmulatorEndpoints(endpoints: {
  dynamodb?: string;
  sqs?: string;
  sfn?: string;
  events?: string;
}): void {
  process.env.AWS_REGION = TEST_REGION;
  process.env.AWS_ACCESS_KEY_ID = TEST_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = TEST_CREDENTIALS.secretAccessKey;
  if (endpoints.dynamodb) process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoints.dynamodb;
  if (endpoints.sqs) process.env.AWS_ENDPOINT_URL_SQS = endpoints.sqs;
  if (endpoints.sfn) process.env.AWS_ENDPOINT_URL_SFN = endpoints.sfn;
  if (endpoints.events) process.env.AWS_ENDPOINT_URL_EVENTBRIDGE = endpoints.events;
}
