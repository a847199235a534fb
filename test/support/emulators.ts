/**
 * Real emulators for tests: DynamoDB Local (AWS's own DynamoDB emulator) and the local runtime's SQS
 * service, each on an ephemeral loopback port, reached through the real AWS SDK v3 clients. Nothing
 * here mocks a client.
 */

import { createHash } from 'node:crypto';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord } from 'aws-lambda';
import type { RuntimeClock } from '../../lib/local-runtime/clock';
import { startDynamoDbLocal as launchDynamoDbLocal } from '../../lib/local-runtime/dynamodb/dynamodb-local';
import {
  type RunningServer,
  type RunningSqsService,
  startSqsEmulator,
} from '../../lib/local-runtime/emulators';
import { createRuntimeIam, type RuntimeIam } from '../../lib/local-runtime/iam';
import { LocalIdentities } from '../../lib/local-runtime/iam/identities';

export const TEST_REGION = 'us-east-1';

/** Set by a Jest project's global setup to the DynamoDB Local its test files share. */
export const SHARED_DYNAMODB_ENDPOINT_ENV = 'TEST_SHARED_DYNAMODB_ENDPOINT';

/**
 * DynamoDB Local (without -sharedDb) keeps one database per access key id, which may hold letters
 * and digits only: a key derived from the test file's path gives each test file its own tables on
 * a shared emulator, and the same key whenever the file loads this module again (isolateModules).
 */
function accessKeyIdOfThisTestFile(): string {
  const testPath = typeof expect === 'undefined' ? undefined : expect.getState().testPath;
  return `test${createHash('sha256')
    .update(testPath ?? `process-${process.pid}`)
    .digest('hex')
    .slice(0, 24)}`;
}

export const TEST_CREDENTIALS = {
  accessKeyId: accessKeyIdOfThisTestFile(),
  secretAccessKey: 'local',
};

export type RunningEmulator = RunningServer;

/**
 * DynamoDB Local for this test file: the Jest project's shared JVM when its global setup started
 * one (stopping is then the global teardown's job), otherwise a JVM of its own. Either way the file
 * sees only its own tables (see TEST_CREDENTIALS).
 */
export async function startDynamoDbLocal(): Promise<RunningEmulator> {
  const shared = process.env[SHARED_DYNAMODB_ENDPOINT_ENV];
  if (shared) return { endpoint: shared, stop: async () => undefined };
  return launchDynamoDbLocal({ sharedDb: false });
}

/** The account of startLocalSqs's queues. */
export const LOCAL_SQS_ACCOUNT = '123456789012';

/**
 * An IAM of the local SQS account whose root signs with TEST_CREDENTIALS: what the tests' clients
 * and handlers sign with is the account's root (the developer), allowed anything no explicit Deny
 * forbids; any other credential is refused, as the runtime refuses it.
 */
export function localSqsIam(
  root: { accessKeyId: string; secretAccessKey: string } = TEST_CREDENTIALS,
): RuntimeIam {
  return createRuntimeIam({
    accountId: LOCAL_SQS_ACCOUNT,
    region: TEST_REGION,
    mode: 'enforce',
    log: () => undefined,
    root,
    users: new LocalIdentities(undefined, LOCAL_SQS_ACCOUNT),
  });
}

/**
 * Starts the local runtime's SQS service (JSON protocol, as the current SDK speaks it), as the runtime
 * runs it (on `clock`, the wall clock by default): in memory, or journaled in `dataDirectory` to
 * test a restart; IAM enforced, with
 * TEST_CREDENTIALS as the root unless `iam` is given (pass `accountId` of its account then).
 */
export function startLocalSqs(
  options: { dataDirectory?: string; iam?: RuntimeIam; accountId?: string; clock?: RuntimeClock } = {},
): Promise<RunningSqsService> {
  const { iam, accountId, ...rest } = options;
  return startSqsEmulator({
    region: TEST_REGION,
    accountId: accountId ?? LOCAL_SQS_ACCOUNT,
    iam: iam ?? localSqsIam(),
    ...rest,
  });
}

export function dynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS });
}

/** The DynamoDB Streams API, which DynamoDB Local serves on its own endpoint. */
export function streamsClient(endpoint: string): DynamoDBStreamsClient {
  return new DynamoDBStreamsClient({ endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS });
}

/**
 * Every record of a table's stream so far (each shard from TRIM_HORIZON), shaped as Lambda's event
 * source hands them to a function: what a stream consumer under test is given.
 */
export async function tableStreamRecords(endpoint: string, tableName: string): Promise<DynamoDBRecord[]> {
  const tables = dynamoClient(endpoint);
  const streams = streamsClient(endpoint);
  try {
    const { Table } = await tables.send(new DescribeTableCommand({ TableName: tableName }));
    const StreamArn = Table?.LatestStreamArn;
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn }));
    const records: DynamoDBRecord[] = [];
    for (const shard of StreamDescription?.Shards ?? []) {
      let { ShardIterator } = await streams.send(
        new GetShardIteratorCommand({ StreamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }),
      );
      while (ShardIterator) {
        const page = await streams.send(new GetRecordsCommand({ ShardIterator }));
        // The Streams API's record is Lambda's DynamoDBRecord but for its SDK-generated types.
        records.push(...((page.Records ?? []) as unknown as DynamoDBRecord[]));
        // An open shard always answers a next iterator: an empty page is the end of what is there.
        if ((page.Records ?? []).length === 0) break;
        ShardIterator = page.NextShardIterator;
      }
    }
    return records;
  } finally {
    tables.destroy();
    streams.destroy();
  }
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
