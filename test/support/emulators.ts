/**
 * Real emulators for tests: dynalite (DynamoDB) and local-aws-sqs (SQS), each on an ephemeral
 * loopback port, reached through the real AWS SDK v3 clients. Nothing here mocks a client.
 */

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';

export const TEST_REGION = 'us-east-1';
export const TEST_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export interface RunningEmulator {
  readonly endpoint: string;
  stop(): Promise<void>;
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve(`http://127.0.0.1:${port}`);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections?.();
    server.close(() => resolve());
  });
}

/** Starts an in-memory dynalite. Tables are created instantly (no CREATING delay). */
export async function startDynalite(): Promise<RunningEmulator> {
  // dynalite ships no types.
  const dynalite = require('dynalite') as (options: Record<string, unknown>) => Server;
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const endpoint = await listen(server);
  return { endpoint, stop: () => close(server) };
}

/** Starts local-aws-sqs (JSON protocol, as the current SDK speaks it). */
export async function startLocalSqs(): Promise<RunningEmulator> {
  const { createSqsServer } = require('local-aws-sqs') as {
    createSqsServer(options: Record<string, unknown>): Promise<Server>;
  };
  const server = await createSqsServer({
    port: 0,
    hostname: '127.0.0.1',
    emulateQueueCreationLifecycle: false,
  });
  const address = server.address() as AddressInfo | null;
  const endpoint = address ? `http://127.0.0.1:${address.port}` : await listen(server);
  return { endpoint, stop: () => close(server) };
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
